package sandbox

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// The files the person's hooks run, where they lie in the workspace, are
// read-only to commands, and the directories down to them pinned; one
// outside every writable directory needs nothing.
func TestKeepHookScripts(t *testing.T) {
	ws, _ := filepath.EvalSymlinks(t.TempDir())
	outside, _ := filepath.EvalSymlinks(t.TempDir())
	script := filepath.Join(ws, ".agent", "hooks", "guard.sh")
	os.MkdirAll(filepath.Dir(script), 0o755)
	os.WriteFile(script, []byte("#!/bin/sh\n"), 0o755)
	mine := filepath.Join(outside, "mine.sh")
	os.WriteFile(mine, []byte("#!/bin/sh\n"), 0o755)
	sb, _ := New(Options{Mode: ModeWorkspaceWrite, Workspace: ws, TempRoot: t.TempDir(), Getenv: func(string) string { return "" },
		Probe: func() Capabilities { return Capabilities{LandlockABI: 7, UserNS: true} }, Keep: []string{script, mine}})
	defer sb.Close()
	sp, _ := sb.spec(t.TempDir(), false)
	if !slices.Contains(sp.Protect, script) || slices.Contains(sp.Protect, mine) {
		t.Errorf("read-only %v, want %s and not %s", sp.Protect, script, mine)
	}
	for _, d := range []string{filepath.Join(ws, ".agent"), filepath.Join(ws, ".agent", "hooks")} {
		if !slices.Contains(sp.Pin, d) {
			t.Errorf("pinned %v, want %s", sp.Pin, d)
		}
	}
	if slices.Contains(sp.Pin, ws) {
		t.Errorf("the workspace itself pinned: %v", sp.Pin)
	}
	if sb.mayWrite(script) || !sb.mayWrite(filepath.Join(ws, ".agent", "hooks", "other")) {
		t.Error("mayWrite does not tell the kept script from its neighbour")
	}
}
