//go:build linux

package tools

import (
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// A FIFO in the workspace is refused without being opened (opening it for
// reading would block until a writer came).
func TestSpecialFilesDoNotBlock(t *testing.T) {
	env, ws := newWorkspace(t)
	if err := syscall.Mkfifo(filepath.Join(ws, "pipe"), 0o600); err != nil {
		t.Fatal(err)
	}
	writeTree(t, ws, map[string]string{"a.txt": "needle\n"})
	for _, c := range []struct {
		tool string
		args map[string]any
		want string
	}{
		{"read_file", map[string]any{"path": "pipe"}, "pipe is not a regular file"},
		{"write_file", map[string]any{"path": "pipe", "content": "x"}, "pipe is not a regular file"},
		{"edit_file", map[string]any{"path": "pipe", "old_string": "a", "new_string": "b"}, "pipe is not a regular file"},
	} {
		res, err := call(t, env, c.tool, c.args)
		if err == nil || !strings.Contains(res.Output, c.want) {
			t.Errorf("%s: %q, %v", c.tool, res.Output, err)
		}
	}
	if res := mustCall(t, env, "grep", map[string]any{"pattern": "needle"}); res.Output != "a.txt:1:needle\n" {
		t.Errorf("grep: %q", res.Output)
	}
	if res := mustCall(t, env, "grep", map[string]any{"pattern": "needle", "path": "pipe"}); !strings.HasPrefix(res.Output, "no matches") {
		t.Errorf("grep on the FIFO: %q", res.Output)
	}
	if res, err := call(t, env, "list_dir", map[string]any{"path": "pipe"}); err == nil || !strings.Contains(res.Output, "not a directory") {
		t.Errorf("list_dir on the FIFO: %q %v", res.Output, err)
	}
	if res := mustCall(t, env, "list_dir", map[string]any{}); !strings.Contains(res.Output, "pipe") {
		t.Errorf("list_dir beside the FIFO: %q", res.Output)
	}
}
