package checkpoint

import (
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
)

// confineFixture is a workspace with d/f.txt and, beside it, an outside
// directory with a file of the same name that a redirected restore would
// overwrite or delete.
func confineFixture(t *testing.T) (ws, outside string, s *Store) {
	t.Helper()
	parent, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	ws, outside = filepath.Join(parent, "ws"), filepath.Join(parent, "outside")
	write(t, ws, "d/f.txt", "snapshot content\n")
	write(t, ws, "d/keep.txt", "keep\n")
	write(t, outside, "f.txt", "OUTSIDE\n")
	write(t, outside, "gone.txt", "OUTSIDE gone\n")
	return ws, outside, openStore(t, filepath.Join(parent, "home"), ws)
}

func outsideIntact(t *testing.T, outside string) {
	t.Helper()
	es, err := os.ReadDir(outside)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range es {
		names = append(names, e.Name())
	}
	if strings.Join(names, " ") != "f.txt gone.txt" {
		t.Errorf("outside holds %v, want only f.txt gone.txt", names)
	}
	if got := read(t, outside, "f.txt"); got != "OUTSIDE\n" {
		t.Errorf("outside f.txt = %q", got)
	}
	if got := read(t, outside, "gone.txt"); got != "OUTSIDE gone\n" {
		t.Errorf("outside gone.txt = %q", got)
	}
}

func swapToLink(t *testing.T, ws, outside string) {
	t.Helper()
	if err := os.RemoveAll(filepath.Join(ws, "d")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(ws, "d")); err != nil {
		t.Fatal(err)
	}
}

// TestRestoreWriteAfterSwap: the parent directory was checked (and created)
// as a real directory, then swapped for a symlink out before the file is
// written: the write is refused, nothing outside changes.
func TestRestoreWriteAfterSwap(t *testing.T) {
	ws, outside, s := confineFixture(t)
	snap := mustSnap(t, s, meta("r", "c1", KindBefore))
	e, ok, err := s.lookup(plumbing.NewHash(snap.Tree), "d/f.txt")
	if err != nil || !ok {
		t.Fatalf("lookup: %v %v", ok, err)
	}
	root, err := s.openRoot()
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	if !makeParents(root, "d/f.txt") {
		t.Fatal("makeParents refused a real directory")
	}
	swapToLink(t, ws, outside)
	var st fileStat
	if err := s.writeEntry(root, "d/f.txt", e, false, &st); err == nil {
		t.Error("writeEntry wrote through a symlink swapped in for its directory")
	}
	if makeParents(root, "d/f.txt") {
		t.Error("makeParents accepted a symlink as a parent directory")
	}
	outsideIntact(t, outside)
}

// TestRestoreRace rolls the workspace back and forth between two snapshots
// (one with d/f.txt and d/gone.txt, one without) and redoes single paths,
// while another goroutine keeps swapping d between a real directory and a
// symlink to the outside directory. No restore may write or delete there.
func TestRestoreRace(t *testing.T) {
	ws, outside, s := confineFixture(t)
	write(t, ws, "d/gone.txt", "inside gone\n")
	with := mustSnap(t, s, meta("r", "c1", KindBefore))
	if err := os.RemoveAll(filepath.Join(ws, "d")); err != nil {
		t.Fatal(err)
	}
	without := mustSnap(t, s, meta("r", "c1", KindAfter))

	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		d := filepath.Join(ws, "d")
		for {
			select {
			case <-stop:
				return
			default:
			}
			_ = os.RemoveAll(d)
			_ = os.Symlink(outside, d)
			time.Sleep(200 * time.Microsecond) // paces the adversary; nothing is timed
			_ = os.Remove(d)
			_ = os.Mkdir(d, 0o755)
			_ = os.WriteFile(filepath.Join(d, "f.txt"), []byte("changed\n"), 0o644)
			_ = os.WriteFile(filepath.Join(d, "gone.txt"), []byte("changed\n"), 0o644)
			time.Sleep(200 * time.Microsecond)
		}
	})
	for i := 0; i < 100; i++ {
		_, _ = s.Restore(bg, with.ID, Snapshot{})
		_, _ = s.Restore(bg, without.ID, Snapshot{})
		_, _ = s.RestorePaths(bg, with.ID, []string{"d/f.txt", "d/gone.txt"})
		_, _ = s.RestorePaths(bg, without.ID, []string{"d/f.txt", "d/gone.txt"})
	}
	close(stop)
	wg.Wait()
	outsideIntact(t, outside)
}
