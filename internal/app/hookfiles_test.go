package app

import (
	"os"
	"path/filepath"
	"testing"

	"agent/internal/hooks"
)

// The files the hooks' commands name in the workspace are kept from the
// file tools: an existing script (directly or given to an interpreter), one
// that does not exist yet (the model must not create it), not a file
// outside the workspace, not a bare word.
func TestKeptFiles(t *testing.T) {
	ws, _ := filepath.EvalSymlinks(t.TempDir())
	outside := filepath.Join(t.TempDir(), "mine.sh")
	os.WriteFile(outside, nil, 0o755)
	os.MkdirAll(filepath.Join(ws, ".agent", "hooks"), 0o755)
	os.WriteFile(filepath.Join(ws, ".agent", "hooks", "guard.sh"), nil, 0o755)
	os.WriteFile(filepath.Join(ws, "lint.py"), nil, 0o644)
	os.WriteFile(filepath.Join(ws, "jq"), nil, 0o644)
	kept := keptFiles([]hooks.Hook{
		{Command: "./.agent/hooks/guard.sh"},
		{Command: "python3 lint.py && " + outside},
		{Command: "./.agent/hooks/later.sh; echo done"},
		{Command: "jq -r .tool"},
	}, ws)
	if kept == nil {
		t.Fatal("nothing kept")
	}
	for rel, want := range map[string]bool{".agent/hooks/guard.sh": true, "lint.py": true, ".agent/hooks/later.sh": true,
		"jq": true, "other.sh": false, ".agent/hooks/x": false} {
		if kept(rel) != want {
			t.Errorf("kept(%s) = %v, want %v", rel, !want, want)
		}
	}
}
