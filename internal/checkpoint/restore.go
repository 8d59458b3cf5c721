package checkpoint

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"syscall"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"

	"agent/internal/atomicfile"
)

// Rollback snapshots the present state (kind rollback unless meta says
// otherwise) and then restores the workspace to snapshot id, so that the
// rollback can itself be rolled back to pre.
//
// What the target holds is decided by the ignore rules and the size cap of
// its time (its Rules and Skipped), not by today's: a file that a later
// rule made ignored is taken into pre (under the cap, so the undo can bring
// it back) and then restored or deleted like any other. A path that cannot
// be given its content at the target without destroying something no
// snapshot holds (a file now over the cap, one that appeared over it, one
// that was over it at the target) is left as it is and returned as
// ActionKept with its Reason: callers must report those.
func (s *Store) Rollback(ctx context.Context, id string, meta Meta) (pre Snapshot, changes []Change, err error) {
	target, err := s.Get(id)
	if err != nil {
		return Snapshot{}, nil, err
	}
	if meta.Kind == "" {
		meta.Kind = KindRollback
	}
	if err := validRunID(meta.RunID); err != nil {
		return Snapshot{}, nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	err = s.withShared(func() error {
		res, err := s.scanTree(ctx, false)
		if err != nil {
			return err
		}
		held, unheld, err := s.reachWalk(ctx, target, res.tree)
		if err != nil {
			return err
		}
		tree := res.tree
		if len(held) > 0 {
			if tree, err = s.takeIn(ctx, tree, held); err != nil {
				return err
			}
		}
		rules, err := s.writeRules(res.rules)
		if err != nil {
			return err
		}
		if pre, err = s.commitSnapshot(meta, tree, res.skipped, rules); err != nil {
			return err
		}
		changes, err = s.restore(ctx, target, pre)
		changes = append(changes, unheld...)
		sort.Slice(changes, func(i, j int) bool { return changes[i].Path < changes[j].Path })
		return err
	})
	return pre, changes, err
}

// Restore makes the workspace's files those of snapshot id. current is a
// snapshot of the present state (zero: the workspace is scanned, without
// recording a snapshot). Files of current that are not in the target are
// deleted, differing files rewritten (atomically and durably, through
// internal/atomicfile) and missing ones recreated with their parent
// directories, with their modes; every change resolves beneath the
// workspace root, so a symlink planted by a command cannot redirect it.
// What current does not hold is never touched: where the target has a file
// at such a path (now over the size cap, or in the way of a directory of
// ignored files), and where current has a file the target left out for
// size, the change is reported as ActionKept with its Reason. Directories
// emptied by deletions are removed. Rollback also reaches files ignored
// only by rules written after the target; Restore alone does not.
func (s *Store) Restore(ctx context.Context, id string, current Snapshot) ([]Change, error) {
	target, err := s.Get(id)
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []Change
	err = s.withShared(func() error {
		var err error
		out, err = s.restore(ctx, target, current)
		return err
	})
	return out, err
}

// restore is Restore under the store's locks.
func (s *Store) restore(ctx context.Context, target Snapshot, current Snapshot) ([]Change, error) {
	tgt := plumbing.NewHash(target.Tree)
	cur, skipped, err := s.currentTree(ctx, current)
	if err != nil {
		return nil, err
	}
	changes, err := s.diffTrees(ctx, cur, tgt)
	if err != nil {
		return nil, err
	}
	root, err := s.openRoot()
	if err != nil {
		return nil, err
	}
	defer root.Close()
	tgtSkipped := make(map[string]bool, len(target.Skipped))
	for _, p := range target.Skipped {
		tgtSkipped[p] = true
	}
	return s.apply(ctx, root, tgt, changes, skipped, tgtSkipped)
}

// openRoot opens the workspace as an *os.Root: every change a restore makes
// resolves beneath it, so a symlink a command planted (a directory swapped
// for a link out, even mid-restore) cannot redirect a write or a deletion
// outside the workspace.
func (s *Store) openRoot() (*os.Root, error) {
	root, err := os.OpenRoot(s.workspace)
	if err != nil {
		return nil, fmt.Errorf("checkpoint: restore: open the workspace: %w", err)
	}
	return root, nil
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
		res, err := s.scanTree(ctx, false)
		if err != nil {
			return tree, nil, err
		}
		tree, list = res.tree, res.skipped
	}
	skipped := make(map[string]bool, len(list))
	for _, p := range list {
		skipped[p] = true
	}
	return tree, skipped, nil
}

// reasonLargeThen: a file the target left out for size, present now under
// the cap (deleting it would not give it its content of then).
const reasonLargeThen = "it was over the 10 MiB snapshot cap at the checkpoint: no snapshot holds its content of then"

func (s *Store) apply(ctx context.Context, root *os.Root, target plumbing.Hash, changes []Change, skipped, tgtSkipped map[string]bool) ([]Change, error) {
	out := make([]Change, 0, len(changes))
	dirs := map[string]bool{}
	for _, c := range changes {
		if c.Action != ActionDeleted {
			continue
		}
		if tgtSkipped[c.Path] {
			out = append(out, Change{Path: c.Path, Action: ActionKept, Reason: reasonLargeThen})
			continue
		}
		if err := checkRel(c.Path); err != nil {
			return out, err
		}
		if !s.realParents(strings.Split(c.Path, "/")) {
			continue // a parent became a symlink: never follow it out
		}
		if err := root.Remove(filepath.FromSlash(c.Path)); err != nil && !os.IsNotExist(err) {
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
		_ = root.Remove(filepath.FromSlash(d)) // fails, as it should, unless empty
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
		var st fileStat
		exists := lstatPath(s.abs(c.Path), &st) == nil
		if skipped[c.Path] {
			out = append(out, Change{Path: c.Path, Action: ActionKept, Reason: reasonTooLargeNow})
			continue
		}
		if (c.Action == ActionAdded && exists) || !makeParents(root, c.Path) {
			out = append(out, Change{Path: c.Path, Action: ActionKept, Reason: reasonInTheWay})
			continue
		}
		if err := s.writeEntry(root, c.Path, e, exists, &st); err != nil {
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

// makeParents creates the missing parent directories of rel beneath root
// (their creation fsynced); false if a parent exists as something other
// than a real directory.
func makeParents(root *os.Root, rel string) bool {
	parts := strings.Split(rel, "/")
	for i := range parts[:len(parts)-1] {
		dir := filepath.FromSlash(strings.Join(parts[:i+1], "/"))
		fi, err := root.Lstat(dir)
		if err == nil {
			if !fi.IsDir() {
				return false
			}
			continue
		}
		if err := root.Mkdir(dir, 0o755); err != nil && !os.IsExist(err) {
			return false
		}
		if atomicfile.SyncDirIn(root, filepath.Dir(dir)) != nil {
			return false
		}
	}
	return true
}

// writeEntry replaces rel beneath root with the blob of e, atomically and
// durably (internal/atomicfile: temporary file, fsync, rename, fsync of the
// directory); an existing file's permission bits are kept except for the
// exec bits, which follow e.
func (s *Store) writeEntry(root *os.Root, rel string, e treeEntry, exists bool, st *fileStat) error {
	data, err := s.readRaw(plumbing.BlobObject, e.hash)
	if err != nil {
		return err
	}
	name := filepath.FromSlash(rel)
	if e.mode == filemode.Symlink {
		var rnd [6]byte
		_, _ = rand.Read(rnd[:])
		dir := filepath.Dir(name)
		tmp := filepath.Join(dir, "."+filepath.Base(name)+atomicfile.TempMarker+hex.EncodeToString(rnd[:]))
		if err := root.Symlink(string(data), tmp); err != nil {
			return fmt.Errorf("checkpoint: restore: %w", err)
		}
		if err := root.Rename(tmp, name); err != nil {
			_ = root.Remove(tmp)
			return fmt.Errorf("checkpoint: restore: %w", err)
		}
		if err := atomicfile.SyncDirIn(root, dir); err != nil {
			return fmt.Errorf("checkpoint: restore %s: %w", rel, err)
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
	if err := atomicfile.WriteIn(root, name, data, perm); err != nil {
		return fmt.Errorf("checkpoint: restore %s: %w", rel, err)
	}
	return nil
}

// readEntryIn is readEntry beneath root: a file's content or a symlink's
// target, for comparing with a snapshot's blob.
func readEntryIn(root *os.Root, rel string, mode filemode.FileMode) ([]byte, error) {
	name := filepath.FromSlash(rel)
	if mode == filemode.Symlink {
		t, err := root.Readlink(name)
		return []byte(t), err
	}
	f, err := root.OpenFile(name, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() || fi.Size() > MaxFileSize {
		return nil, fmt.Errorf("%s: not a regular file under the size limit", rel)
	}
	return io.ReadAll(io.LimitReader(f, MaxFileSize+1))
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
		root, err := s.openRoot()
		if err != nil {
			return err
		}
		defer root.Close()
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
					c, err := s.restoreOne(root, leaf, le)
					changes = append(changes, c...)
					return err
				})
			} else {
				changes, err = s.removeOne(root, rel)
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
func (s *Store) restoreOne(root *os.Root, rel string, e treeEntry) ([]Change, error) {
	var st fileStat
	exists := lstatPath(s.abs(rel), &st) == nil
	if exists && (st.isRegular() || st.isLink()) && gitMode(&st) == e.mode {
		if data, err := readEntryIn(root, rel, e.mode); err == nil && hashObject(plumbing.BlobObject, data) == e.hash {
			return nil, nil
		}
	}
	if (exists && st.isDir()) || !makeParents(root, rel) {
		return []Change{{Path: rel, Action: ActionKept, Reason: reasonInTheWay}}, nil
	}
	if err := s.writeEntry(root, rel, e, exists, &st); err != nil {
		return nil, err
	}
	if exists {
		return []Change{{Path: rel, Action: ActionModified}}, nil
	}
	return []Change{{Path: rel, Action: ActionAdded}}, nil
}

// removeOne deletes rel (beneath root) if it is a file or symlink a
// snapshot would hold.
func (s *Store) removeOne(root *os.Root, rel string) ([]Change, error) {
	var st fileStat
	if lstatPath(s.abs(rel), &st) != nil || !s.realParents(strings.Split(rel, "/")) {
		return nil, nil
	}
	if !(st.isRegular() || st.isLink()) || (st.isRegular() && st.size > MaxFileSize) || s.ignoredPath(rel, false) {
		return []Change{{Path: rel, Action: ActionKept, Reason: "no snapshot holds it (ignored, over the 10 MiB cap, or not a file)"}}, nil
	}
	if err := root.Remove(filepath.FromSlash(rel)); err != nil && !os.IsNotExist(err) {
		return nil, fmt.Errorf("checkpoint: restore: %w", err)
	}
	return []Change{{Path: rel, Action: ActionDeleted}}, nil
}
