package checkpoint

import (
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// TestSnapshotRace takes hundreds of snapshots (full scans and both kinds
// of SnapshotPaths) while another goroutine keeps swapping, atomically
// (renameat2 RENAME_EXCHANGE, as fast as it can), d between the real
// directory and a symlink out, and, inside the real directory, f.txt
// between a file and a symlink to the outside f.txt. The files carry an
// mtime in the future, so that every full scan reads them again. No
// snapshot may hold, and the shadow repository may never store, content of
// the outside directory. Then, with the swapping stopped, the workspace is
// rolled back to many of those snapshots: no rollback may write outside
// content into the workspace, or anything outside.
func TestSnapshotRace(t *testing.T) {
	f := newScanFixture(t)
	future := time.Now().Add(time.Hour)
	for _, rel := range []string{"d/f.txt", "d/keep.txt"} {
		if err := os.Chtimes(filepath.Join(f.ws, filepath.FromSlash(rel)), future, future); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(f.outside, filepath.Join(f.ws, "d2")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(f.outside, "f.txt"), filepath.Join(f.ws, "d", "f.lnk")); err != nil {
		t.Fatal(err)
	}
	base := mustSnap(t, f.s, meta("r", "c0", KindBefore))

	// The adversary holds the workspace and the real directory open, so its
	// renames never go through the symlink to the outside directory.
	wsDir, err := os.Open(f.ws)
	if err != nil {
		t.Fatal(err)
	}
	defer wsDir.Close()
	realDir, err := os.Open(filepath.Join(f.ws, "d"))
	if err != nil {
		t.Fatal(err)
	}
	defer realDir.Close()
	wfd, dfd := int(wsDir.Fd()), int(realDir.Fd())
	var stop atomic.Bool
	var swaps atomic.Int64
	var wg sync.WaitGroup
	wg.Go(func() {
		for !stop.Load() {
			if err := unix.Renameat2(wfd, "d", wfd, "d2", unix.RENAME_EXCHANGE); err != nil {
				t.Errorf("swap d: %v", err)
				return
			}
			if err := unix.Renameat2(dfd, "f.txt", dfd, "f.lnk", unix.RENAME_EXCHANGE); err != nil {
				t.Errorf("swap f.txt: %v", err)
				return
			}
			swaps.Add(1)
		}
	})

	var snaps []Snapshot
	kinds := map[string]int{}
	for i := range 300 {
		mode := snapModes[i%len(snapModes)]
		snap, err := mode.take(f.s, base)
		if err != nil {
			t.Errorf("snapshot %d (%s): %v", i, mode.name, err)
			continue
		}
		snaps = append(snaps, snap)
		got := snapEntries(t, f.s, snap)
		for p, v := range got {
			if strings.Contains(v, outsideMark) {
				t.Errorf("snapshot %d (%s) stores %s = %q: content from outside the workspace", i, mode.name, p, v)
			}
		}
		switch v := got["d/f.txt"]; {
		case strings.HasPrefix(got["d"], "link:"):
			kinds["d a symlink"]++
		case strings.HasPrefix(v, "link:"):
			kinds["d/f.txt a symlink"]++
		case strings.HasPrefix(v, "file:"):
			kinds["d/f.txt a file"]++
		default:
			kinds["d/f.txt left out"]++
		}
		base = snap
	}
	stop.Store(true)
	wg.Wait()
	t.Logf("%d swaps; states the snapshots saw: %v", swaps.Load(), kinds)
	if len(kinds) < 2 {
		t.Errorf("the snapshots saw only %v: the swapping was not raced", kinds)
	}
	noOutsideInRepository(t, f.s)
	f.outsideUnchanged(t)

	for i := 0; i < len(snaps); i += 5 {
		if _, _, err := f.s.Rollback(bg, snaps[i].ID, meta("r", "", KindRollback)); err != nil {
			t.Fatalf("rollback to snapshot %d: %v", i, err)
		}
		if bad := workspaceOutside(t, f.ws); len(bad) > 0 {
			t.Fatalf("rollback to snapshot %d wrote outside content into %v", i, bad)
		}
	}
	f.outsideUnchanged(t)
}
