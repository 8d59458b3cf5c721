package checkpoint

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
)

// outsideMark is in every file of the outside directory and in nothing
// inside the workspace (the outside directory's own name is lower case).
const outsideMark = "OUTSIDE"

// scanFixture is a workspace with d/f.txt, d/keep.txt and d/.gitignore and,
// beside it, an outside directory whose files a snapshot led out of the
// workspace would read: f.txt and keep.txt, and rules, which as d's
// .gitignore would hide d/f.txt.
type scanFixture struct {
	ws, outside string
	s           *Store
	outsideSum  string
}

func newScanFixture(t *testing.T) *scanFixture {
	t.Helper()
	parent, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	f := &scanFixture{ws: filepath.Join(parent, "ws"), outside: filepath.Join(parent, "outside")}
	write(t, f.ws, "d/f.txt", "inside f\n")
	write(t, f.ws, "d/keep.txt", "inside keep\n")
	write(t, f.ws, "d/.gitignore", "# inside rules\n")
	write(t, f.ws, "top.txt", "inside top\n")
	write(t, f.outside, "f.txt", outsideMark+" f\n")
	write(t, f.outside, "keep.txt", outsideMark+" keep\n")
	write(t, f.outside, "rules", "f.txt\n# "+outsideMark+" rules\n")
	f.outsideSum = hashTree(t, f.outside)
	f.s = openStore(t, filepath.Join(parent, "home"), f.ws)
	return f
}

// dirToLink replaces ws/d with a symlink to the outside directory.
func (f *scanFixture) dirToLink(t *testing.T) {
	t.Helper()
	d := filepath.Join(f.ws, "d")
	if err := os.RemoveAll(d); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(f.outside, d); err != nil {
		t.Fatal(err)
	}
}

// fileToLink atomically replaces ws/<rel> with a symlink to outside/<to>.
func (f *scanFixture) fileToLink(t *testing.T, rel, to string) {
	t.Helper()
	tmp := filepath.Join(f.ws, "link.tmp")
	if err := os.Symlink(filepath.Join(f.outside, to), tmp); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, filepath.Join(f.ws, filepath.FromSlash(rel))); err != nil {
		t.Fatal(err)
	}
}

// outsideUnchanged checks that nothing in the outside directory changed.
func (f *scanFixture) outsideUnchanged(t *testing.T) {
	t.Helper()
	if hashTree(t, f.outside) != f.outsideSum {
		t.Error("the outside directory changed")
	}
}

// snapEntries lists every path of a snapshot as "file:CONTENT",
// "exec:CONTENT" or "link:TARGET" (directories are implied).
func snapEntries(t *testing.T, s *Store, snap Snapshot) map[string]string {
	t.Helper()
	out := map[string]string{}
	var walk func(h plumbing.Hash, prefix string)
	walk = func(h plumbing.Hash, prefix string) {
		es, err := s.readTree(h)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range es {
			p := joinRel(prefix, e.name)
			if e.mode == filemode.Dir {
				walk(e.hash, p)
				continue
			}
			data, err := s.readRaw(plumbing.BlobObject, e.hash)
			if err != nil {
				t.Fatal(err)
			}
			kind := "file:"
			switch e.mode {
			case filemode.Symlink:
				kind = "link:"
			case filemode.Executable:
				kind = "exec:"
			}
			out[p] = kind + string(data)
		}
	}
	walk(plumbing.NewHash(snap.Tree), "")
	return out
}

// noOutsideInSnapshot fails for every path of snap that holds outside content.
func noOutsideInSnapshot(t *testing.T, s *Store, snap Snapshot) {
	t.Helper()
	for p, v := range snapEntries(t, s, snap) {
		if strings.Contains(v, outsideMark) {
			t.Errorf("snapshot %s stores %s as %q: content from outside the workspace", snap.ID, p, v)
		}
	}
}

// noOutsideInRepository fails if any blob of the shadow repository, reachable
// or not, holds outside content.
func noOutsideInRepository(t *testing.T, s *Store) {
	t.Helper()
	settle(t, s) // the object log's blobs too
	iter, err := s.st.IterEncodedObjects(plumbing.BlobObject)
	if err != nil {
		t.Fatal(err)
	}
	defer iter.Close()
	n := 0
	for {
		o, err := iter.Next()
		if err != nil {
			break
		}
		n++
		data, err := s.readRaw(plumbing.BlobObject, o.Hash())
		if err != nil {
			t.Fatal(err)
		}
		if bytes.Contains(data, []byte(outsideMark)) {
			t.Errorf("the shadow repository stores blob %s = %q, content from outside the workspace", o.Hash(), data)
		}
	}
	if n == 0 {
		t.Fatal("no blobs in the shadow repository: the check saw nothing")
	}
}

// workspaceOutside lists the regular files of the workspace (symlinks are
// not followed) that hold outside content.
func workspaceOutside(t *testing.T, ws string) []string {
	t.Helper()
	var bad []string
	err := filepath.WalkDir(ws, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.Type().IsRegular() {
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			if bytes.Contains(b, []byte(outsideMark)) {
				bad = append(bad, p)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return bad
}

// snapModes are the three ways a snapshot reads the workspace: a full scan
// (warm: after a base snapshot), and SnapshotPaths of a file and of its
// directory.
var snapModes = []struct {
	name string
	take func(s *Store, base Snapshot) (Snapshot, error)
}{
	{"full scan", func(s *Store, _ Snapshot) (Snapshot, error) {
		return s.Snapshot(bg, meta("r", "c2", KindAfter))
	}},
	{"paths d/f.txt", func(s *Store, base Snapshot) (Snapshot, error) {
		return s.SnapshotPaths(bg, base, []string{"d/f.txt"}, meta("r", "c2", KindAfter))
	}},
	{"paths d", func(s *Store, base Snapshot) (Snapshot, error) {
		return s.SnapshotPaths(bg, base, []string{"d"}, meta("r", "c2", KindAfter))
	}},
}
