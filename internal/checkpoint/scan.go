package checkpoint

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sort"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
)

// Snapshot scans the whole workspace and records it as the run's next
// snapshot. It costs one fstatat per entry: a directory whose own stat data
// is unchanged is not listed again, a file whose stat data matches the stat
// cache is not read, and a directory none of whose entries changed keeps its
// tree without encoding.
//
// The stat cache is the agent's own (in the agent home, beside the shadow
// repository). The user's git index is consulted only by a cold scan (no
// stat cache at all) of kind KindBefore: a snapshot taken after a command
// or an MCP tool (KindAfter) or before a rollback never takes a blob id from
// a file that the call could have rewritten.
func (s *Store) Snapshot(ctx context.Context, meta Meta) (Snapshot, error) {
	if err := validRunID(meta.RunID); err != nil {
		return Snapshot{}, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	var snap Snapshot
	err := s.withShared(func() error {
		res, err := s.scanTree(ctx, meta.Kind == KindBefore)
		if err != nil {
			return err
		}
		rules, err := s.writeRules(res.rules)
		if err != nil {
			return err
		}
		snap, err = s.commitSnapshot(meta, res.tree, res.skipped, rules)
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
	// useIndex: this scan may take blob ids from the user's git index. Only
	// a cold scan (no cached state at all) of a before-checkpoint does; see
	// Snapshot.
	useIndex bool
	rules    ruleRecord // every ignore file the scan read
}

func (s *Store) newScanner(ctx context.Context) *scanner {
	if s.stat == nil {
		s.stat = loadStatCache(s.statPath(), s.gen)
	}
	return &scanner{s: s, ctx: ctx, c: s.stat, start: time.Now().UnixNano(), buf: make([]byte, 32<<10)}
}

// scanResult is what a full scan found: the root tree, the files left out
// for size (sorted) and the ignore files it read.
type scanResult struct {
	tree    plumbing.Hash
	skipped []string
	rules   ruleRecord
}

// scanTree writes the blobs and trees of the present workspace and returns
// them with the files left out for size. Everything is read beneath
// the workspace directory, opened once (see readat.go). mayUseIndex allows
// a cold scan to take blob ids from the user's git index (see Snapshot).
func (s *Store) scanTree(ctx context.Context, mayUseIndex bool) (scanResult, error) {
	sc := s.newScanner(ctx)
	sc.c.scan++
	sc.useIndex = mayUseIndex && sc.c.dirs[""] == nil
	sc.rules = ruleRecord{}
	root, err := openDir(s.workspace)
	if err != nil {
		return scanResult{}, fmt.Errorf("checkpoint: scan workspace: %w", err)
	}
	defer root.close()
	var st fileStat
	if err := root.fstat(&st); err != nil {
		return scanResult{}, fmt.Errorf("checkpoint: scan workspace: %w", err)
	}
	set, fp := s.rootIgnore(root, sc.rules)
	h, err := sc.walk("", root, nil, set, fp, false, st.sig())
	if err != nil {
		return scanResult{}, err
	}
	s.lastScan = sc.stats
	sc.c.sweep()
	// withShared saves the stat cache (at most every saveEvery) once the
	// operation's objects are durable, so a snapshot's objects make one pack.
	sort.Strings(sc.skipped)
	return scanResult{tree: h, skipped: sc.skipped, rules: sc.rules}, nil
}

// walkDir is the directory a walk is in.
type walkDir struct {
	dr      *dirReader
	rel     string
	parts   []string
	scratch []string // parts plus one entry's name, for matching
	ign     *ignoreSet
	fp      uint64
	flagsOK bool // the entries' cached ignore flags hold under ign
	attr    bool
}

// walk brings the cached state of directory rel (open as dr, with path
// components parts, rules ign of fingerprint fp, own stat data dsig) up to
// date and returns its tree (emptyTree if it holds nothing, except at the
// root).
func (sc *scanner) walk(rel string, dr *dirReader, parts []string, ign *ignoreSet, fp uint64, attr bool, dsig fileSig) (plumbing.Hash, error) {
	if err := sc.ctx.Err(); err != nil {
		return plumbing.ZeroHash, fmt.Errorf("checkpoint: scan: %w", err)
	}
	ds := sc.c.dirs[rel]
	reuse := ds != nil && ds.sig == dsig && !racy(sc.s.slack, dsig.mtime, dsig.ctime, ds.seen)
	if !reuse {
		// The listing is kept under the stat data of the directory it is
		// read from (the descriptor held), taken before it is read: a
		// directory put in the place of the one stat'ed by its path is
		// never remembered as the other's listing.
		var own fileStat
		if err := dr.fstat(&own); err != nil {
			if rel == "" {
				return plumbing.ZeroHash, fmt.Errorf("checkpoint: scan workspace: %w", err)
			}
			return emptyTree, nil
		}
		dsig = own.sig()
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
			own, tok = sc.s.loadIgnore(fileAt{dr, ".gitignore"}, parts, sc.rules, wsKey(rel))
		}
		ign, fp = ign.extend(own), mixTok(fp, tok)
	}
	if !attr && slices.Contains(ds.names, ".gitattributes") {
		attr = sc.s.attrUnsafe(fileAt{dr, ".gitattributes"})
	}
	w := walkDir{dr: dr, rel: rel, parts: parts, scratch: make([]string, len(parts)+1), ign: ign, fp: fp,
		flagsOK: ds.ignFP == fp, attr: attr}
	copy(w.scratch, parts)
	ds.ignFP = fp
	changed := !reuse || ds.tree.IsZero()
	for i, name := range ds.names {
		e := &ds.ents[i]
		prevInc, prevMode, prevHash := e.inc, e.mode, e.hash
		if err := sc.entry(&w, name, e); err != nil {
			return plumbing.ZeroHash, err
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

// entry brings the state e of the entry name of w up to date: it is
// stat'ed relative to its directory and recorded as what it is; one that
// changes type between that stat and its open (a directory or a file
// swapped for a symlink) is stat'ed again and recorded as what it has
// become, or left out if it keeps changing.
func (sc *scanner) entry(w *walkDir, name string, e *entState) error {
	for try := 1; ; try++ {
		var st fileStat
		if w.dr.lstat(name, &st) != nil {
			e.kind, e.inc = entGone, false
			return nil
		}
		isDir := st.isDir()
		if !w.flagsOK || !e.ignKnow || e.ignDir != isDir {
			w.scratch[len(w.parts)] = name
			e.ign, e.ignDir, e.ignKnow = w.ign.match(w.scratch, isDir), isDir, true
		}
		err := sc.record(w, name, e, &st)
		if !errors.Is(err, errChanged) {
			return err
		}
		if try == maxTries {
			e.kind, e.inc = entGone, false
			return nil
		}
	}
}

// record records the entry name of w, of stat data st, in e (errChanged:
// it is no longer what st says).
func (sc *scanner) record(w *walkDir, name string, e *entState, st *fileStat) error {
	isDir := st.isDir()
	switch {
	case e.ign || (isDir && sc.s.exclude != "" && sc.s.excluded(joinRel(w.rel, name))):
		e.inc = false
	case isDir:
		rel := joinRel(w.rel, name)
		sc.s.hook(rel)
		sub, err := w.dr.sub(name)
		if errors.Is(err, errChanged) {
			return err
		}
		if err != nil {
			e.kind, e.inc = entGone, false // vanished or unreadable: not part of the snapshot
			return nil
		}
		kp := append(w.parts[:len(w.parts):len(w.parts)], name)
		h, err := sc.walk(rel, sub, kp, w.ign.descend(kp), w.fp, w.attr, st.sig())
		sub.close()
		if err != nil {
			return err
		}
		e.kind, e.inc, e.mode, e.hash = entDir, h != emptyTree, filemode.Dir, h
	case st.isRegular() && st.size > MaxFileSize:
		e.kind, e.inc = entBig, false
		sc.skipped = append(sc.skipped, joinRel(w.rel, name))
	case st.isRegular() || st.isLink():
		sc.stats.files++
		mode := gitMode(st)
		if e.kind == entFile && e.mode == mode && e.size == st.size && e.mtime == st.mtime &&
			e.ctime == st.ctime && e.ino == st.ino && !racy(sc.s.slack, e.mtime, e.ctime, e.seen) {
			e.inc = true
			return nil
		}
		return sc.hashEntry(e, w, name, st, mode)
	default:
		e.kind, e.inc = entOther, false
	}
	return nil
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

// hashEntry finds the blob of a file the cache could not vouch for: on a
// cold before-checkpoint, from the user's index when it records the same
// stat data and the shadow store already has the blob; else by reading
// (relative to its directory, never through a symlink) and storing the
// file. A warm scan never consults the index: a command can rewrite a file,
// stage it, put the old blob id back into .git/index and back-date the
// file, and the index would then vouch for content the file no longer has.
func (sc *scanner) hashEntry(e *entState, w *walkDir, name string, st *fileStat, mode filemode.FileMode) error {
	rel := joinRel(w.rel, name)
	if !w.attr {
		if h, ok := sc.userIndex().lookup(rel, st, mode); ok && sc.s.hasObject(h) {
			sc.stats.fromIndex++
			sc.setFile(e, st, mode, h)
			return nil
		}
	}
	sc.stats.hashed++
	sc.s.hook(rel)
	data, stable, err := readEntryAt(w.dr, name, mode, st)
	switch {
	case errors.Is(err, errChanged):
		return err
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
	if !stable {
		e.size = -1 // changed while we looked: stored, but its stat data is not cached
	}
	return nil
}

func (sc *scanner) setFile(e *entState, st *fileStat, mode filemode.FileMode, h plumbing.Hash) {
	e.kind, e.inc, e.mode, e.hash = entFile, true, mode, h
	e.size, e.mtime, e.ctime, e.ino, e.seen = st.size, st.mtime, st.ctime, st.ino, sc.start
	sc.c.dirty = true
}

// userIndex loads the user's index, once, for a scan allowed to use it.
func (sc *scanner) userIndex() *userIndex {
	if sc.uidxTry || !sc.useIndex {
		return sc.uidx
	}
	sc.uidxTry = true
	sc.uidx = sc.s.loadUserIndex()
	return sc.uidx
}
