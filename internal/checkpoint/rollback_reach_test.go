package checkpoint

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func keptPaths(changes []Change) []string {
	var out []string
	for _, c := range changes {
		if c.Action == ActionKept {
			if c.Reason == "" {
				panic("kept without a reason: " + c.Path)
			}
			out = append(out, c.Path)
		}
	}
	return out
}

// A command cannot take its files out of a rollback's reach by making them
// ignored afterwards (info/exclude or a .gitignore): the target's own rules
// decide, and the rollback's snapshot takes the files in, so the undo brings
// them back.
func TestRollbackReachesFilesIgnoredLater(t *testing.T) {
	ws := newWorkspace(t)
	if !exists(ws, ".git") {
		t.Skip("git not installed")
	}
	s := openStore(t, t.TempDir(), ws)
	before := mustSnap(t, s, meta("r", "c1", KindBefore))
	// A command: a new plugin, an edit, both hidden by rules written after.
	write(t, ws, "plugin_x.py", "import os\nos.system('id')\n")
	write(t, ws, "dir/b.txt", "bravo, backdoored\n")
	write(t, ws, "cfg/secret.py", "new dir, ignored by a new .gitignore line\n")
	write(t, ws, ".git/info/exclude", "plugin_x.py\n")
	write(t, ws, ".gitignore", "*.log\nbuild/\ndir/b.txt\ncfg/\n")
	mustSnap(t, s, meta("r", "c1", KindAfter))

	pre, changes, err := s.Rollback(bg, before.ID, Meta{RunID: "r"})
	if err != nil {
		t.Fatal(err)
	}
	if k := keptPaths(changes); len(k) != 0 {
		t.Fatalf("kept %v: %v", k, changes)
	}
	if exists(ws, "plugin_x.py") || exists(ws, "cfg") {
		t.Fatalf("files created after the checkpoint and ignored later survived: %v", changes)
	}
	if got := read(t, ws, "dir/b.txt"); got != "bravo\n" {
		t.Fatalf("dir/b.txt = %q", got)
	}
	if read(t, ws, ".gitignore") != "*.log\nbuild/\n" {
		t.Fatal(".gitignore not restored")
	}
	// Ignored all along: untouched (build/ existed and was ignored at the
	// target; x.log too).
	if !exists(ws, "build/out.bin") || !exists(ws, "x.log") {
		t.Fatal("a file ignored at the checkpoint was touched")
	}
	// The undo brings the hidden files back.
	if _, _, err := s.Rollback(bg, pre.ID, Meta{RunID: "r"}); err != nil {
		t.Fatal(err)
	}
	if read(t, ws, "plugin_x.py") != "import os\nos.system('id')\n" || read(t, ws, "dir/b.txt") != "bravo, backdoored\n" {
		t.Fatal("undo did not bring the files back")
	}
}

// Files made after the checkpoint that its rules ignore too (a build
// output, a virtualenv whose own .gitignore says "*") are never touched.
func TestRollbackKeepsWhatTheTargetIgnored(t *testing.T) {
	ws := newWorkspace(t)
	s := openStore(t, t.TempDir(), ws)
	write(t, ws, ".venv/.gitignore", "*\n")
	write(t, ws, ".venv/lib/site.py", "venv file\n")
	before := mustSnap(t, s, meta("r", "c1", KindBefore))
	write(t, ws, ".venv/lib/new.py", "installed after\n")
	write(t, ws, "build/new.bin", "built after\n")
	write(t, ws, "new.log", "log after\n")
	write(t, ws, "made.txt", "made after\n")
	_, changes, err := s.Rollback(bg, before.ID, Meta{RunID: "r"})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{".venv/lib/new.py", ".venv/lib/site.py", ".venv/.gitignore", "build/new.bin", "new.log"} {
		if !exists(ws, p) {
			t.Errorf("%s, ignored at the checkpoint, was deleted", p)
		}
	}
	if exists(ws, "made.txt") {
		t.Error("made.txt, created after the checkpoint, survived")
	}
	if k := keptPaths(changes); len(k) != 0 {
		t.Errorf("kept %v", k)
	}
}

// A file padded past the cap, or born past it, is not destroyed (no snapshot
// could bring it back) but named with the reason; the rest is restored.
func TestRollbackNamesWhatNoSnapshotHolds(t *testing.T) {
	ws := newWorkspace(t)
	s := openStore(t, t.TempDir(), ws)
	write(t, ws, "big_then.bin", strings.Repeat("x", MaxFileSize+1))
	before := mustSnap(t, s, meta("r", "c1", KindBefore))
	big := strings.Repeat("# padding\n", MaxFileSize/10+1)
	write(t, ws, "a.txt", "alpha\nimport backdoor\n"+big)
	write(t, ws, "born_big.dat", big)
	write(t, ws, "dir/b.txt", "edited\n")
	write(t, ws, "big_then.bin", "small now\n")
	_, changes, err := s.Rollback(bg, before.ID, Meta{RunID: "r"})
	if err != nil {
		t.Fatal(err)
	}
	k := keptPaths(changes)
	slices.Sort(k)
	if !slices.Equal(k, []string{"a.txt", "big_then.bin", "born_big.dat"}) {
		t.Fatalf("kept %v, want a.txt, big_then.bin and born_big.dat: %v", k, changes)
	}
	for _, c := range changes {
		if c.Action == ActionKept && !strings.Contains(c.Reason, "10 MiB") {
			t.Errorf("%s: reason %q does not name the cap", c.Path, c.Reason)
		}
	}
	if read(t, ws, "dir/b.txt") != "bravo\n" {
		t.Error("dir/b.txt not restored")
	}
	if !exists(ws, "born_big.dat") || read(t, ws, "big_then.bin") != "small now\n" {
		t.Error("a file no snapshot holds was destroyed")
	}
	// Moved out of the way, it is restored.
	if err := os.Remove(filepath.Join(ws, "a.txt")); err != nil {
		t.Fatal(err)
	}
	if _, _, err := s.Rollback(bg, before.ID, Meta{RunID: "r"}); err != nil {
		t.Fatal(err)
	}
	if read(t, ws, "a.txt") != "alpha\n" {
		t.Error("a.txt not restored once out of the way")
	}
}

// The record of the rules survives a prune of another run, and a snapshot
// taken from a list of paths keeps its base's record.
func TestRulesRecordSurvivesPrune(t *testing.T) {
	ws := newWorkspace(t)
	s := openStore(t, t.TempDir(), ws)
	before := mustSnap(t, s, meta("r", "c1", KindBefore))
	if before.Rules == "" {
		t.Fatal("no rules recorded")
	}
	write(t, ws, "a.txt", "changed\n")
	p, err := s.SnapshotPaths(bg, before, []string{"a.txt"}, meta("r", "c1", KindAfter))
	if err != nil || p.Rules != before.Rules {
		t.Fatalf("incremental snapshot rules %q, base %q (%v)", p.Rules, before.Rules, err)
	}
	write(t, ws, "other.txt", "other run\n")
	mustSnap(t, s, meta("gone", "c1", KindBefore))
	if err := s.DeleteRun("gone"); err != nil {
		t.Fatal(err)
	}
	fsck(t, s)
	write(t, ws, "plugin.py", "later\n")
	write(t, ws, ".gitignore", "*.log\nbuild/\nplugin.py\n")
	if _, _, err := s.Rollback(bg, before.ID, Meta{RunID: "r"}); err != nil {
		t.Fatal(err)
	}
	if exists(ws, "plugin.py") {
		t.Fatal("plugin.py survived the rollback")
	}
}
