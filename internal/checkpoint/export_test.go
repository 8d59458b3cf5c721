package checkpoint

import (
	"path/filepath"
	"testing"

	git "github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing/object"
)

// CopyTree puts a snapshot's files, modes and symlinks into another
// repository's object store under the same tree id, from the shadow
// repository alone (the workspace has changed since), and copies nothing
// twice.
func TestCopyTreeIntoAnotherRepository(t *testing.T) {
	ws := newWorkspace(t)
	s := openStore(t, filepath.Join(t.TempDir(), "home"), ws)
	snap := mustSnap(t, s, meta("r1", "c1", KindBefore))
	write(t, ws, "a.txt", "changed since\n")
	dst, err := git.PlainInit(t.TempDir(), true)
	if err != nil {
		t.Fatal(err)
	}
	h, err := s.CopyTree(bg, snap.ID[:10], dst.Storer)
	if err != nil {
		t.Fatal(err)
	}
	if h.String() != snap.Tree {
		t.Fatalf("tree %s, want the snapshot's %s", h, snap.Tree)
	}
	tree, err := object.GetTree(dst.Storer, h)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	err = tree.Files().ForEach(func(f *object.File) error {
		c, err := f.Contents()
		got[f.Name] = f.Mode.String() + " " + c
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		"a.txt": "0100644 alpha\n", "dir/b.txt": "0100644 bravo\n", "dir/sub/c.txt": "0100644 charlie\n",
		"script.sh": "0100755 #!/bin/sh\necho hi\n", "link": "0120000 a.txt", "dir/keep.log": "0100644 re-included\n",
	}
	for p, w := range want {
		if got[p] != w {
			t.Errorf("%s = %q, want %q", p, got[p], w)
		}
	}
	if _, ok := got["x.log"]; ok {
		t.Error("an ignored file was copied")
	}
	// a second copy finds everything there
	if _, err := s.CopyTree(bg, snap.ID, dst.Storer); err != nil {
		t.Fatal(err)
	}
	if _, err := s.CopyTree(bg, "deadbeef", dst.Storer); err == nil {
		t.Fatal("a copy of an unknown snapshot did not fail")
	}
}
