package checkpoint

import (
	"errors"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/go-git/go-git/v5/plumbing/filemode"
)

// TestSnapshotSwapBeforeOpen swaps an entry between the moment a snapshot
// stats it (or lists its directory) and the moment it opens it, through the
// test hook, for each way a snapshot reads the workspace. The snapshot
// records what the entry has become (a symlink, as git records symlinks)
// or leaves it out; it never stores what a symlink points to, and never
// reads rules from outside.
func TestSnapshotSwapBeforeOpen(t *testing.T) {
	const (
		edited = "file:inside f, edited\n"
		keep   = "file:inside keep\n"
		absent = "-"
	)
	cases := []struct {
		name string
		at   string // the entry whose open the swap precedes
		prep func(t *testing.T, f *scanFixture)
		swap func(t *testing.T, f *scanFixture)
		want map[string]map[string]string // mode -> path -> entry (absent: "-")
	}{
		{
			name: "directory swapped for a symlink before it is opened",
			at:   "d",
			swap: func(t *testing.T, f *scanFixture) { f.dirToLink(t) },
			want: map[string]map[string]string{
				"full scan":     {"d": "link:<outside>", "d/f.txt": absent, "d/keep.txt": absent},
				"paths d":       {"d": "link:<outside>", "d/f.txt": absent, "d/keep.txt": absent},
				"paths d/f.txt": {"d/f.txt": absent, "d/keep.txt": keep},
			},
		},
		{
			name: "directory swapped for a symlink while the snapshot is in it",
			at:   "d/f.txt",
			swap: func(t *testing.T, f *scanFixture) { f.dirToLink(t) },
			want: map[string]map[string]string{
				"full scan":     {"d/f.txt": absent},
				"paths d":       {"d/f.txt": absent},
				"paths d/f.txt": {"d/f.txt": absent, "d/keep.txt": keep},
			},
		},
		{
			name: "file swapped for a symlink before it is read",
			at:   "d/f.txt",
			swap: func(t *testing.T, f *scanFixture) { f.fileToLink(t, "d/f.txt", "f.txt") },
			want: map[string]map[string]string{
				"full scan":     {"d/f.txt": "link:<outside>/f.txt", "d/keep.txt": keep},
				"paths d":       {"d/f.txt": "link:<outside>/f.txt", "d/keep.txt": keep},
				"paths d/f.txt": {"d/f.txt": "link:<outside>/f.txt", "d/keep.txt": keep},
			},
		},
		{
			name: ".gitignore swapped for a symlink before it is read",
			at:   "d/.gitignore",
			prep: func(t *testing.T, f *scanFixture) { write(t, f.ws, "d/.gitignore", "# inside rules, edited\n") },
			swap: func(t *testing.T, f *scanFixture) { f.fileToLink(t, "d/.gitignore", "rules") },
			want: map[string]map[string]string{
				"full scan":     {"d/f.txt": edited, "d/.gitignore": "link:<outside>/rules"},
				"paths d":       {"d/f.txt": edited, "d/.gitignore": "link:<outside>/rules"},
				"paths d/f.txt": {"d/f.txt": edited},
			},
		},
	}
	for _, tc := range cases {
		for _, mode := range snapModes {
			t.Run(tc.name+"/"+mode.name, func(t *testing.T) {
				f := newScanFixture(t)
				base := mustSnap(t, f.s, meta("r", "c1", KindBefore))
				write(t, f.ws, "d/f.txt", "inside f, edited\n") // read again by every mode
				if tc.prep != nil {
					tc.prep(t, f)
				}
				var seen []string
				fired := false
				f.s.beforeOpen = func(rel string) {
					seen = append(seen, rel)
					if rel == tc.at && !fired {
						fired = true
						tc.swap(t, f)
					}
				}
				snap, err := mode.take(f.s, base)
				f.s.beforeOpen = nil
				if err != nil {
					t.Fatal(err)
				}
				if !fired {
					t.Fatalf("the snapshot never opened %s (it opened %v): the swap was not tested", tc.at, seen)
				}
				got := snapEntries(t, f.s, snap)
				for p, want := range tc.want[mode.name] {
					want = strings.ReplaceAll(want, "<outside>", f.outside)
					g, ok := got[p]
					if !ok {
						g = absent
					}
					if g != want {
						t.Errorf("%s = %q, want %q", p, g, want)
					}
				}
				noOutsideInSnapshot(t, f.s, snap)
				noOutsideInRepository(t, f.s)
				f.outsideUnchanged(t)
			})
		}
	}
}

// TestSnapshotEntriesAreReadBeneathTheirDirectory checks the primitives: an
// entry that became a symlink is refused with errChanged by every way a
// snapshot reads one, and a directory held open is read where it is, not
// where its old path now leads.
func TestSnapshotEntriesAreReadBeneathTheirDirectory(t *testing.T) {
	f := newScanFixture(t)
	ws, err := openDir(f.ws)
	if err != nil {
		t.Fatal(err)
	}
	defer ws.close()
	d, err := ws.sub("d")
	if err != nil {
		t.Fatal(err)
	}
	defer d.close()
	var st fileStat
	if err := d.lstat("f.txt", &st); err != nil {
		t.Fatal(err)
	}
	f.fileToLink(t, "d/f.txt", "f.txt")
	f.fileToLink(t, "d/.gitignore", "rules")
	if _, _, err := readEntryAt(d, "f.txt", filemode.Regular, &st); !isChanged(err) {
		t.Errorf("reading a file swapped for a symlink: %v, want errChanged", err)
	}
	if _, err := (fileAt{d, ".gitignore"}).read(1<<20, &st); !isChanged(err) {
		t.Errorf("reading a .gitignore swapped for a symlink: %v, want errChanged", err)
	}
	if _, err := d.readlink("keep.txt"); !isChanged(err) {
		t.Errorf("readlink of a regular file: %v, want errChanged", err)
	}
	// d itself moved away and replaced by a symlink out: d's descriptor
	// still reads the moved directory, ws no longer opens d.
	if err := os.Rename(filepath.Join(f.ws, "d"), filepath.Join(f.ws, "moved")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(f.outside, filepath.Join(f.ws, "d")); err != nil {
		t.Fatal(err)
	}
	if _, err := ws.sub("d"); !isChanged(err) {
		t.Errorf("opening a directory swapped for a symlink: %v, want errChanged", err)
	}
	var kst fileStat
	if err := d.lstat("keep.txt", &kst); err != nil {
		t.Fatal(err)
	}
	data, stable, err := readEntryAt(d, "keep.txt", filemode.Regular, &kst)
	if err != nil || string(data) != "inside keep\n" || !stable {
		t.Errorf("keep.txt read through the held directory = %q, %v, %v; want the inside content", data, stable, err)
	}
	f.outsideUnchanged(t)
}

func isChanged(err error) bool { return errors.Is(err, errChanged) }

// TestRollbackAfterSwappedSnapshot is the attack end to end: a process
// swaps d/f.txt for a symlink out while a snapshot reads it, and d for a
// symlink out while another one does; it then puts everything back. Rolling
// back to those snapshots restores the symlinks they recorded and never
// writes what the symlinks pointed to into the workspace.
func TestRollbackAfterSwappedSnapshot(t *testing.T) {
	f := newScanFixture(t)
	mustSnap(t, f.s, meta("r", "c0", KindBefore))
	restoreReal := func() {
		t.Helper()
		if err := os.RemoveAll(filepath.Join(f.ws, "d")); err != nil {
			t.Fatal(err)
		}
		write(t, f.ws, "d/f.txt", "inside f, later\n")
		write(t, f.ws, "d/keep.txt", "inside keep\n")
	}
	swapped := func(at string, swap func()) Snapshot {
		t.Helper()
		write(t, f.ws, "d/f.txt", "inside f, edited\n")
		fired := false
		f.s.beforeOpen = func(rel string) {
			if rel == at && !fired {
				fired = true
				swap()
			}
		}
		snap := mustSnap(t, f.s, meta("r", "c1", KindAfter))
		f.s.beforeOpen = nil
		if !fired {
			t.Fatalf("the snapshot never opened %s", at)
		}
		restoreReal()
		return snap
	}
	fileSnap := swapped("d/f.txt", func() { f.fileToLink(t, "d/f.txt", "f.txt") })
	dirSnap := swapped("d", func() { f.dirToLink(t) })

	for _, tc := range []struct {
		name string
		snap Snapshot
		link string // the path that must come back as a symlink
	}{
		{"file swapped", fileSnap, "d/f.txt"},
		{"directory swapped", dirSnap, "d"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, _, err := f.s.Rollback(bg, tc.snap.ID, meta("r", "", KindRollback)); err != nil {
				t.Fatal(err)
			}
			if bad := workspaceOutside(t, f.ws); len(bad) > 0 {
				t.Errorf("the rollback wrote outside content into %v", bad)
			}
			fi, err := os.Lstat(filepath.Join(f.ws, filepath.FromSlash(tc.link)))
			if err != nil || fi.Mode()&fs.ModeSymlink == 0 {
				t.Errorf("%s after the rollback: %v %v, want the symlink the snapshot recorded", tc.link, fi, err)
			}
			if got := read(t, f.ws, "top.txt"); got != "inside top\n" {
				t.Errorf("top.txt = %q", got)
			}
			restoreReal()
		})
	}
	noOutsideInRepository(t, f.s)
	f.outsideUnchanged(t)
	if names := slices.Sorted(maps.Keys(snapEntries(t, f.s, fileSnap))); !slices.Contains(names, "top.txt") {
		t.Errorf("the swapped snapshot lost top.txt: %v", names)
	}
}

// TestSnapshotListingKeptUnderTheDirectoryRead: a directory replaced by
// another real directory between the moment a scan stats its path and the
// moment it opens it is listed through the descriptor opened, and that
// listing is kept in the stat cache under the stat data of the directory it
// was read from, never under the one the path named before: a later scan
// that finds the first directory back in its place lists it again rather
// than trusting the other's names.
func TestSnapshotListingKeptUnderTheDirectoryRead(t *testing.T) {
	f := newScanFixture(t)
	write(t, f.ws, "other/b.txt", "inside b\n")
	var inoA, inoB fileStat
	if err := lstatPath(filepath.Join(f.ws, "d"), &inoA); err != nil {
		t.Fatal(err)
	}
	if err := lstatPath(filepath.Join(f.ws, "other"), &inoB); err != nil {
		t.Fatal(err)
	}
	fired := false
	f.s.beforeOpen = func(rel string) {
		if rel == "d" && !fired {
			fired = true
			for _, mv := range [][2]string{{"d", "d.a"}, {"other", "d"}} {
				if err := os.Rename(filepath.Join(f.ws, mv[0]), filepath.Join(f.ws, mv[1])); err != nil {
					t.Fatal(err)
				}
			}
		}
	}
	snap := mustSnap(t, f.s, meta("r", "c1", KindBefore)) // cold: every directory is listed
	f.s.beforeOpen = nil
	if !fired {
		t.Fatal("the snapshot never opened d: the swap was not tested")
	}
	if got := snapEntries(t, f.s, snap)["d/b.txt"]; got != "file:inside b\n" {
		t.Errorf("d/b.txt = %q, want the directory opened at d", got)
	}
	ds := f.s.stat.dirs["d"]
	if ds == nil {
		t.Fatal("no listing of d in the stat cache")
	}
	if ds.sig.ino != inoB.ino || !slices.Contains(ds.names, "b.txt") {
		t.Errorf("the listing of d (%v) is kept under inode %d; the directory listed is %d (the one stat'ed by path: %d)",
			ds.names, ds.sig.ino, inoB.ino, inoA.ino)
	}
}
