package redact

import (
	"bytes"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
)

func TestLoadOrCreateKey(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "sub", "redact.key")
	k1, err := LoadOrCreateKey(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(k1) != KeySize {
		t.Fatalf("key size %d", len(k1))
	}
	st, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if runtime.GOOS != "windows" && st.Mode().Perm() != 0o600 {
		t.Errorf("mode %v, want 0600", st.Mode().Perm())
	}
	k2, err := LoadOrCreateKey(path)
	if err != nil || !bytes.Equal(k1, k2) {
		t.Fatalf("reload: %v, equal=%v", err, bytes.Equal(k1, k2))
	}
	leftovers, _ := filepath.Glob(filepath.Join(dir, "sub", ".redact-key-*"))
	if len(leftovers) != 0 {
		t.Errorf("temporary files left: %v", leftovers)
	}
}

func TestLoadOrCreateKeyRefusesLoosePerms(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no POSIX permissions")
	}
	path := filepath.Join(t.TempDir(), "redact.key")
	if _, err := LoadOrCreateKey(path); err != nil {
		t.Fatal(err)
	}
	for _, mode := range []os.FileMode{0o640, 0o604, 0o644} {
		os.Chmod(path, mode)
		_, err := LoadOrCreateKey(path)
		if err == nil || !strings.Contains(err.Error(), "chmod 600") {
			t.Errorf("mode %o: err = %v, want a refusal naming chmod 600", mode, err)
		}
	}
}

func TestLoadOrCreateKeyBadFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "redact.key")
	os.WriteFile(path, []byte("short"), 0o600)
	if _, err := LoadOrCreateKey(path); err == nil {
		t.Error("want an error for a 5-byte key file")
	}
}

func TestLoadOrCreateKeyConcurrent(t *testing.T) {
	path := filepath.Join(t.TempDir(), "redact.key")
	keys := make([][]byte, 8)
	var wg sync.WaitGroup
	for i := range keys {
		wg.Add(1)
		go func() {
			defer wg.Done()
			k, err := LoadOrCreateKey(path)
			if err != nil {
				t.Error(err)
			}
			keys[i] = k
		}()
	}
	wg.Wait()
	for _, k := range keys[1:] {
		if !bytes.Equal(k, keys[0]) {
			t.Fatal("concurrent creators disagree on the key")
		}
	}
}

func TestPlaceholderStability(t *testing.T) {
	secret := checksummed("ghp_")
	other := checksummed("ghp_")
	r1 := New(Config{Key: testKey})
	r2 := New(Config{Key: testKey})
	r3 := New(Config{Key: []byte("another key, another install....")})
	a := r1.Redact("t=" + secret)
	if a != r1.Redact("t="+secret) || a != r2.Redact("t="+secret) {
		t.Error("equal secrets under one key must give equal placeholders")
	}
	if a == r1.Redact("t="+other) {
		t.Error("different secrets gave equal placeholders")
	}
	if a == r3.Redact("t="+secret) {
		t.Error("different keys gave equal fingerprints")
	}
	want := r1.Placeholder(KindGitHubToken, secret)
	if a != "t="+want || len(want) != len("[REDACTED:github-token:12345678]") {
		t.Errorf("got %q, want t=%s", a, want)
	}
	fs := r1.Find([]byte(secret))
	if len(fs) != 1 || !strings.Contains(want, ":"+fs[0].Fingerprint+"]") {
		t.Errorf("Find fingerprint %+v does not match placeholder %s", fs, want)
	}
}

func TestContainsPlaceholder(t *testing.T) {
	r := New(Config{Key: testKey})
	red := r.Redact("password: \"" + rsecret(alBase62, 20) + "\"")
	for s, want := range map[string]bool{
		red:                                    true,
		"x [REDACTED:github-token:0a1b2c3d] y": true,
		"[REDACTED:my-kind-2:ffffffff]":        true,
		"[REDACTED:github-token:0a1b2c3]":      false,
		"[REDACTED:github-token:0A1B2C3D]":     false,
		"[REDACTED::0a1b2c3d]":                 false,
		"[REDACTED:Kind:0a1b2c3d]":             false,
		"[REDACTED] and [REDACTED:x:zzzzzzzz]": false,
		"no placeholder":                       false,
	} {
		if got := ContainsPlaceholder(s); got != want {
			t.Errorf("ContainsPlaceholder(%q) = %v", s, got)
		}
	}
}

// TestIdempotent: redacting redacted output changes nothing.
func TestIdempotent(t *testing.T) {
	r := New(Config{Key: testKey, PII: true})
	for _, d := range streamDocs() {
		once := r.Redact(d.doc)
		if twice := r.Redact(once); twice != once {
			t.Errorf("%s: second pass changed output:\n%s\n%s", d.kind, once, twice)
		}
	}
}

// TestConcurrent runs Redact, Find, AddKnown and a Writer at once (run with
// -race).
func TestConcurrent(t *testing.T) {
	r := New(Config{Key: testKey})
	docs := streamDocs()
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 50 {
				d := docs[(g+i)%len(docs)]
				if strings.Contains(r.Redact(d.doc), d.secret) {
					t.Errorf("%s leaked", d.kind)
				}
				r.Find([]byte(d.doc))
				if i%10 == 0 {
					r.AddKnown("", rsecret(alBase62, 16))
				}
			}
		}()
	}
	wg.Wait()
	st := r.Stats()
	if st.BytesScanned == 0 || len(st.Redactions) == 0 {
		t.Errorf("stats not counted: %+v", st)
	}
}

// TestKeyIsKnownSecret: the fingerprint key, printed by a command in any
// usual encoding, is redacted (issue 18).
func TestKeyIsKnownSecret(t *testing.T) {
	key := make([]byte, KeySize)
	if _, err := rand.Read(key); err != nil {
		t.Fatal(err)
	}
	r := New(Config{Key: key})
	h := hex.EncodeToString(key)
	for name, out := range map[string]string{
		"hex":        h + "\n",
		"HEX":        strings.ToUpper(h),
		"xxd -p":     h[:60] + "\n" + h[60:] + "\n",
		"base64":     base64.StdEncoding.EncodeToString(key) + "\n",
		"base64 raw": "key=" + base64.RawStdEncoding.EncodeToString(key),
		"base64url":  base64.URLEncoding.EncodeToString(key),
		"in JSON":    `{"output": "` + h + `"}`,
	} {
		got := r.Redact(out)
		if strings.Contains(got, h[:60]) || strings.Contains(got, strings.ToUpper(h[:60])) ||
			strings.Contains(got, base64.RawStdEncoding.EncodeToString(key)[:40]) || strings.Contains(got, base64.RawURLEncoding.EncodeToString(key)[:40]) {
			t.Errorf("%s: key not redacted: %q", name, got)
		}
	}
}

// TestFingerprintNeedsKey: a placeholder's fingerprint is an HMAC under the
// key, so a guess of a weak secret cannot be confirmed without it: the
// same secret under two keys gives unrelated fingerprints, and neither is
// an unkeyed hash of it. A Redactor built without a key makes a random
// one; there is no unkeyed path.
func TestFingerprintNeedsKey(t *testing.T) {
	secret := "hunter2-weak-password"
	k1, k2 := make([]byte, KeySize), make([]byte, KeySize)
	_, _ = rand.Read(k1)
	_, _ = rand.Read(k2)
	p1 := New(Config{Key: k1}).Placeholder(KindGenericSecret, secret)
	p2 := New(Config{Key: k2}).Placeholder(KindGenericSecret, secret)
	p3 := New(Config{}).Placeholder(KindGenericSecret, secret)
	p4 := New(Config{}).Placeholder(KindGenericSecret, secret)
	if p1 == p2 || p3 == p4 {
		t.Fatalf("fingerprints do not depend on the key: %s %s %s %s", p1, p2, p3, p4)
	}
	sum := sha256.Sum256([]byte(secret))
	for _, p := range []string{p1, p2, p3, p4} {
		if strings.Contains(p, hex.EncodeToString(sum[:4])) {
			t.Fatalf("%s is an unkeyed SHA-256 of the secret", p)
		}
	}
	m := hmac.New(sha256.New, k1)
	m.Write([]byte(secret))
	if want := "[REDACTED:generic-secret:" + hex.EncodeToString(m.Sum(nil)[:4]) + "]"; p1 != want {
		t.Fatalf("placeholder %s, want HMAC-SHA256(key, secret) %s", p1, want)
	}
}
