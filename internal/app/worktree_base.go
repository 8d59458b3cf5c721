package app

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	git "github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/go-git/go-git/v5/plumbing/storer"
	"github.com/go-git/go-git/v5/utils/merkletrie"
)

// withTracked completes scanned, the tree of the workspace's files as a
// checkpoint scans them (in repo's object store), into what git would
// commit: a file HEAD tracks that the scan left out (it matches an ignore
// rule, or is over the size limit) but that is still in the workspace is
// put back with its present content, and a submodule entry with its
// commit. So a worker's base is HEAD plus the parent's current files. HEAD
// is read from repo; scanned is read, and what is new written, in dst (the
// same repository's object store, as worktree.Add opened it).
func withTracked(ctx context.Context, repo *git.Repository, dst storer.EncodedObjectStorer, ws string, scanned plumbing.Hash) (plumbing.Hash, error) {
	head, err := repo.Head()
	if err != nil {
		return scanned, nil // no HEAD: nothing is tracked
	}
	hc, err := repo.CommitObject(head.Hash())
	if err != nil {
		return plumbing.ZeroHash, fmt.Errorf("the workspace's HEAD: %w", err)
	}
	ht, err := hc.Tree()
	if err != nil {
		return plumbing.ZeroHash, fmt.Errorf("the workspace's HEAD: %w", err)
	}
	st, err := object.GetTree(dst, scanned)
	if err != nil {
		return plumbing.ZeroHash, fmt.Errorf("the scanned files: %w", err)
	}
	changes, err := object.DiffTreeWithOptions(ctx, ht, st, nil)
	if err != nil {
		return plumbing.ZeroHash, fmt.Errorf("compare the files with HEAD: %w", err)
	}
	var add []object.TreeEntry // Name: the whole path
	for _, c := range changes {
		if act, err := c.Action(); err != nil || act != merkletrie.Delete {
			continue
		}
		p, e := c.From.Name, c.From.TreeEntry
		if e.Mode == filemode.Submodule {
			add = append(add, object.TreeEntry{Name: p, Mode: e.Mode, Hash: e.Hash})
			continue
		}
		if !filepath.IsLocal(filepath.FromSlash(p)) {
			continue
		}
		full := filepath.Join(ws, filepath.FromSlash(p))
		fi, err := os.Lstat(full)
		if err != nil {
			continue // deleted in the workspace: deleted in the base
		}
		var data []byte
		mode := filemode.Regular
		switch {
		case fi.Mode()&fs.ModeSymlink != 0:
			t, err := os.Readlink(full)
			if err != nil {
				return plumbing.ZeroHash, err
			}
			data, mode = []byte(t), filemode.Symlink
		case fi.Mode().IsRegular():
			if data, err = os.ReadFile(full); err != nil {
				return plumbing.ZeroHash, err
			}
			if fi.Mode().Perm()&0o111 != 0 {
				mode = filemode.Executable
			}
		default:
			continue
		}
		h, err := storeBlob(dst, data)
		if err != nil {
			return plumbing.ZeroHash, err
		}
		add = append(add, object.TreeEntry{Name: p, Mode: mode, Hash: h})
	}
	if len(add) == 0 {
		return scanned, nil
	}
	return insertEntries(dst, scanned, add)
}

func storeBlob(s storer.EncodedObjectStorer, data []byte) (plumbing.Hash, error) {
	obj := s.NewEncodedObject()
	obj.SetType(plumbing.BlobObject)
	obj.SetSize(int64(len(data)))
	w, err := obj.Writer()
	if err != nil {
		return plumbing.ZeroHash, err
	}
	if _, err := w.Write(data); err != nil {
		w.Close()
		return plumbing.ZeroHash, err
	}
	if err := w.Close(); err != nil {
		return plumbing.ZeroHash, err
	}
	return s.SetEncodedObject(obj)
}

// insertEntries returns tree h with the entries add (paths relative to h)
// put in, replacing any of the same path; missing directories are made.
func insertEntries(s storer.EncodedObjectStorer, h plumbing.Hash, add []object.TreeEntry) (plumbing.Hash, error) {
	var entries []object.TreeEntry
	if !h.IsZero() {
		t, err := object.GetTree(s, h)
		if err != nil {
			return plumbing.ZeroHash, err
		}
		entries = append(entries, t.Entries...)
	}
	here := map[string]object.TreeEntry{}
	below := map[string][]object.TreeEntry{}
	for _, e := range add {
		dir, rest, ok := strings.Cut(e.Name, "/")
		if !ok {
			here[e.Name] = e
			continue
		}
		below[dir] = append(below[dir], object.TreeEntry{Name: rest, Mode: e.Mode, Hash: e.Hash})
	}
	idx := map[string]int{}
	for i, e := range entries {
		idx[e.Name] = i
	}
	put := func(e object.TreeEntry) {
		if i, ok := idx[e.Name]; ok {
			entries[i] = e
			return
		}
		idx[e.Name] = len(entries)
		entries = append(entries, e)
	}
	for _, e := range here {
		put(e)
	}
	for dir, sub := range below {
		var cur plumbing.Hash
		if i, ok := idx[dir]; ok && entries[i].Mode == filemode.Dir {
			cur = entries[i].Hash
		}
		nh, err := insertEntries(s, cur, sub)
		if err != nil {
			return plumbing.ZeroHash, err
		}
		put(object.TreeEntry{Name: dir, Mode: filemode.Dir, Hash: nh})
	}
	key := func(e object.TreeEntry) string {
		if e.Mode == filemode.Dir {
			return e.Name + "/"
		}
		return e.Name
	}
	sort.Slice(entries, func(i, j int) bool { return key(entries[i]) < key(entries[j]) })
	t := &object.Tree{Entries: entries}
	obj := s.NewEncodedObject()
	if err := t.Encode(obj); err != nil {
		return plumbing.ZeroHash, err
	}
	return s.SetEncodedObject(obj)
}
