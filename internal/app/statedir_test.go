package app

import (
	"os"
	"path/filepath"
	"testing"
)

// A state directory inside the workspace is named to the tools (a command
// run in-process never writes it: the sandbox hides it from bash); one
// outside, or a sibling whose name only starts like the workspace, is not.
func TestStateDirIn(t *testing.T) {
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	ws := filepath.Join(root, "ws")
	for _, d := range []string{ws + "/.state", root + "/ws2"} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(ws+"/.state", root+"/link"); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ home, want string }{
		{ws + "/.state", ".state"},
		{root + "/link", ".state"},
		{root + "/ws2", ""},
		{root, ""},
		{"", ""},
	} {
		if got := stateDirIn(c.home, ws); got != c.want {
			t.Errorf("stateDirIn(%q) = %q, want %q", c.home, got, c.want)
		}
	}
}
