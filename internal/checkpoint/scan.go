package checkpoint

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
)

// Snapshot scans the whole workspace and records it as the run's next
// snapshot. It costs one fstatat per entry: a directory whose own stat data
// is unchanged is not listed again, a file whose stat data matches the stat
// cache (or, on a cold start, the user's git index) is not read, and a
// directory none of whose entries changed keeps its tree without encoding.
func (s *Store) Snapshot(ctx context.Context, meta Meta) (Snapshot, error) {
	if err := validRunID(meta.RunID); err != nil {
		return Snapshot{}, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	var snap Snapshot
	err := s.withShared(func() error {
		tree, skipped, err := s.scanTree(ctx)
		if err != nil {
			return err
		}
		snap, err = s.commitSnapshot(meta, tree, skipped)
		return err
	})
	return snap, err
}

// scanStats describes the last full scan (for tests and debugging).
type scanStats struct {
	files, hashed, fromIndex, listed int
}

type scanner struct {
	s       *Store
	ctx     context.Context
	c       *statCache
	start   int64
	buf     []byte
	skipped []string
	stats   scanStats
	uidx    *userIndex
	uidxTry bool
	cold    bool // no cached state at all: try the user's index at once
}

func (s *Store) newScanner(ctx context.Context) *scanner {
	if s.stat == nil {
		s.stat = loadStatCache(s.statPath(), s.gen)
	}
	return &scanner{s: s, ctx: ctx, c: s.stat, start: time.Now().UnixNano(), buf: make([]byte, 32<<10)}
}

// scanTree writes the blobs and trees of the present workspace and returns
// the root tree and the files left out for size.
func (s *Store) scanTree(ctx context.Context) (plumbing.Hash, []string, error) {
	sc := s.newScanner(ctx)
	sc.c.scan++
	sc.cold = sc.c.dirs[""] == nil
	var st fileStat
	if err := lstatPath(s.workspace, &st); err != nil {
		return plumbing.ZeroHash, nil, fmt.Errorf("checkpoint: scan workspace: %w", err)
	}
	set, fp := s.rootIgnore()
	h, err := sc.walk("", s.workspace, nil, set, fp, false, st.sig())
	if err != nil {
		return plumbing.ZeroHash, nil, err
	}
	s.lastScan = sc.stats
	sc.c.sweep()
	if sc.c.dirty && time.Since(sc.c.lastSave) >= saveEvery {
		if err := s.saveStat(sc.c, s.gen); err != nil {
			return plumbing.ZeroHash, nil, err
		}
	}
	sort.Strings(sc.skipped)
	return h, sc.skipped, nil
}

// walk brings the cached state of directory rel (at abs, with path
// components parts, rules ign of fingerprint fp, own stat data dsig) up to
// date and returns its tree (emptyTree if it holds nothing, except at the
// root).
func (sc *scanner) walk(rel, abs string, parts []string, ign *ignoreSet, fp uint64, attr bool, dsig fileSig) (plumbing.Hash, error) {
	if err := sc.ctx.Err(); err != nil {
		return plumbing.ZeroHash, fmt.Errorf("checkpoint: scan: %w", err)
	}
	dr, err := openDir(abs)
	if err != nil {
		if rel == "" {
			return plumbing.ZeroHash, fmt.Errorf("checkpoint: scan workspace: %w", err)
		}
		return emptyTree, nil // vanished or unreadable: not part of the snapshot
	}
	defer dr.close()
	ds := sc.c.dirs[rel]
	reuse := ds != nil && ds.sig == dsig && !racy(sc.s.slack, dsig.mtime, dsig.ctime, ds.seen)
	if !reuse {
		names, err := dr.names(sc.buf)
		if err != nil {
			if rel == "" {
				return plumbing.ZeroHash, fmt.Errorf("checkpoint: scan workspace: %w", err)
			}
			return emptyTree, nil
		}
		ds = newDirState(ds, names, dsig, sc.start)
		sc.c.dirs[rel] = ds
		sc.c.dirty = true
		sc.stats.listed++
	}
	ds.scan = sc.c.scan
	if rel != "" {
		var own []ignoreRule
		var tok uint64
		if slices.Contains(ds.names, ".gitignore") {
			own, tok = sc.s.loadIgnore(filepath.Join(abs, ".gitignore"), parts)
		}
		ign, fp = ign.extend(own), mixTok(fp, tok)
	}
	if !attr && slices.Contains(ds.names, ".gitattributes") {
		attr = sc.s.attrUnsafe(filepath.Join(abs, ".gitattributes"))
	}
	flagsOK := ds.ignFP == fp
	ds.ignFP = fp
	changed := !reuse || ds.tree.IsZero()
	scratch := make([]string, len(parts)+1)
	copy(scratch, parts)
	for i, name := range ds.names {
		e := &ds.ents[i]
		prevInc, prevMode, prevHash := e.inc, e.mode, e.hash
		var st fileStat
		if dr.lstat(name, &st) != nil {
			e.kind, e.inc = entGone, false
			changed = changed || prevInc
			continue
		}
		isDir := st.isDir()
		if !flagsOK || !e.ignKnow || e.ignDir != isDir {
			scratch[len(parts)] = name
			e.ign, e.ignDir, e.ignKnow = ign.match(scratch, isDir), isDir, true
		}
		switch {
		case e.ign || (isDir && sc.s.exclude != "" && sc.s.excluded(joinRel(rel, name))):
			e.inc = false
		case isDir:
			kp := append(parts[:len(parts):len(parts)], name)
			h, err := sc.walk(joinRel(rel, name), filepath.Join(abs, name), kp, ign.descend(kp), fp, attr, st.sig())
			if err != nil {
				return plumbing.ZeroHash, err
			}
			e.kind, e.inc, e.mode, e.hash = entDir, h != emptyTree, filemode.Dir, h
		case st.isRegular() && st.size > MaxFileSize:
			e.kind, e.inc = entBig, false
			sc.skipped = append(sc.skipped, joinRel(rel, name))
		case st.isRegular() || st.isLink():
			sc.stats.files++
			mode := gitMode(&st)
			if e.kind == entFile && e.mode == mode && e.size == st.size && e.mtime == st.mtime &&
				e.ctime == st.ctime && e.ino == st.ino && !racy(sc.s.slack, e.mtime, e.ctime, e.seen) {
				e.inc = true
				break
			}
			if err := sc.hashEntry(e, joinRel(rel, name), filepath.Join(abs, name), &st, mode, attr); err != nil {
				return plumbing.ZeroHash, err
			}
		default:
			e.kind, e.inc = entOther, false
		}
		if e.inc != prevInc || (e.inc && (e.mode != prevMode || e.hash != prevHash)) {
			changed = true
		}
	}
	if !changed {
		return ds.tree, nil
	}
	sc.c.dirty = true
	es := make([]treeEntry, 0, len(ds.names))
	for i := range ds.ents {
		if e := &ds.ents[i]; e.inc {
			es = append(es, treeEntry{name: ds.names[i], mode: e.mode, hash: e.hash})
		}
	}
	if len(es) == 0 && rel != "" {
		ds.tree = emptyTree
		return emptyTree, nil
	}
	sortEntries(es)
	h, err := sc.s.writeTree(es)
	if err != nil {
		return plumbing.ZeroHash, err
	}
	ds.tree = h
	return h, nil
}

// newDirState is the state for a fresh listing of a directory, keeping what
// the previous one knew about entries still there.
func newDirState(old *dirState, names []string, sig fileSig, seen int64) *dirState {
	names = slices.DeleteFunc(names, func(n string) bool { return n == ".git" })
	ds := &dirState{sig: sig, seen: seen, names: names, ents: make([]entState, len(names))}
	if old != nil {
		ds.ignFP = old.ignFP
		idx := make(map[string]int, len(old.names))
		for i, n := range old.names {
			idx[n] = i
		}
		for i, n := range names {
			if j, ok := idx[n]; ok {
				ds.ents[i] = old.ents[j]
			}
		}
	}
	return ds
}

func sortEntries(es []treeEntry) {
	slices.SortFunc(es, func(a, b treeEntry) int {
		if entryLess(&a, &b) {
			return -1
		}
		return 1
	})
}

func joinRel(dir, name string) string {
	if dir == "" {
		return name
	}
	return dir + "/" + name
}

func gitMode(st *fileStat) filemode.FileMode {
	switch {
	case st.isLink():
		return filemode.Symlink
	case st.isExec():
		return filemode.Executable
	}
	return filemode.Regular
}

// hashEntry finds the blob of a file the cache could not vouch for: from
// the user's index when it records the same stat data and the shadow store
// already has the blob, else by reading and storing the file.
func (sc *scanner) hashEntry(e *entState, rel, abs string, st *fileStat, mode filemode.FileMode, attr bool) error {
	if !attr {
		if h, ok := sc.userIndex().lookup(rel, st, mode); ok && sc.s.hasObject(h) {
			sc.stats.fromIndex++
			sc.setFile(e, st, mode, h)
			return nil
		}
	}
	sc.stats.hashed++
	data, err := readEntry(abs, mode)
	switch {
	case errors.Is(err, errTooLarge):
		e.kind, e.inc = entBig, false
		sc.skipped = append(sc.skipped, rel)
		return nil
	case err != nil:
		e.kind, e.inc = entGone, false // vanished or unreadable
		return nil
	}
	h, err := sc.s.writeBlob(data)
	if err != nil {
		return err
	}
	sc.setFile(e, st, mode, h)
	if mode != filemode.Symlink && int64(len(data)) != st.size {
		e.size = -1 // changed while we looked: stored, but its stat data is not cached
	}
	return nil
}

func (sc *scanner) setFile(e *entState, st *fileStat, mode filemode.FileMode, h plumbing.Hash) {
	e.kind, e.inc, e.mode, e.hash = entFile, true, mode, h
	e.size, e.mtime, e.ctime, e.ino, e.seen = st.size, st.mtime, st.ctime, st.ino, sc.start
	sc.c.dirty = true
}

// userIndex loads the user's index once enough files missed the stat cache
// to make its decoding worth it.
func (sc *scanner) userIndex() *userIndex {
	if sc.uidxTry || (!sc.cold && sc.stats.hashed < minIndexMisses) {
		return sc.uidx
	}
	sc.uidxTry = true
	sc.uidx = sc.s.loadUserIndex()
	return sc.uidx
}

var errTooLarge = errors.New("file too large")

// readEntry returns a file's content or a symlink's target.
func readEntry(abs string, mode filemode.FileMode) ([]byte, error) {
	if mode == filemode.Symlink {
		t, err := os.Readlink(abs)
		if err != nil {
			return nil, err
		}
		return []byte(t), nil
	}
	f, err := os.Open(abs)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%s: not a regular file", abs)
	}
	if fi.Size() > MaxFileSize {
		return nil, errTooLarge
	}
	buf := make([]byte, 0, fi.Size()+1)
	for {
		n, err := f.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if int64(len(buf)) > MaxFileSize {
			return nil, errTooLarge
		}
		if err == io.EOF {
			return buf, nil
		}
		if err != nil {
			return nil, err
		}
		if len(buf) == cap(buf) {
			buf = slices.Grow(buf, 4096)
		}
	}
}
