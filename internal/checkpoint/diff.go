package checkpoint

import (
	"context"
	"fmt"
	"sort"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/object"
)

// Diff lists the files that differ from snapshot from to snapshot to
// (commit or tree ids; "" is the empty tree), sorted by path. A mode change
// (exec bit, file ↔ symlink) is a modification.
func (s *Store) Diff(ctx context.Context, from, to string) ([]Change, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	a, err := s.resolveTree(from)
	if err != nil {
		return nil, err
	}
	b, err := s.resolveTree(to)
	if err != nil {
		return nil, err
	}
	return s.diffTrees(ctx, a, b)
}

// diffTrees compares two trees, descending only into subtrees whose ids
// differ.
func (s *Store) diffTrees(ctx context.Context, a, b plumbing.Hash) ([]Change, error) {
	var out []Change
	if err := s.diffInto(ctx, a, b, "", &out); err != nil {
		return nil, err
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return out, nil
}

func (s *Store) diffInto(ctx context.Context, a, b plumbing.Hash, prefix string, out *[]Change) error {
	if a == b {
		return nil
	}
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("checkpoint: diff: %w", err)
	}
	ea, err := s.readTree(a)
	if err != nil {
		return err
	}
	eb, err := s.readTree(b)
	if err != nil {
		return err
	}
	inA := make(map[string]treeEntry, len(ea))
	for _, e := range ea {
		inA[e.name] = e
	}
	for _, y := range eb {
		p := joinRel(prefix, y.name)
		x, ok := inA[y.name]
		delete(inA, y.name)
		switch {
		case !ok:
			err = s.leaves(y, p, ActionAdded, out)
		case x.mode == filemode.Dir && y.mode == filemode.Dir:
			err = s.diffInto(ctx, x.hash, y.hash, p, out)
		case x.mode == filemode.Dir || y.mode == filemode.Dir:
			if err = s.leaves(x, p, ActionDeleted, out); err == nil {
				err = s.leaves(y, p, ActionAdded, out)
			}
		case x.hash != y.hash || x.mode != y.mode:
			*out = append(*out, Change{Path: p, Action: ActionModified})
		}
		if err != nil {
			return err
		}
	}
	for _, x := range inA {
		if err := s.leaves(x, joinRel(prefix, x.name), ActionDeleted, out); err != nil {
			return err
		}
	}
	return nil
}

// leaves adds a change for e, or for every file below it if it is a tree.
func (s *Store) leaves(e treeEntry, p string, act Action, out *[]Change) error {
	if e.mode != filemode.Dir {
		*out = append(*out, Change{Path: p, Action: act})
		return nil
	}
	es, err := s.readTree(e.hash)
	if err != nil {
		return err
	}
	for _, c := range es {
		if err := s.leaves(c, joinRel(p, c.name), act, out); err != nil {
			return err
		}
	}
	return nil
}

// Patch is the unified diff from snapshot from to snapshot to (commit or
// tree ids; "" is the empty tree), for audit and display; binary files are
// named, not shown.
func (s *Store) Patch(ctx context.Context, from, to string) (string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	ta, err := s.goTree(from)
	if err != nil {
		return "", err
	}
	tb, err := s.goTree(to)
	if err != nil {
		return "", err
	}
	changes, err := object.DiffTreeWithOptions(ctx, ta, tb, nil)
	if err != nil {
		return "", fmt.Errorf("checkpoint: patch: %w", err)
	}
	p, err := changes.PatchContext(ctx)
	if err != nil {
		return "", fmt.Errorf("checkpoint: patch: %w", err)
	}
	return p.String(), nil
}

func (s *Store) goTree(id string) (*object.Tree, error) {
	h, err := s.resolveTree(id)
	if err != nil {
		return nil, err
	}
	if h == emptyTree {
		return nil, nil
	}
	t, err := object.GetTree(s.reader(), h)
	if err != nil {
		return nil, fmt.Errorf("checkpoint: tree %s: %w", h, err)
	}
	return t, nil
}
