package checkpoint

import (
	"os"
	"path/filepath"
	"testing"
)

// A run keeps one head ref, rewritten in place: snapshots add no ref file,
// List walks the parents, and a run of an earlier version (one ref per
// snapshot) is read and continued the same way, then deleted whole.
func TestHeadRefAndEarlierLayout(t *testing.T) {
	ws := newWorkspace(t)
	home := t.TempDir()
	s := openStore(t, home, ws)
	var ids []string
	for _, call := range []string{"c1", "c2", "c3"} {
		write(t, ws, "a.txt", call+"\n")
		ids = append(ids, mustSnap(t, s, meta("old", call, KindAfter)).ID)
	}
	settle(t, s)
	runDir := filepath.Join(s.GitDir(), "refs", "agent", "runs", "old")
	if ents, _ := os.ReadDir(runDir); len(ents) != 1 || ents[0].Name() != "head" {
		t.Fatalf("ref files of the run: %v, want only head", ents)
	}
	list, err := s.List("old")
	if err != nil || len(list) != 3 || list[0].ID != ids[0] || list[2].ID != ids[2] {
		t.Fatalf("List = %v, %v; want %v", list, err, ids)
	}
	s.Close()

	// The layout of earlier versions: one ref per snapshot, no head.
	os.Remove(filepath.Join(runDir, "head"))
	for i, id := range ids {
		if err := os.WriteFile(filepath.Join(runDir, "00000"+string(rune('1'+i))), []byte(id+"\n"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	s = openStore(t, home, ws)
	write(t, ws, "a.txt", "c4\n")
	snap := mustSnap(t, s, meta("old", "c4", KindAfter))
	if snap.Parent != ids[2] {
		t.Fatalf("the new snapshot's parent is %s, want the old layout's newest %s", snap.Parent, ids[2])
	}
	if list, err := s.List("old"); err != nil || len(list) != 4 || list[3].ID != snap.ID {
		t.Fatalf("List after continuing an old run = %d snapshots, %v", len(list), err)
	}
	if runs, _ := s.Runs(); len(runs) != 1 || runs[0] != "old" {
		t.Fatalf("Runs = %v", runs)
	}
	if err := s.DeleteRun("old"); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(runDir); !os.IsNotExist(err) {
		t.Fatalf("the run's refs are still there: %v", err)
	}
	if _, err := s.Get(ids[0]); err == nil {
		t.Fatalf("a deleted run's snapshot is still readable")
	}
}
