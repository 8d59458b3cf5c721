package redact

import (
	"strings"
	"testing"
)

// The canonical example passwords stay (docs are full of them); a real
// password that merely contains the word is a secret.
func TestExamplePasswordsAndRealOnes(t *testing.T) {
	r := New(Config{Key: testKey})
	for _, c := range []struct {
		text, value string
		secret      bool
	}{
		{"postgres://admin:S3cr3tPassw0rd@db.internal:5432/app", "S3cr3tPassw0rd", true},
		{"https://admin:MyRealPassword2024xQ@git.example.com/repo.git", "MyRealPassword2024xQ", true},
		{`db_password = "hunter2Passwd99zz"`, "hunter2Passwd99zz", true},
		{"postgres://user:P@ssw0rd@localhost/app", "user:P@ssw0rd@", false},
		{"mysql://root:password123@127.0.0.1/test", "root:password123@", false},
	} {
		got := r.Redact(c.text)
		if leaked := strings.Contains(got, c.value); leaked == c.secret {
			t.Errorf("%q → %q: secret=%v", c.text, got, c.secret)
		}
	}
}
