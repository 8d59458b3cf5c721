package e2e

import (
	"crypto/sha256"
	"encoding/hex"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// hashDir fingerprints a directory tree (names, modes, contents).
func hashDir(t *testing.T, root string) string {
	t.Helper()
	h := sha256.New()
	var paths []string
	filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err == nil {
			paths = append(paths, p)
		}
		return nil
	})
	sort.Strings(paths)
	for _, p := range paths {
		st, _ := os.Lstat(p)
		h.Write([]byte(p + st.Mode().String()))
		if st.Mode().IsRegular() {
			b, _ := os.ReadFile(p)
			h.Write(b)
		}
	}
	return hex.EncodeToString(h.Sum(nil))
}

type checkpointRow struct {
	CheckpointID string   `json:"checkpoint_id"`
	RunID        string   `json:"run_id"`
	Step         int      `json:"step"`
	CallID       string   `json:"call_id"`
	Kind         string   `json:"kind"`
	Files        []string `json:"files"`
}

// Rollback through the real binary: edits, tool-created and shell-created
// files, a tracked file a command deleted, ignored files; then the rollback
// is rolled back; the user's .git never changes.
func TestRollbackAndUndo(t *testing.T) {
	e := newEnv(t, script(
		turn("", call("c1", "edit_file", map[string]any{"path": "main.go", "old_string": `"Hello"`, "new_string": `"Bye"`})),
		turn("", call("c2", "write_file", map[string]any{"path": "pkg/new.go", "content": "package pkg\n"})),
		turn("", call("c3", "run_command", map[string]any{"command": "rm README.md && echo gen > made-by-shell.txt && mkdir -p build && echo out > build/app"})),
		turn("done"),
	))
	gitBefore := hashDir(t, filepath.Join(e.ws, ".git"))
	r := e.run("run", "--approval", "full-auto", "change things")
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	id := runID(t, r.stderr)
	var cps []checkpointRow
	e.mustJSON(&cps, "checkpoints", id, "--json")
	if len(cps) != 6 {
		t.Fatalf("checkpoints = %+v, want before and after for 3 calls", cps)
	}
	if cps[0].Kind != "before" || cps[0].CallID != "c1" || cps[1].Kind != "after" || strings.Join(cps[1].Files, ",") != "main.go" {
		t.Errorf("first checkpoints %+v", cps[:2])
	}
	if got := strings.Join(cps[5].Files, ","); got != "README.md,made-by-shell.txt" {
		t.Errorf("files changed by the command = %s (build/ is ignored)", got)
	}
	later := tree(t, e.ws)

	r = e.run("rollback", cps[0].CheckpointID)
	if r.code != 0 {
		t.Fatalf("rollback: exit %d\n%s", r.code, r.stderr)
	}
	pre := strings.TrimSpace(r.stdout)
	got := tree(t, e.ws)
	if !strings.Contains(got["main.go"], `"Hello"`) {
		t.Error("the edit was not undone")
	}
	for _, gone := range []string{"pkg/new.go", "made-by-shell.txt"} {
		if _, ok := got[gone]; ok {
			t.Errorf("%s, created after the checkpoint, is still there", gone)
		}
	}
	if got["README.md"] != "# demo\n" {
		t.Error("README.md, deleted by a command, was not restored")
	}
	if got["build/app"] != "out\n" {
		t.Error("an ignored file was touched")
	}
	if _, err := os.Stat(filepath.Join(e.ws, "pkg")); err == nil {
		t.Error("the emptied directory pkg/ is still there")
	}

	// The rollback is itself undone by rolling back its pre-rollback checkpoint.
	r = e.run("rollback", pre)
	if r.code != 0 {
		t.Fatalf("undo: exit %d\n%s", r.code, r.stderr)
	}
	if !sameTree(tree(t, e.ws), later) {
		t.Errorf("undoing the rollback did not restore the later state")
	}
	if hashDir(t, filepath.Join(e.ws, ".git")) != gitBefore {
		t.Error("the user's .git changed")
	}
	evs := e.trace(id)
	var kinds []string
	for _, ev := range evs[len(evs)-4:] {
		kinds = append(kinds, ev.Type)
	}
	if strings.Join(kinds, " ") != "checkpoint rollback checkpoint rollback" {
		t.Errorf("trace ends with %v", kinds)
	}
	rows := e.audit(id)
	if n := len(rows); n < 2 || rows[n-1].Action != "rollback" || rows[n-2].Action != "rollback" {
		t.Errorf("audit lacks the two rollbacks: %+v", rows)
	}
	// Rolling back with --conversation and resuming: the model is told.
	e.serve(script(turn("ok, starting over")))
	if r = e.run("rollback", cps[0].CheckpointID, "--conversation"); r.code != 0 {
		t.Fatalf("rollback --conversation: exit %d\n%s", r.code, r.stderr)
	}
	r = e.run("resume", id, "--message", "try again")
	if r.code != 0 {
		t.Fatalf("resume: exit %d\n%s", r.code, r.stderr)
	}
	body := string(e.srv.Requests()[0].Body)
	if !strings.Contains(body, "rolled the workspace files back") || strings.Contains(body, `\"Bye\"`) {
		t.Errorf("the model was not told of the rollback, or still sees the rewound turn:\n%s", body)
	}
}

func TestRollbackUnknownCheckpoint(t *testing.T) {
	e := newEnv(t, "")
	r := e.run("rollback", "deadbeef")
	if r.code != 2 || !strings.Contains(r.stderr, "agent checkpoints") {
		t.Errorf("exit %d %q", r.code, r.stderr)
	}
}
