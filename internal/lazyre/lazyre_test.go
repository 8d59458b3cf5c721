package lazyre

import "testing"

// Not compiled until used; then it answers as regexp does.
func TestCompiledOnFirstUse(t *testing.T) {
	l := New(`^(a+)(b*)$`)
	if l.re != nil {
		t.Fatal("compiled at New")
	}
	if !l.MatchString("aab") || l.MatchString("ba") {
		t.Fatal("MatchString")
	}
	if m := l.FindStringSubmatch("aabb"); len(m) != 3 || m[1] != "aa" || m[2] != "bb" {
		t.Fatalf("FindStringSubmatch = %q", m)
	}
	if got := New(`b+`).ReplaceAllString("abba", "x"); got != "axa" {
		t.Fatalf("ReplaceAllString = %q", got)
	}
}
