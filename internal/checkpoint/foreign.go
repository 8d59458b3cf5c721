package checkpoint

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/go-git/go-git/v5/plumbing/storer"
	"github.com/go-git/go-git/v5/utils/merkletrie"
)

// The workspace's present files against another repository's objects,
// with no snapshot recorded: a worker subagent's git worktree is made from
// its parent's files (CopyFiles) and its changes are read against that
// base (DiffFrom). Both scan as Snapshot does (stat cache, ignore rules,
// size limit), so a worktree of a large repository costs one fstatat per
// entry and hashes only files the stat cache does not know.

// CopyFiles scans the workspace, copies the tree of its present files into
// dst (another repository's object store; objects it has are not copied
// again) and returns the tree's id there. Files left out for size are
// returned too, sorted. No snapshot is recorded.
func (s *Store) CopyFiles(ctx context.Context, dst storer.EncodedObjectStorer) (plumbing.Hash, []string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var res scanResult
	err := s.withShared(func() error {
		var err error
		if res, err = s.scanTree(ctx, true); err != nil {
			return err
		}
		return s.copyTree(ctx, res.tree, dst)
	})
	if err != nil {
		return plumbing.ZeroHash, nil, fmt.Errorf("checkpoint: copy the files of %s: %w", s.workspace, err)
	}
	return res.tree, res.skipped, nil
}

// DiffFrom scans the workspace and compares base, a tree read from another
// repository's object store (nil: the empty tree), with its present files:
// the changes from base, sorted by path (a mode change is a modification;
// no rename detection) and, with patch, their unified diff in git's format
// (binary files named, not shown). A file of base that the scan left out
// (it matches an ignore rule, or is over the size limit: git tracks it
// anyway) but that is still in the workspace counts with its present
// content, not as deleted. No snapshot is recorded.
func (s *Store) DiffFrom(ctx context.Context, base *object.Tree, patch bool) ([]Change, string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var h plumbing.Hash
	err := s.withShared(func() error {
		// never a blob id from the user's index: the files are what a
		// worker's commands may have rewritten
		res, err := s.scanTree(ctx, false)
		h = res.tree
		return err
	})
	if err != nil {
		return nil, "", fmt.Errorf("checkpoint: scan %s: %w", s.workspace, err)
	}
	var cur *object.Tree
	if h != emptyTree {
		if cur, err = object.GetTree(s.reader(), h); err != nil {
			return nil, "", fmt.Errorf("checkpoint: tree %s: %w", h, err)
		}
	}
	if base != nil && base.Hash == h {
		return nil, "", nil
	}
	changes, err := object.DiffTreeWithOptions(ctx, base, cur, nil)
	if err != nil {
		return nil, "", fmt.Errorf("checkpoint: diff %s: %w", s.workspace, err)
	}
	if changes, err = s.leftOut(changes, cur); err != nil {
		return nil, "", err
	}
	out := make([]Change, 0, len(changes))
	for _, c := range changes {
		act, err := c.Action()
		if err != nil {
			return nil, "", fmt.Errorf("checkpoint: diff %s: %w", s.workspace, err)
		}
		switch act {
		case merkletrie.Insert:
			out = append(out, Change{Path: c.To.Name, Action: ActionAdded})
		case merkletrie.Delete:
			out = append(out, Change{Path: c.From.Name, Action: ActionDeleted})
		default:
			out = append(out, Change{Path: c.To.Name, Action: ActionModified})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	if !patch || len(changes) == 0 {
		return out, "", nil
	}
	p, err := changes.PatchContext(ctx)
	if err != nil {
		return nil, "", fmt.Errorf("checkpoint: diff %s: %w", s.workspace, err)
	}
	return out, p.String(), nil
}

// leftOut corrects the deletions of changes whose file is still in the
// workspace (the scan left it out): unchanged, the change is dropped;
// changed, it becomes a modification to the present content, whose blob is
// stored here so the patch can read it. The caller holds s.mu.
func (s *Store) leftOut(changes object.Changes, cur *object.Tree) (object.Changes, error) {
	out := changes[:0]
	blobs := map[plumbing.Hash][]byte{}
	for _, c := range changes {
		act, err := c.Action()
		if err != nil || act != merkletrie.Delete || cur == nil {
			out = append(out, c)
			continue
		}
		p := c.From.Name
		if c.From.TreeEntry.Mode == filemode.Submodule {
			continue // a submodule is not scanned: not the worker's change
		}
		if !filepath.IsLocal(filepath.FromSlash(p)) {
			out = append(out, c)
			continue
		}
		full := filepath.Join(s.workspace, filepath.FromSlash(p))
		fi, err := os.Lstat(full)
		if err != nil {
			out = append(out, c) // deleted indeed
			continue
		}
		var data []byte
		mode := filemode.Regular
		switch {
		case fi.Mode()&fs.ModeSymlink != 0:
			t, err := os.Readlink(full)
			if err != nil {
				return nil, fmt.Errorf("checkpoint: %w", err)
			}
			data, mode = []byte(t), filemode.Symlink
		case fi.Mode().IsRegular():
			if data, err = os.ReadFile(full); err != nil {
				return nil, fmt.Errorf("checkpoint: %w", err)
			}
			if fi.Mode().Perm()&0o111 != 0 {
				mode = filemode.Executable
			}
		default:
			out = append(out, c)
			continue
		}
		h := hashObject(plumbing.BlobObject, data)
		if h == c.From.TreeEntry.Hash && mode == c.From.TreeEntry.Mode {
			continue
		}
		blobs[h] = data
		c.To = object.ChangeEntry{Name: p, Tree: cur, TreeEntry: object.TreeEntry{Name: path.Base(p), Mode: mode, Hash: h}}
		out = append(out, c)
	}
	if len(blobs) > 0 {
		err := s.withShared(func() error {
			for h, data := range blobs {
				if err := s.writeObject(plumbing.BlobObject, data, h); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}
