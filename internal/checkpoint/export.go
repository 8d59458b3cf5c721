package checkpoint

import (
	"context"
	"fmt"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/storer"
)

// CopyTree copies the file tree of snapshot id (its trees and blobs, git's
// own objects) into dst, the object store of another repository, and
// returns the tree's id there: a fork's git worktree commits a checkpoint's
// files without reading them back from any disk. Objects dst already has
// are not copied again; submodule entries name commits of other
// repositories and are copied as entries only. The shadow repository is
// only read.
func (s *Store) CopyTree(ctx context.Context, id string, dst storer.EncodedObjectStorer) (plumbing.Hash, error) {
	snap, err := s.Get(id)
	if err != nil {
		return plumbing.ZeroHash, err
	}
	root := plumbing.NewHash(snap.Tree)
	s.mu.Lock()
	defer s.mu.Unlock()
	err = s.withShared(func() error { return s.copyTree(ctx, root, dst) })
	if err != nil {
		return plumbing.ZeroHash, fmt.Errorf("checkpoint: copy the files of %s: %w", id, err)
	}
	return root, nil
}

// copyTree copies tree h and what it reaches, children first, so that dst
// never holds a tree whose entries it lacks. The caller holds s.mu and the
// shared lock.
func (s *Store) copyTree(ctx context.Context, h plumbing.Hash, dst storer.EncodedObjectStorer) error {
	if dst.HasEncodedObject(h) == nil {
		return nil
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	es, err := s.readTree(h)
	if err != nil {
		return err
	}
	for _, e := range es {
		switch e.mode {
		case filemode.Dir:
			if err := s.copyTree(ctx, e.hash, dst); err != nil {
				return err
			}
		case filemode.Submodule:
		default:
			if err := s.copyObject(plumbing.BlobObject, e.hash, dst); err != nil {
				return err
			}
		}
	}
	return s.copyObject(plumbing.TreeObject, h, dst)
}

func (s *Store) copyObject(t plumbing.ObjectType, h plumbing.Hash, dst storer.EncodedObjectStorer) error {
	if dst.HasEncodedObject(h) == nil {
		return nil
	}
	data, err := s.readRaw(t, h)
	if err != nil {
		return err
	}
	obj := dst.NewEncodedObject()
	obj.SetType(t)
	obj.SetSize(int64(len(data)))
	w, err := obj.Writer()
	if err != nil {
		return err
	}
	if _, err := w.Write(data); err != nil {
		w.Close()
		return err
	}
	if err := w.Close(); err != nil {
		return err
	}
	got, err := dst.SetEncodedObject(obj)
	if err != nil {
		return fmt.Errorf("store %s %s: %w", t, h, err)
	}
	if got != h {
		return fmt.Errorf("store %s %s: the copy hashes to %s", t, h, got)
	}
	return nil
}
