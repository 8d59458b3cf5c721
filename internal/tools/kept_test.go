package tools

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// A path the person's hooks run is never written by the file tools, named
// directly or reached through a symlink; its neighbours are.
func TestKeptPathsRefused(t *testing.T) {
	ws, _ := filepath.EvalSymlinks(t.TempDir())
	os.MkdirAll(filepath.Join(ws, "hooks"), 0o755)
	os.WriteFile(filepath.Join(ws, "hooks", "guard.sh"), []byte("ok\n"), 0o755)
	os.Symlink("hooks/guard.sh", filepath.Join(ws, "g.sh"))
	env := &Env{Workspace: ws, Kept: func(rel string) bool { return rel == "hooks/guard.sh" }}
	ctx := context.Background()
	for _, p := range []string{"hooks/guard.sh", "g.sh", "./hooks/../hooks/guard.sh"} {
		args, _ := json.Marshal(map[string]string{"path": p, "content": "evil\n"})
		_, err := (WriteFile{}).Run(ctx, env.ForCall("", nil), args)
		var pe *PathError
		if !errors.As(err, &pe) || pe.Reason != ReasonKept {
			t.Errorf("write_file %s: %v, want refused as kept", p, err)
		}
		args, _ = json.Marshal(map[string]string{"path": p, "old_string": "ok", "new_string": "evil"})
		if _, err := (EditFile{}).Run(ctx, env, args); !errors.As(err, &pe) || pe.Reason != ReasonKept {
			t.Errorf("edit_file %s: %v, want refused as kept", p, err)
		}
	}
	if b, _ := os.ReadFile(filepath.Join(ws, "hooks", "guard.sh")); string(b) != "ok\n" {
		t.Errorf("the kept file changed: %q", b)
	}
	args, _ := json.Marshal(map[string]string{"path": "hooks/other.sh", "content": "fine\n"})
	if _, err := (WriteFile{}).Run(ctx, env, args); err != nil {
		t.Errorf("write_file beside the kept file: %v", err)
	}
}
