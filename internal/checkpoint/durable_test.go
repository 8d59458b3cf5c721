package checkpoint

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/go-git/go-billy/v5/osfs"
	git "github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/cache"
	"github.com/go-git/go-git/v5/storage/filesystem"
)

// listRepo returns the regular files and the directories under gitDir's
// objects/ and refs/ (absolute paths).
func listRepo(t *testing.T, gitDir string) (files, dirs map[string]bool) {
	t.Helper()
	files, dirs = map[string]bool{}, map[string]bool{}
	for _, top := range []string{"objects", "refs"} {
		err := filepath.WalkDir(filepath.Join(gitDir, top), func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.IsDir() {
				dirs[p] = true
			} else {
				files[p] = true
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	return files, dirs
}

// checkDurable replays the durability steps a call recorded and fails for
// every pack, ref or directory it created that was not durable when the
// call returned: a pack's and its index's data fsynced before they were
// renamed into place (the index first) and their directory fsynced after; every new directory's parent
// fsynced after it was made; the ref written (by atomicfile: fsync, rename,
// fsync of its directory) only after every new object was durable.
func checkDurable(t *testing.T, gitDir string, before, after map[string]bool, beforeDirs, afterDirs map[string]bool, evs []syncEvent) {
	t.Helper()
	first := func(from int, op syncOp, path string) int {
		for i := from; i < len(evs); i++ {
			if evs[i].Op == op && evs[i].Path == path {
				return i
			}
		}
		return -1
	}
	var objDurable []int // per new object: the event after which it is durable
	refAt := map[string]int{}
	nObjects, nRefs := 0, 0
	for p := range after {
		if before[p] {
			continue
		}
		rel, _ := filepath.Rel(gitDir, p)
		base := filepath.Base(rel)
		switch {
		case strings.HasPrefix(rel, filepath.Join("objects", "pack")+string(filepath.Separator)) &&
			strings.HasPrefix(base, "pack-") && (strings.HasSuffix(base, ".pack") || strings.HasSuffix(base, ".idx")):
			nObjects++
			ren := -1
			for i, ev := range evs {
				if ev.Op == opRename && ev.To == p {
					ren = i
				}
			}
			if ren < 0 {
				t.Errorf("%s: no rename into place recorded", rel)
				continue
			}
			if s := first(0, opSyncFile, evs[ren].Path); s < 0 || s > ren {
				t.Errorf("%s: its data was not fsynced before the rename (sync at %d, rename at %d)", rel, s, ren)
			}
			if strings.HasSuffix(base, ".pack") {
				idx := strings.TrimSuffix(p, ".pack") + ".idx"
				ir := -1
				for i, ev := range evs[:ren] {
					if ev.Op == opRename && ev.To == idx {
						ir = i
					}
				}
				if ir < 0 {
					t.Errorf("%s: renamed into place before its index", rel)
				}
			}
			d := first(ren, opSyncDir, filepath.Dir(p))
			if d < 0 {
				t.Errorf("%s: directory not fsynced after the rename", rel)
				continue
			}
			objDurable = append(objDurable, d)
		case strings.HasPrefix(rel, "objects"+string(filepath.Separator)):
			t.Errorf("%s left behind by the snapshot (only packs and their indexes belong there)", rel)
		case strings.HasPrefix(rel, "refs"+string(filepath.Separator)):
			nRefs++
			r := first(0, opRef, p)
			if r < 0 {
				t.Errorf("ref %s: not written by atomicfile", rel)
				continue
			}
			refAt[p] = r
		default:
			t.Errorf("unexpected new file %s", rel)
		}
	}
	for d := range afterDirs {
		if beforeDirs[d] {
			continue
		}
		rel, _ := filepath.Rel(gitDir, d)
		m := first(0, opMkdir, d)
		if m < 0 {
			t.Errorf("directory %s: creation not recorded", rel)
			continue
		}
		ps := first(m, opSyncDir, filepath.Dir(d))
		if ps < 0 {
			t.Errorf("directory %s: parent not fsynced after it was made", rel)
			continue
		}
		if strings.HasPrefix(rel, "objects") {
			objDurable = append(objDurable, ps)
		}
	}
	// A head ref that existed is rewritten in place: its write is recorded too.
	for i, ev := range evs {
		if (ev.Op == opRef || ev.Op == opRefRewrite) && !after[ev.Path] {
			t.Errorf("ref %s recorded but not on disk", ev.Path)
		}
		if ev.Op == opRef || ev.Op == opRefRewrite {
			if _, ok := refAt[ev.Path]; !ok {
				refAt[ev.Path] = i
				nRefs++
			}
		}
	}
	for p, r := range refAt {
		for _, d := range objDurable {
			if d > r {
				t.Errorf("ref %s written (step %d) before an object it needs was durable (step %d)", p, r, d)
			}
		}
	}
	if nRefs != 1 || nObjects == 0 {
		t.Errorf("the call made %d refs and %d pack files; want 1 ref and a pack", nRefs, nObjects)
	}
}

// checkLogged checks that a snapshot call left its commit and head in the
// object log, durable: the log's last sync is the call's, a log the call
// created was renamed into place and its directory synced, and a reader
// of the file finds both records whole. No other file is new.
func checkLogged(t *testing.T, s *Store, before map[string]bool, evs []syncEvent, snap Snapshot) {
	t.Helper()
	after, _ := listRepo(t, s.GitDir())
	var logPath string
	for p := range after {
		if before[p] {
			continue
		}
		rel, _ := filepath.Rel(s.GitDir(), p)
		if filepath.Dir(rel) == "agent" && strings.HasPrefix(filepath.Base(rel), logPrefix) {
			logPath = p
			continue
		}
		if filepath.Base(rel) == "statcache" || strings.HasPrefix(filepath.Base(rel), ".statcache") {
			continue
		}
		t.Errorf("the snapshot left a new file %s (only the object log may be new)", rel)
	}
	if logPath != "" {
		ren := -1
		for i, ev := range evs {
			if ev.Op == opRename && ev.To == logPath {
				ren = i
			}
		}
		dsync := -1
		for i := max(ren, 0); i < len(evs); i++ {
			if evs[i].Op == opSyncDir && evs[i].Path == filepath.Dir(logPath) {
				dsync = i
				break
			}
		}
		if ren < 0 || dsync < 0 {
			t.Errorf("the new object log %s was not renamed into place and its directory synced", filepath.Base(logPath))
		}
	}
	if s.logs.own == nil {
		t.Fatal("no object log after a snapshot")
	}
	lp := s.logs.own.path
	lastSync := -1
	for i, ev := range evs {
		if ev.Op == opSyncFile && ev.Path == lp {
			lastSync = i
		}
	}
	if lastSync < 0 {
		t.Fatalf("the object log was not synced by the call: %v", evs)
	}
	f, err := os.Open(lp)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	l := newObjLog(lp, f, false)
	if err := l.parse(); err != nil {
		t.Fatal(err)
	}
	id := plumbing.NewHash(snap.ID)
	if _, ok := l.ents[id]; !ok {
		t.Errorf("the log read back lacks the snapshot's commit %s", snap.ID[:8])
	}
	if l.heads[snap.RunID] != id {
		t.Errorf("the log read back has head %s for %s, want %s", l.heads[snap.RunID], snap.RunID, snap.ID[:8])
	}
}

func TestSnapshotIsDurableWhenItReturns(t *testing.T) {
	ws := newWorkspace(t)
	s := openStore(t, t.TempDir(), ws)
	var evs []syncEvent
	s.sy.hook = func(ev syncEvent) { evs = append(evs, ev) }
	var last Snapshot
	steps := []struct {
		name string
		edit func()
		take func() (Snapshot, error)
	}{
		{"first snapshot of a run", nil, func() (Snapshot, error) { return s.Snapshot(bg, meta("run1", "c1", KindBefore)) }},
		{"full scan after an edit", func() { write(t, ws, "dir/sub/new.txt", "new\n") },
			func() (Snapshot, error) { return s.Snapshot(bg, meta("run1", "c1", KindAfter)) }},
		{"incremental snapshot of one path", func() { write(t, ws, "a.txt", "alpha 2\n") },
			func() (Snapshot, error) {
				return s.SnapshotPaths(bg, last, []string{"a.txt"}, meta("run1", "c2", KindAfter))
			}},
		{"first snapshot of a second run", func() { write(t, ws, "deep/er/still/f.txt", "f\n") },
			func() (Snapshot, error) { return s.Snapshot(bg, meta("run2", "c1", KindBefore)) }},
	}
	for _, st := range steps {
		t.Run(st.name, func(t *testing.T) {
			if st.edit != nil {
				st.edit()
			}
			before, _ := listRepo(t, s.GitDir())
			evs = nil
			snap, err := st.take()
			if err != nil {
				t.Fatal(err)
			}
			if n := s.objs.len(); n != 0 {
				t.Errorf("%d objects still pending after the call returned", n)
			}
			checkLogged(t, s, before, evs, snap)
			// Folding the log: a pack renamed into place after its data
			// is synced, then the head ref, each durable in order.
			before, beforeDirs := listRepo(t, s.GitDir())
			evs = nil
			settle(t, s)
			after, afterDirs := listRepo(t, s.GitDir())
			checkDurable(t, s.GitDir(), before, after, beforeDirs, afterDirs, evs)
			last = snap
		})
	}
	fsck(t, s)
}

// A stat cache names blobs: it is written only after they are durable.
func TestStatCacheWrittenAfterItsObjects(t *testing.T) {
	ws := newWorkspace(t)
	s := openStore(t, t.TempDir(), ws)
	mustSnap(t, s, meta("run1", "c1", KindBefore))
	write(t, ws, "later.txt", "later\n")
	s.mu.Lock()
	res, err := s.scanTree(bg, false) // writes the blob, leaves it pending
	s.mu.Unlock()
	if err != nil || res.tree.IsZero() {
		t.Fatal(res.tree, err)
	}
	if s.objs.len() == 0 {
		t.Fatal("the scan left nothing pending; the test needs a pending object")
	}
	var evs []syncEvent
	s.sy.hook = func(ev syncEvent) { evs = append(evs, ev) }
	s.mu.Lock()
	err = s.saveStat(s.stat, s.gen)
	s.mu.Unlock()
	if err != nil {
		t.Fatal(err)
	}
	if s.objs.len() != 0 {
		t.Fatal("objects still pending after the stat cache was saved")
	}
	synced := false
	for _, ev := range evs {
		synced = synced || ev.Op == opSyncFile && s.logs.own != nil && ev.Path == s.logs.own.path
	}
	if !synced {
		t.Fatalf("the objects were not made durable (the object log synced) before the stat cache: %v", evs)
	}
}

// checkPrivate fails for every entry under dir that group or others may
// access.
func checkPrivate(t *testing.T, dir string) int {
	t.Helper()
	n := 0
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		fi, err := os.Lstat(p)
		if err != nil {
			return err
		}
		n++
		if p != dir && fi.Mode().Perm()&0o077 != 0 {
			rel, _ := filepath.Rel(dir, p)
			t.Errorf("%s has mode %#o", rel, fi.Mode().Perm())
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// In a state directory others can read (mkdir -p gives 0755), the shadow
// repository is still private: directories 0700, files 0600, objects 0400.
func TestShadowRepositoryIsPrivate(t *testing.T) {
	ws := newWorkspace(t)
	home := filepath.Join(t.TempDir(), "home")
	if err := os.Mkdir(home, 0o755); err != nil {
		t.Fatal(err)
	}
	s := openStore(t, home, ws)
	a := mustSnap(t, s, meta("run1", "c1", KindBefore))
	write(t, ws, "dir/sub/more/new.txt", "new\n")
	b := mustSnap(t, s, meta("run2", "c1", KindBefore))
	if _, err := s.Restore(bg, a.ID, b); err != nil {
		t.Fatal(err)
	}
	if err := s.DeleteRun("run2"); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if n := checkPrivate(t, home); n < 20 {
		t.Fatalf("only %d entries under the home; the test looked at the wrong place", n)
	}
	packs, _ := filepath.Glob(filepath.Join(s.GitDir(), "objects", "pack", "pack-*"))
	if len(packs) == 0 {
		t.Fatal("no pack in the repository")
	}
	for _, p := range packs {
		if fi, err := os.Stat(p); err != nil || fi.Mode().Perm() != 0o400 {
			t.Errorf("%s: %v, want mode 0400", filepath.Base(p), err)
		}
	}
}

// A shadow repository an earlier version made with go-git's defaults
// (0755 directories, 0644 HEAD and config, 0444 objects) is made private
// when it is opened, and still works.
func TestOldShadowRepositoryTightenedOnOpen(t *testing.T) {
	for _, half := range []bool{false, true} {
		t.Run(fmt.Sprintf("killed-half-way=%v", half), func(t *testing.T) {
			ws := newWorkspace(t)
			home := t.TempDir()
			s := openStore(t, home, ws)
			gitDir := s.GitDir()
			if err := s.Close(); err != nil {
				t.Fatal(err)
			}
			if err := os.RemoveAll(gitDir); err != nil {
				t.Fatal(err)
			}
			// What the earlier version did: MkdirAll 0700, PlainInit, objects
			// written through go-git's osfs storage.
			if err := os.MkdirAll(gitDir, 0o700); err != nil {
				t.Fatal(err)
			}
			if _, err := git.PlainInit(gitDir, true); err != nil {
				t.Fatal(err)
			}
			old := filesystem.NewStorage(osfs.New(gitDir), cache.NewObjectLRUDefault())
			obj := old.NewEncodedObject()
			obj.SetType(plumbing.BlobObject)
			w, _ := obj.Writer()
			_, _ = w.Write([]byte("old blob\n"))
			_ = w.Close()
			h, err := old.SetEncodedObject(obj)
			if err != nil {
				t.Fatal(err)
			}
			p := filepath.Join(gitDir, "objects", h.String()[:2], h.String()[2:])
			if fi, err := os.Stat(p); err != nil || fi.Mode().Perm() != 0o444 {
				t.Fatalf("the old-style object is %v (%v); the test premise is wrong", fi.Mode(), err)
			}
			if half { // a tightening killed after the objects, before the markers
				if err := os.Chmod(p, 0o400); err != nil {
					t.Fatal(err)
				}
			}
			s2 := openStore(t, home, ws)
			checkPrivate(t, filepath.Join(home, "checkpoints"))
			mustSnap(t, s2, meta("run1", "c1", KindBefore))
			checkPrivate(t, filepath.Join(home, "checkpoints"))
			fsck(t, s2)
		})
	}
}

// A ref write killed after it made its temporary file leaves ".NAME.tmp-…"
// in the run's ref directory: readers skip it, the run goes on, and
// deleting the run removes it.
func TestLeftoverRefTempIsIgnored(t *testing.T) {
	ws := newWorkspace(t)
	s := openStore(t, t.TempDir(), ws)
	mustSnap(t, s, meta("run1", "c1", KindBefore))
	settle(t, s) // the head ref is written when the log is folded
	dir := filepath.Join(s.GitDir(), "refs", "agent", "runs", "run1")
	if err := os.WriteFile(filepath.Join(dir, ".000002.tmp-0123456789ab"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	s2 := openStore(t, filepath.Dir(filepath.Dir(s.GitDir())), ws)
	write(t, ws, "a.txt", "changed\n")
	snap := mustSnap(t, s2, meta("run1", "c2", KindAfter))
	if snap.Seq != 2 {
		t.Fatalf("seq = %d, want 2", snap.Seq)
	}
	list, err := s2.List("run1")
	if err != nil || len(list) != 2 {
		t.Fatalf("List = %v, %v", list, err)
	}
	if runs, err := s2.Runs(); err != nil || len(runs) != 1 {
		t.Fatalf("Runs = %v, %v", runs, err)
	}
	if err := s2.DeleteRun("run1"); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Lstat(dir); !os.IsNotExist(err) {
		t.Fatalf("the run's ref directory is still there: %v", err)
	}
}
