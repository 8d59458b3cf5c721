package checkpoint

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
)

// SnapshotPaths records the run's next snapshot from base (normally the
// snapshot taken before the call) when only the listed paths (relative to
// the workspace, or absolute inside it) may have changed: only their blobs
// and the trees above them are rewritten. A path may name a file, a
// symlink, a directory (rescanned) or something deleted. It falls back to a
// full Snapshot when base is unknown or a .gitignore changed. The result
// has the same tree a full Snapshot would have, provided nothing else
// changed.
func (s *Store) SnapshotPaths(ctx context.Context, base Snapshot, changed []string, meta Meta) (Snapshot, error) {
	if err := validRunID(meta.RunID); err != nil {
		return Snapshot{}, err
	}
	rels := make([]string, 0, len(changed))
	full := base.ID == ""
	for _, p := range changed {
		rel, err := s.relPath(p)
		if err != nil {
			return Snapshot{}, err
		}
		switch {
		case rel == "":
			full = true
		case rel == ".git" || strings.HasPrefix(rel, ".git/") || strings.Contains(rel, "/.git/") || strings.HasSuffix(rel, "/.git"):
		case s.excluded(rel):
		case path.Base(rel) == ".gitignore":
			full = true
		default:
			rels = append(rels, rel)
		}
	}
	if full {
		return s.Snapshot(ctx, meta)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	var snap Snapshot
	err := s.withShared(func() error {
		b, err := s.getHash(plumbing.NewHash(base.ID))
		if err != nil {
			return err
		}
		if !s.hasObject(plumbing.NewHash(b.ID)) {
			return fmt.Errorf("checkpoint: base %s: %w", b.ID, plumbing.ErrObjectNotFound)
		}
		root, err := s.loadNode(plumbing.NewHash(b.Tree))
		if err != nil {
			return err
		}
		ws, err := openDir(s.workspace)
		if err != nil {
			return fmt.Errorf("checkpoint: scan workspace: %w", err)
		}
		defer ws.close()
		skipped := map[string]bool{}
		for _, p := range b.Skipped {
			skipped[p] = true
		}
		for _, rel := range rels {
			if err := ctx.Err(); err != nil {
				return fmt.Errorf("checkpoint: %w", err)
			}
			if err := s.applyPath(ctx, ws, root, rel, skipped); err != nil {
				return err
			}
		}
		tree, err := s.writeNode(root, "")
		if err != nil {
			return err
		}
		list := make([]string, 0, len(skipped))
		for p := range skipped {
			list = append(list, p)
		}
		sort.Strings(list)
		// No .gitignore changed (that takes a full scan): the base's rules
		// still hold.
		snap, err = s.commitSnapshot(meta, tree, list, ruleHash(b.Rules))
		return err
	})
	return snap, err
}

// relPath turns a workspace-relative or absolute path into a clean
// slash-separated path relative to the workspace ("" for the root).
func (s *Store) relPath(p string) (string, error) {
	if filepath.IsAbs(p) {
		r, err := filepath.Rel(s.workspace, p)
		if err != nil || r == ".." || strings.HasPrefix(r, ".."+string(filepath.Separator)) {
			if ev, e := filepath.EvalSymlinks(filepath.Dir(p)); e == nil {
				r, err = filepath.Rel(s.workspace, filepath.Join(ev, filepath.Base(p)))
			}
		}
		if err != nil {
			return "", fmt.Errorf("checkpoint: path %q: %w", p, err)
		}
		p = r
	}
	r := filepath.ToSlash(filepath.Clean(p))
	if r == "." {
		return "", nil
	}
	if r == ".." || strings.HasPrefix(r, "../") || strings.HasPrefix(r, "/") {
		return "", fmt.Errorf("checkpoint: path %q is outside the workspace", p)
	}
	return r, nil
}

// node is a tree being edited: a private copy of its entries and the
// subtrees opened for editing.
type node struct {
	entries []treeEntry
	kids    map[string]*node
}

func (s *Store) loadNode(h plumbing.Hash) (*node, error) {
	es, err := s.readTree(h)
	if err != nil {
		return nil, err
	}
	return &node{entries: slices.Clone(es), kids: map[string]*node{}}, nil
}

func (n *node) find(name string) int {
	for i := range n.entries {
		if n.entries[i].name == name {
			return i
		}
	}
	return -1
}

// set puts e into n, replacing an entry of the same name.
func (n *node) set(e treeEntry) {
	if i := n.find(e.name); i >= 0 {
		n.entries = slices.Delete(n.entries, i, i+1)
	}
	delete(n.kids, e.name)
	i := sort.Search(len(n.entries), func(i int) bool { return !entryLess(&n.entries[i], &e) })
	n.entries = slices.Insert(n.entries, i, e)
}

func (n *node) remove(name string) {
	if i := n.find(name); i >= 0 {
		n.entries = slices.Delete(n.entries, i, i+1)
	}
	delete(n.kids, name)
}

// dir opens subdirectory name for editing, creating it (and replacing a
// non-directory of that name) when create is set.
func (s *Store) dir(n *node, name string, create bool) (*node, error) {
	if k, ok := n.kids[name]; ok {
		return k, nil
	}
	i := n.find(name)
	if i >= 0 && n.entries[i].mode == filemode.Dir {
		k, err := s.loadNode(n.entries[i].hash)
		if err != nil {
			return nil, err
		}
		n.kids[name] = k
		return k, nil
	}
	if !create {
		return nil, nil
	}
	k := &node{kids: map[string]*node{}}
	n.set(treeEntry{name: name, mode: filemode.Dir})
	n.kids[name] = k
	return k, nil
}

// applyPath brings rel in the edited tree up to date with the disk (the
// workspace held open as ws).
func (s *Store) applyPath(ctx context.Context, ws *dirReader, root *node, rel string, skipped map[string]bool) error {
	parts := strings.Split(rel, "/")
	delete(skipped, rel)
	for p := range skipped {
		if strings.HasPrefix(p, rel+"/") {
			delete(skipped, p)
		}
	}
	e, err := s.entryAt(ctx, ws, rel, parts, skipped)
	if err != nil {
		return err
	}
	n := root
	for _, name := range parts[:len(parts)-1] {
		k, err := s.dir(n, name, e.mode != 0)
		if err != nil {
			return err
		}
		if k == nil {
			return nil // removing a path whose parent is not in the tree
		}
		n = k
	}
	if e.mode == 0 {
		n.remove(parts[len(parts)-1])
		return nil
	}
	e.name = parts[len(parts)-1]
	n.set(e)
	return nil
}

// entryAt is the tree entry (without its name; mode 0: none) that rel
// (components parts) has on disk, as a full scan would record it: its
// parents are opened one below the other from ws and it is read in the
// last, never through a symlink. Files it leaves out for size are added to
// skipped.
func (s *Store) entryAt(ctx context.Context, ws *dirReader, rel string, parts []string, skipped map[string]bool) (treeEntry, error) {
	// A path below something missing, a non-directory, a symlink or an
	// ignored directory is not part of the snapshot, as in a full scan.
	at := s.dirIgnore(ws, parts[:len(parts)-1])
	defer at.close(ws)
	if at.dir == nil {
		return treeEntry{}, nil
	}
	name := parts[len(parts)-1]
	for range maxTries {
		var st fileStat
		if at.dir.lstat(name, &st) != nil || at.set.match(parts, st.isDir()) {
			return treeEntry{}, nil
		}
		e, err := s.readPath(ctx, &at, rel, parts, &st, skipped)
		if !errors.Is(err, errChanged) {
			return e, err
		}
	}
	return treeEntry{}, nil // kept changing type while we looked: left out
}

// readPath is entryAt for rel, of stat data st, in the directory at
// (errChanged: rel is no longer what st says).
func (s *Store) readPath(ctx context.Context, at *dirAt, rel string, parts []string, st *fileStat, skipped map[string]bool) (treeEntry, error) {
	name := parts[len(parts)-1]
	switch {
	case st.isDir():
		h, sk, err := s.scanSubtree(ctx, at, rel, parts, st)
		if err != nil {
			return treeEntry{}, err
		}
		for _, p := range sk {
			skipped[p] = true
		}
		if h != emptyTree {
			return treeEntry{mode: filemode.Dir, hash: h}, nil
		}
	case st.isRegular() && st.size > MaxFileSize:
		skipped[rel] = true
	case st.isRegular() || st.isLink():
		mode := gitMode(st)
		s.hook(rel)
		data, _, err := readEntryAt(at.dir, name, mode, st)
		switch {
		case errors.Is(err, errTooLarge):
			skipped[rel] = true
		case errors.Is(err, errChanged):
			return treeEntry{}, err
		case errors.Is(err, fs.ErrNotExist):
		case err != nil:
			return treeEntry{}, fmt.Errorf("checkpoint: %s: %w", rel, err)
		default:
			h, err := s.writeBlob(data)
			if err != nil {
				return treeEntry{}, err
			}
			return treeEntry{mode: mode, hash: h}, nil
		}
	}
	return treeEntry{}, nil
}

// realParents reports whether every parent of parts is a real directory
// (not a symlink), as a full scan would see it.
func (s *Store) realParents(parts []string) bool {
	p := s.workspace
	for _, name := range parts[:len(parts)-1] {
		p = filepath.Join(p, name)
		var st fileStat
		if lstatPath(p, &st) != nil || !st.isDir() {
			return false
		}
	}
	return true
}

// scanSubtree scans the directory rel (components parts, stat data st) in
// the directory at as a full scan would and returns its tree (emptyTree if
// it holds nothing) and the files left out (errChanged: it is no longer a
// directory).
func (s *Store) scanSubtree(ctx context.Context, at *dirAt, rel string, parts []string, st *fileStat) (plumbing.Hash, []string, error) {
	s.hook(rel)
	d, err := at.dir.sub(parts[len(parts)-1])
	if errors.Is(err, errChanged) {
		return emptyTree, nil, err
	}
	if err != nil {
		return emptyTree, nil, nil // vanished or unreadable
	}
	defer d.close()
	sc := s.newScanner(ctx)
	h, err := sc.walk(rel, d, parts, at.set.descend(parts), at.fp, true, st.sig())
	return h, sc.skipped, err
}

// writeNode writes the edited trees bottom-up and returns n's id
// (emptyTree when it ends up empty; the root is always written).
func (s *Store) writeNode(n *node, rel string) (plumbing.Hash, error) {
	for name, k := range n.kids {
		h, err := s.writeNode(k, joinRel(rel, name))
		if err != nil {
			return h, err
		}
		i := n.find(name)
		if h == emptyTree {
			n.entries = slices.Delete(n.entries, i, i+1)
			continue
		}
		n.entries[i].hash = h
	}
	if len(n.entries) == 0 && rel != "" {
		return emptyTree, nil
	}
	return s.writeTree(n.entries)
}
