package atomicfile

import (
	"os"
	"path/filepath"
	"testing"
)

func TestWriteReplacesAndKeepsNoTemp(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "f.txt")
	if err := os.WriteFile(p, []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := Write(p, []byte("new"), 0o600); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(p)
	if err != nil || string(b) != "new" {
		t.Fatalf("content %q, %v", b, err)
	}
	fi, _ := os.Stat(p)
	if fi.Mode().Perm() != 0o600 {
		t.Fatalf("mode %v, want 0600", fi.Mode().Perm())
	}
	left, _ := filepath.Glob(filepath.Join(dir, TempPattern("f.txt")))
	if len(left) != 0 {
		t.Fatalf("temporary files left: %v", left)
	}
}

func TestWriteInRefusesEscape(t *testing.T) {
	dir := t.TempDir()
	outside := t.TempDir()
	if err := os.Symlink(outside, filepath.Join(dir, "d")); err != nil {
		t.Fatal(err)
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	for _, name := range []string{"d/x", "../x", filepath.Join(outside, "x")} {
		if err := WriteIn(root, name, []byte("x"), 0o644); err == nil {
			t.Errorf("WriteIn(%q) succeeded; want a refusal", name)
		}
	}
	if ents, _ := os.ReadDir(outside); len(ents) != 0 {
		t.Fatalf("something was written outside: %v", ents)
	}
}

func TestTempPatternMatchesLeftovers(t *testing.T) {
	pat := TempPattern("a[1].go")
	if ok, _ := filepath.Match(pat, ".a[1].go"+TempMarker+"0123abcd"); !ok {
		t.Fatalf("pattern %q does not match a leftover", pat)
	}
	if ok, _ := filepath.Match(pat, ".b.go"+TempMarker+"0123"); ok {
		t.Fatalf("pattern %q matches another file's leftover", pat)
	}
}
