package worktree

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/go-git/go-git/v5/plumbing/storer"
)

// hostileTree stores a tree whose entries are named to leave the worktree
// or reach into git's own files: "..", ".git" (a config setting
// core.fsmonitor), a name with a slash, and a symlink "out" beside a
// directory "out" holding a file (written through the link if the
// checkout followed it).
func hostileTree(outside string, which int) func(storer.EncodedObjectStorer) (plumbing.Hash, error) {
	return func(s storer.EncodedObjectStorer) (plumbing.Hash, error) {
		blob := func(body string) plumbing.Hash {
			o := s.NewEncodedObject()
			o.SetType(plumbing.BlobObject)
			w, _ := o.Writer()
			w.Write([]byte(body))
			w.Close()
			h, _ := s.SetEncodedObject(o)
			return h
		}
		tree := func(es ...object.TreeEntry) plumbing.Hash {
			t := object.Tree{Entries: es}
			o := s.NewEncodedObject()
			t.Encode(o)
			h, _ := s.SetEncodedObject(o)
			return h
		}
		pwn := tree(object.TreeEntry{Name: "pwn.txt", Mode: filemode.Regular, Hash: blob("pwned\n")})
		cfg := tree(object.TreeEntry{Name: "config", Mode: filemode.Regular, Hash: blob("[core]\n\tfsmonitor = touch " + outside + "/fsmonitor\n")})
		evil := [][]object.TreeEntry{
			{{Name: "..", Mode: filemode.Dir, Hash: pwn}},
			{{Name: ".git", Mode: filemode.Dir, Hash: cfg}},
			{{Name: "out", Mode: filemode.Symlink, Hash: blob(outside)}, {Name: "out", Mode: filemode.Dir, Hash: pwn}},
			{{Name: "x/../../../pwn2.txt", Mode: filemode.Regular, Hash: blob("pwned\n")}},
			{{Name: "..", Mode: filemode.Regular, Hash: blob("pwned\n")}},
		}[which]
		return tree(append([]object.TreeEntry{{Name: "a", Mode: filemode.Regular, Hash: blob("a\n")}}, evil...)...), nil
	}
}

// A tree that is not a checkpoint's (the shadow repository is out of the
// commands' reach, but Add must not trust it): Add either refuses it or
// writes nothing outside the new worktree and keeps its .git file its own.
func TestAddHostileTree(t *testing.T) {
	repo := newRepo(t)
	for which := range 5 {
		outside := t.TempDir()
		base := t.TempDir()
		path := filepath.Join(base, "wt", "fork")
		_, err := Add(context.Background(), AddOptions{Repo: repo, Path: path, Branch: fmt.Sprintf("agent/fork-%d", which), Tree: hostileTree(outside, which), Message: "m"})
		for _, p := range []string{filepath.Join(base, "wt", "pwn.txt"), filepath.Join(base, "pwn2.txt"), filepath.Join(base, "wt", "pwn2.txt"),
			filepath.Join(outside, "pwn.txt"), filepath.Join(outside, "fsmonitor"), filepath.Join(base, "wt", "..")} {
			if st, e := os.Lstat(p); e == nil && st.Mode().IsRegular() {
				t.Errorf("tree %d: Add wrote %s outside the worktree (Add's error: %v)", which, p, err)
			}
		}
		if err == nil {
			if b, _ := os.ReadFile(filepath.Join(path, ".git")); !strings.HasPrefix(string(b), "gitdir:") {
				t.Errorf("tree %d: the tree's .git replaced the worktree's .git file: %q", which, b)
			}
		}
		t.Logf("tree %d: Add: %v", which, err)
	}
}
