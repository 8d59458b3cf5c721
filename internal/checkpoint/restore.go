package checkpoint

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
)

// Rollback snapshots the present state (kind rollback unless meta says
// otherwise) and then restores the workspace to snapshot id, so that the
// rollback can itself be rolled back to pre.
func (s *Store) Rollback(ctx context.Context, id string, meta Meta) (pre Snapshot, changes []Change, err error) {
	if _, err := s.Get(id); err != nil {
		return Snapshot{}, nil, err
	}
	if meta.Kind == "" {
		meta.Kind = KindRollback
	}
	pre, err = s.Snapshot(ctx, meta)
	if err != nil {
		return Snapshot{}, nil, err
	}
	changes, err = s.Restore(ctx, id, pre)
	return pre, changes, err
}

// Restore makes the workspace's files those of snapshot id. current is a
// snapshot of the present state (zero: the workspace is scanned, without
// recording a snapshot). Files of current that are not in the target are
// deleted, differing files rewritten (atomically: temporary file and
// rename) and missing ones recreated with their parent directories, with
// their modes. What current does not hold is never touched: ignored files,
// files left out for size, and anything else outside the snapshot; where
// the target has a file at such a path, the change is reported as
// ActionKept. Directories emptied by deletions are removed.
func (s *Store) Restore(ctx context.Context, id string, current Snapshot) ([]Change, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []Change
	err := s.withShared(func() error {
		target, err := s.resolveTree(id)
		if err != nil {
			return err
		}
		cur, skipped, err := s.currentTree(ctx, current)
		if err != nil {
			return err
		}
		changes, err := s.diffTrees(ctx, cur, target)
		if err != nil {
			return err
		}
		out, err = s.apply(ctx, target, changes, skipped)
		return err
	})
	return out, err
}

func (s *Store) currentTree(ctx context.Context, current Snapshot) (plumbing.Hash, map[string]bool, error) {
	var tree plumbing.Hash
	var list []string
	switch {
	case current.ID != "":
		snap, err := s.getHash(plumbing.NewHash(current.ID))
		if err != nil {
			return tree, nil, err
		}
		tree, list = plumbing.NewHash(snap.Tree), snap.Skipped
	case current.Tree != "":
		tree, list = plumbing.NewHash(current.Tree), current.Skipped
	default:
		var err error
		if tree, list, err = s.scanTree(ctx); err != nil {
			return tree, nil, err
		}
	}
	skipped := make(map[string]bool, len(list))
	for _, p := range list {
		skipped[p] = true
	}
	return tree, skipped, nil
}

func (s *Store) apply(ctx context.Context, target plumbing.Hash, changes []Change, skipped map[string]bool) ([]Change, error) {
	out := make([]Change, 0, len(changes))
	dirs := map[string]bool{}
	for _, c := range changes {
		if c.Action != ActionDeleted {
			continue
		}
		if err := checkRel(c.Path); err != nil {
			return out, err
		}
		abs := s.abs(c.Path)
		if !s.realParents(strings.Split(c.Path, "/")) {
			continue // a parent became a symlink: never follow it out
		}
		if err := os.Remove(abs); err != nil && !os.IsNotExist(err) {
			return out, fmt.Errorf("checkpoint: restore: %w", err)
		}
		out = append(out, c)
		for d := parentRel(c.Path); d != ""; d = parentRel(d) {
			dirs[d] = true
		}
	}
	// Remove directories the deletions emptied, deepest first, unless the
	// target has them.
	ds := make([]string, 0, len(dirs))
	for d := range dirs {
		ds = append(ds, d)
	}
	sort.Slice(ds, func(i, j int) bool { return len(ds[i]) > len(ds[j]) })
	for _, d := range ds {
		if e, ok, _ := s.lookup(target, d); ok && e.mode == filemode.Dir {
			continue
		}
		_ = os.Remove(s.abs(d)) // fails, as it should, unless empty
	}
	for _, c := range changes {
		if c.Action == ActionDeleted {
			continue
		}
		if err := ctx.Err(); err != nil {
			return out, fmt.Errorf("checkpoint: restore: %w", err)
		}
		if err := checkRel(c.Path); err != nil {
			return out, err
		}
		e, ok, err := s.lookup(target, c.Path)
		if err != nil {
			return out, err
		}
		if !ok {
			continue
		}
		abs := s.abs(c.Path)
		var st fileStat
		exists := lstatPath(abs, &st) == nil
		if skipped[c.Path] || (c.Action == ActionAdded && exists) || !s.makeParents(c.Path) {
			out = append(out, Change{Path: c.Path, Action: ActionKept})
			continue
		}
		if err := s.writeEntry(abs, e, exists, &st); err != nil {
			return out, err
		}
		out = append(out, c)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return out, nil
}

func (s *Store) abs(rel string) string {
	return filepath.Join(s.workspace, filepath.FromSlash(rel))
}

func parentRel(p string) string {
	if i := strings.LastIndexByte(p, '/'); i >= 0 {
		return p[:i]
	}
	return ""
}

// checkRel refuses paths that could leave the workspace or reach .git (a
// tampered shadow repository must not be able to write there).
func checkRel(p string) error {
	for _, c := range strings.Split(p, "/") {
		if c == "" || c == "." || c == ".." || c == ".git" || strings.ContainsAny(c, "\\\x00") {
			return fmt.Errorf("checkpoint: restore: refusing path %q", p)
		}
	}
	return nil
}

// lookup finds the entry at p in tree h.
func (s *Store) lookup(h plumbing.Hash, p string) (treeEntry, bool, error) {
	parts := strings.Split(p, "/")
	for i, name := range parts {
		es, err := s.readTree(h)
		if err != nil {
			return treeEntry{}, false, err
		}
		j := -1
		for k := range es {
			if es[k].name == name {
				j = k
				break
			}
		}
		if j < 0 {
			return treeEntry{}, false, nil
		}
		if i == len(parts)-1 {
			return es[j], true, nil
		}
		if es[j].mode != filemode.Dir {
			return treeEntry{}, false, nil
		}
		h = es[j].hash
	}
	return treeEntry{}, false, nil
}

// makeParents creates the missing parent directories of rel; false if a
// parent exists as something other than a real directory.
func (s *Store) makeParents(rel string) bool {
	p := s.workspace
	parts := strings.Split(rel, "/")
	for _, name := range parts[:len(parts)-1] {
		p = filepath.Join(p, name)
		var st fileStat
		if err := lstatPath(p, &st); err != nil {
			if err := os.Mkdir(p, 0o755); err != nil && !os.IsExist(err) {
				return false
			}
			continue
		}
		if !st.isDir() {
			return false
		}
	}
	return true
}

// writeEntry atomically replaces abs with the blob of e; an existing
// file's permission bits are kept except for the exec bits, which follow e.
func (s *Store) writeEntry(abs string, e treeEntry, exists bool, st *fileStat) error {
	data, err := s.readRaw(plumbing.BlobObject, e.hash)
	if err != nil {
		return err
	}
	dir, base := filepath.Dir(abs), filepath.Base(abs)
	if e.mode == filemode.Symlink {
		tmp := filepath.Join(dir, fmt.Sprintf(".%s.ckpt-%d", base, time.Now().UnixNano()))
		if err := os.Symlink(string(data), tmp); err != nil {
			return fmt.Errorf("checkpoint: restore: %w", err)
		}
		if err := os.Rename(tmp, abs); err != nil {
			_ = os.Remove(tmp)
			return fmt.Errorf("checkpoint: restore: %w", err)
		}
		return nil
	}
	perm := os.FileMode(0o644)
	if exists && st.isRegular() {
		perm = os.FileMode(st.mode & 0o777)
	}
	if e.mode == filemode.Executable {
		perm |= (perm & 0o444) >> 2
	} else {
		perm &^= 0o111
	}
	f, err := os.CreateTemp(dir, "."+base+".ckpt-*")
	if err != nil {
		return fmt.Errorf("checkpoint: restore: %w", err)
	}
	tmp := f.Name()
	_, err = f.Write(data)
	if e := f.Chmod(perm); e != nil && err == nil {
		err = e
	}
	if e := f.Close(); e != nil && err == nil {
		err = e
	}
	if err == nil {
		err = os.Rename(tmp, abs)
	}
	if err != nil {
		_ = os.Remove(tmp)
		return fmt.Errorf("checkpoint: restore %s: %w", abs, err)
	}
	return nil
}

// RestorePaths puts only the given paths (workspace-relative or absolute)
// back as they were in snapshot id: files and symlinks are rewritten where
// they differ, a directory's files are rewritten (extra files in it are
// kept), and a path the snapshot does not have is deleted if it is a file
// or symlink that a snapshot would hold; ignored and left-out files are
// never deleted (ActionKept). Used to redo an interrupted write from its
// "before" checkpoint.
func (s *Store) RestorePaths(ctx context.Context, id string, paths []string) ([]Change, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []Change
	err := s.withShared(func() error {
		target, err := s.resolveTree(id)
		if err != nil {
			return err
		}
		for _, p := range paths {
			if err := ctx.Err(); err != nil {
				return fmt.Errorf("checkpoint: restore: %w", err)
			}
			rel, err := s.relPath(p)
			if err != nil {
				return err
			}
			if rel == "" || s.excluded(rel) {
				continue
			}
			if err := checkRel(rel); err != nil {
				return err
			}
			e, ok, err := s.lookup(target, rel)
			if err != nil {
				return err
			}
			var changes []Change
			if ok {
				err = s.leavesOf(e, rel, func(leaf string, le treeEntry) error {
					c, err := s.restoreOne(leaf, le)
					changes = append(changes, c...)
					return err
				})
			} else {
				changes, err = s.removeOne(rel)
			}
			out = append(out, changes...)
			if err != nil {
				return err
			}
		}
		return nil
	})
	sort.Slice(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return out, err
}

func (s *Store) leavesOf(e treeEntry, p string, fn func(string, treeEntry) error) error {
	if e.mode != filemode.Dir {
		return fn(p, e)
	}
	es, err := s.readTree(e.hash)
	if err != nil {
		return err
	}
	for _, c := range es {
		if err := s.leavesOf(c, joinRel(p, c.name), fn); err != nil {
			return err
		}
	}
	return nil
}

// restoreOne makes rel hold e unless it already does.
func (s *Store) restoreOne(rel string, e treeEntry) ([]Change, error) {
	abs := s.abs(rel)
	var st fileStat
	exists := lstatPath(abs, &st) == nil
	if exists && (st.isRegular() || st.isLink()) && gitMode(&st) == e.mode {
		if data, err := readEntry(abs, e.mode); err == nil && hashObject(plumbing.BlobObject, data) == e.hash {
			return nil, nil
		}
	}
	if (exists && st.isDir()) || !s.makeParents(rel) {
		return []Change{{Path: rel, Action: ActionKept}}, nil
	}
	if err := s.writeEntry(abs, e, exists, &st); err != nil {
		return nil, err
	}
	if exists {
		return []Change{{Path: rel, Action: ActionModified}}, nil
	}
	return []Change{{Path: rel, Action: ActionAdded}}, nil
}

// removeOne deletes rel if it is a file or symlink a snapshot would hold.
func (s *Store) removeOne(rel string) ([]Change, error) {
	var st fileStat
	if lstatPath(s.abs(rel), &st) != nil || !s.realParents(strings.Split(rel, "/")) {
		return nil, nil
	}
	if !(st.isRegular() || st.isLink()) || (st.isRegular() && st.size > MaxFileSize) || s.ignoredPath(rel, false) {
		return []Change{{Path: rel, Action: ActionKept}}, nil
	}
	if err := os.Remove(s.abs(rel)); err != nil && !os.IsNotExist(err) {
		return nil, fmt.Errorf("checkpoint: restore: %w", err)
	}
	return []Change{{Path: rel, Action: ActionDeleted}}, nil
}
