package checkpoint

import (
	"bytes"
	"compress/zlib"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"
)

// The object log: the objects of each checkpoint are appended to one file
// per process, <repo>/agent/objlog-<nonce>, and made durable by one
// fdatasync, instead of a new pack and index (two files created, two data
// syncs, two renames and a directory sync) and a head ref rewritten and
// fsynced per checkpoint. A record is
//
//	length uint32 (big-endian) | crc32c uint32 | kind byte | id [20] | rest
//
// kind 'o': an object; id is its id and rest the bytes git's pack format
// has for it (its type and size header, then the zlib stream). kind 'h': a
// run's head moved; id is the commit and rest the run id. The crc covers
// kind, id and rest, and length is their size. The file starts with
// logMagic. A checkpoint's objects and its head are one write and one sync.
// A record whose length runs past the end of the file or whose crc does not
// match ends the log: a torn append (a crash between the write and its
// sync, a short write) is ignored, and only what a sync covered was ever
// relied on.
//
// The log is folded into a pack (the entries copied as they are, so the
// pack's bytes are what a per-checkpoint pack would hold) when it passes
// foldAt, when its process closes the store, and, for the log of a process
// that died, by the next process that opens the repository, or prunes it.
// The owner holds an flock on its log for its lifetime: a log nobody holds
// is dead. Until a log is folded its objects are read from it by every
// process (a log another process is still writing is read as far as its
// records are whole, and fdatasynced by a reader before that reader records
// anything naming one of its objects, as a pack found on disk has its
// directory synced). A log's heads become refs when it is folded, after its
// pack is durable, and only forward (a head whose Seq is not past the
// ref's is not written): git's view of the repository is whole at every
// moment, and behind a live run's newest snapshots, which only the agent
// reads until the log is folded (see the package doc).
const (
	logPrefix    = "objlog-"
	logTmpPrefix = "tmp_objlog-"
	logMagic     = "AGOBJLG1"
	logRecHeader = 8 + 1 + 20
	recObject    = 'o'
	recHead      = 'h'
	// foldAt is the log size past which its owner folds it into a pack.
	foldAt = 8 << 20
)

var logCRC = crc32.MakeTable(crc32.Castagnoli)

// logEntry is where an object's pack entry lies in a log.
type logEntry struct {
	off int64 // of the pack entry (after the record header)
	n   int64 // its length
}

// objLog is one object log this process reads (and, when own, writes).
type objLog struct {
	path  string
	f     *os.File
	own   bool
	size  int64 // end of the last whole record
	ents  map[plumbing.Hash]logEntry
	order []plumbing.Hash // in append order, for folding
	heads map[string]plumbing.Hash
}

func newObjLog(path string, f *os.File, own bool) *objLog {
	return &objLog{path: path, f: f, own: own, ents: map[plumbing.Hash]logEntry{}, heads: map[string]plumbing.Hash{}}
}

// logSet is the object logs of a repository this process knows.
type logSet struct {
	dir    string // <repo>/agent
	sy     *syncer
	own    *objLog            // nil until the first flush
	others map[string]*objLog // path → a log another process writes
	// checking: foreign logs an object was found in since the last flush,
	// fdatasynced by it before anything naming the object is recorded.
	checking map[*objLog]struct{}
	// pendHeads: heads moved since the last append, written with it.
	pendHeads map[string]plumbing.Hash
	// setRefs makes a folded log's heads refs (forward only); the Store's.
	setRefs func(heads map[string]plumbing.Hash) error
}

func newLogSet(dir string, sy *syncer) *logSet {
	return &logSet{dir: dir, sy: sy, others: map[string]*objLog{}, checking: map[*objLog]struct{}{}, pendHeads: map[string]plumbing.Hash{}}
}

// find returns the log holding h and the entry's place there.
func (ls *logSet) find(h plumbing.Hash) (*objLog, logEntry, bool) {
	if ls.own != nil {
		if e, ok := ls.own.ents[h]; ok {
			return ls.own, e, true
		}
	}
	for _, l := range ls.others {
		if e, ok := l.ents[h]; ok {
			return l, e, true
		}
	}
	return nil, logEntry{}, false
}

// has reports whether a log holds h; an object in another process's log
// is made durable (that log fdatasynced) by the next flush.
func (ls *logSet) has(h plumbing.Hash) bool {
	l, _, ok := ls.find(h)
	if ok && !l.own {
		ls.checking[l] = struct{}{}
	}
	return ok
}

// entry reads the pack entry of e from l.
func (l *objLog) entry(e logEntry) ([]byte, error) {
	b := make([]byte, e.n)
	if _, err := l.f.ReadAt(b, e.off); err != nil {
		return nil, fmt.Errorf("object log %s: %w", filepath.Base(l.path), err)
	}
	return b, nil
}

// object reads the object of e from l.
func (l *objLog) object(e logEntry) (plumbing.EncodedObject, error) {
	raw, err := l.entry(e)
	if err != nil {
		return nil, err
	}
	return decodeEntry(raw)
}

// decodeEntry decodes a whole (non-delta) pack entry.
func decodeEntry(raw []byte) (plumbing.EncodedObject, error) {
	t, size, i, ok := parseEntryHeader(raw)
	if !ok {
		return nil, errors.New("bad pack entry header")
	}
	if !t.Valid() || t == plumbing.OFSDeltaObject || t == plumbing.REFDeltaObject || size > 1<<31 {
		return nil, fmt.Errorf("pack entry of type %d, size %d", t, size)
	}
	zr, err := zlib.NewReader(bytes.NewReader(raw[i:]))
	if err != nil {
		return nil, err
	}
	defer zr.Close()
	data := make([]byte, size)
	if _, err := io.ReadFull(zr, data); err != nil {
		return nil, err
	}
	obj := &plumbing.MemoryObject{}
	obj.SetType(t)
	_, _ = obj.Write(data)
	return obj, nil
}

// parse reads the whole records past l.size (all of them the first time)
// and indexes them; it stops at the first torn one.
func (l *objLog) parse() error {
	fi, err := l.f.Stat()
	if err != nil {
		return err
	}
	if l.size == 0 {
		var m [len(logMagic)]byte
		if n, _ := l.f.ReadAt(m[:], 0); n < len(m) || string(m[:]) != logMagic {
			return nil // torn at birth, or not yet written: nothing in it
		}
		l.size = int64(len(logMagic))
	}
	if fi.Size() <= l.size {
		return nil
	}
	b := make([]byte, fi.Size()-l.size)
	n, err := l.f.ReadAt(b, l.size)
	if err != nil && !errors.Is(err, io.EOF) {
		return err
	}
	b = b[:n]
	off := int64(0)
	for int64(len(b))-off >= logRecHeader {
		ln := int64(binary.BigEndian.Uint32(b[off:]))
		sum := binary.BigEndian.Uint32(b[off+4:])
		if ln <= 21 || off+8+ln > int64(len(b)) || crc32.Checksum(b[off+8:off+8+ln], logCRC) != sum {
			break
		}
		var h plumbing.Hash
		copy(h[:], b[off+9:off+29])
		switch b[off+8] {
		case recObject:
			if _, dup := l.ents[h]; !dup {
				l.ents[h] = logEntry{off: l.size + off + logRecHeader, n: ln - 21}
				l.order = append(l.order, h)
			}
		case recHead:
			if run := string(b[off+29 : off+8+ln]); validRunID(run) == nil {
				l.heads[run] = h
			}
		}
		off += 8 + ln
	}
	l.size += off
	return nil
}

// open opens and indexes the log at path for reading; dead says whether
// no process holds it (this process then holds its lock until close).
func openLog(path string) (l *objLog, dead bool, err error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, false, err
	}
	got, err := tryLockFile(f)
	if err != nil {
		f.Close()
		return nil, false, err
	}
	l = newObjLog(path, f, false)
	if err := l.parse(); err != nil {
		f.Close()
		return nil, false, fmt.Errorf("read object log %s: %w", filepath.Base(path), err)
	}
	return l, got, nil
}

// release drops the lock openLog took on a dead log.
func (l *objLog) release() { _ = unlockFile(l.f) }

func (l *objLog) close() {
	if l.f != nil {
		_ = l.f.Close() // releases the lock
		l.f = nil
	}
}

// create makes this process's log: written under a temporary name, locked,
// then renamed, so no other process ever sees it unlocked; its name is made
// durable by the flush's directory sync.
func (ls *logSet) create() (*objLog, error) {
	tmp := tempName(ls.dir, logTmpPrefix)
	f, err := os.OpenFile(tmp, os.O_RDWR|os.O_CREATE|os.O_EXCL, privateFile)
	if err != nil {
		return nil, err
	}
	fail := func(err error) (*objLog, error) {
		f.Close()
		_ = os.Remove(tmp)
		return nil, err
	}
	if err := lockFile(f); err != nil {
		return fail(fmt.Errorf("lock %s: %w", filepath.Base(tmp), err))
	}
	if _, err := f.WriteAt([]byte(logMagic), 0); err != nil {
		return fail(err)
	}
	path := filepath.Join(ls.dir, logPrefix+strings.TrimPrefix(filepath.Base(tmp), logTmpPrefix))
	if err := os.Rename(tmp, path); err != nil {
		return fail(err)
	}
	ls.sy.note(syncEvent{Op: opRename, Path: tmp, To: path})
	ls.sy.markDirty(ls.dir)
	l := newObjLog(path, f, true)
	l.size = int64(len(logMagic))
	return l, nil
}

// append writes p's objects and the pending heads to this process's log
// as records and fdatasyncs it once. On error nothing of them is indexed,
// and the log is cut back (or, if that fails, given up: the next one is a
// new file).
func (ls *logSet) append(p *pendingPack) error {
	if ls.own == nil {
		l, err := ls.create()
		if err != nil {
			ls.pendHeads = map[string]plumbing.Hash{}
			return fmt.Errorf("checkpoint: create object log: %w", err)
		}
		ls.own = l
	}
	l := ls.own
	buf := make([]byte, 0, len(p.buf)+len(p.objs)*logRecHeader)
	type placed struct {
		h plumbing.Hash
		e logEntry
	}
	put := make([]placed, 0, len(p.objs))
	for i, o := range p.objs {
		end := int64(len(p.buf))
		if i+1 < len(p.objs) {
			end = p.objs[i+1].off
		}
		ent := p.buf[o.off:end]
		rec := len(buf)
		buf = appendRecord(buf, recObject, o.h, ent)
		put = append(put, placed{o.h, logEntry{off: l.size + int64(rec) + logRecHeader, n: int64(len(ent))}})
	}
	runs := make([]string, 0, len(ls.pendHeads))
	for run := range ls.pendHeads {
		runs = append(runs, run)
	}
	sort.Strings(runs)
	for _, run := range runs {
		buf = appendRecord(buf, recHead, ls.pendHeads[run], []byte(run))
	}
	_, err := l.f.WriteAt(buf, l.size)
	if err == nil {
		err = ls.sy.syncData(l.f, l.path)
	}
	if err != nil {
		ls.pendHeads = map[string]plumbing.Hash{}
		if terr := l.f.Truncate(l.size); terr != nil {
			ls.dropOwn()
		}
		return fmt.Errorf("checkpoint: write object log: %w", err)
	}
	for _, x := range put {
		if _, dup := l.ents[x.h]; !dup {
			l.ents[x.h] = x.e
			l.order = append(l.order, x.h)
		}
	}
	for _, run := range runs {
		l.heads[run] = ls.pendHeads[run]
		delete(ls.pendHeads, run)
	}
	l.size += int64(len(buf))
	return nil
}

// appendRecord appends one record to buf.
func appendRecord(buf []byte, kind byte, id plumbing.Hash, rest []byte) []byte {
	rec := len(buf)
	buf = append(buf, 0, 0, 0, 0, 0, 0, 0, 0, kind)
	buf = append(buf, id[:]...)
	buf = append(buf, rest...)
	binary.BigEndian.PutUint32(buf[rec:], uint32(1+20+len(rest)))
	binary.BigEndian.PutUint32(buf[rec+4:], crc32.Checksum(buf[rec+8:], logCRC))
	return buf
}

// head lists the heads of run the logs hold: this process's alone when it
// has one (it holds the run's lock when it writes it), else every other
// log's (the caller keeps the one of highest Seq).
func (ls *logSet) head(run string) []plumbing.Hash {
	var out []plumbing.Hash
	if ls.own != nil {
		if h, ok := ls.own.heads[run]; ok {
			return []plumbing.Hash{h}
		}
	}
	for _, p := range ls.sortedOthers() {
		if h, ok := ls.others[p].heads[run]; ok {
			out = append(out, h)
		}
	}
	return out
}

// runs adds the runs whose heads the logs hold to set.
func (ls *logSet) runs(set map[string]bool) {
	if ls.own != nil {
		for r := range ls.own.heads {
			set[r] = true
		}
	}
	for _, l := range ls.others {
		for r := range l.heads {
			set[r] = true
		}
	}
}

// allHeads is every head the logs hold (for prune's reachability).
func (ls *logSet) allHeads() []plumbing.Hash {
	var out []plumbing.Hash
	if ls.own != nil {
		for _, h := range ls.own.heads {
			out = append(out, h)
		}
	}
	for _, l := range ls.others {
		for _, h := range l.heads {
			out = append(out, h)
		}
	}
	return out
}

func (ls *logSet) sortedOthers() []string {
	paths := make([]string, 0, len(ls.others))
	for p := range ls.others {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	return paths
}

// dropOwn gives up this process's log without folding it: it stays on
// disk, whole up to its last sync, and is folded as a dead log later.
func (ls *logSet) dropOwn() {
	if ls.own != nil {
		ls.own.close()
		ls.own = nil
	}
}

// syncChecking fdatasyncs the foreign logs objects were found in.
func (ls *logSet) syncChecking() error {
	for l := range ls.checking {
		if l.f != nil {
			if err := ls.sy.syncData(l.f, l.path); err != nil {
				return fmt.Errorf("checkpoint: sync object log: %w", err)
			}
		}
		delete(ls.checking, l)
	}
	return nil
}

// refresh lists the logs: with foldDead (the caller holds the store lock),
// a dead one (no process holds it) is folded into a pack and removed;
// every other one is indexed (its new records read); one that is gone is
// forgotten (its owner folded it: the packs are listed again by the
// caller when an object is missing).
func (ls *logSet) refresh(ps *packSet, foldDead bool) error {
	ents, err := os.ReadDir(ls.dir)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("checkpoint: list object logs: %w", err)
	}
	seen := map[string]bool{}
	var firstErr error
	// Dead logs are folded after every live one is indexed: a dead log's
	// heads may reach objects only a live log holds (foldclosure.go).
	type deadLog struct {
		l     *objLog
		known bool
	}
	var dead []deadLog
	for _, e := range ents {
		n := e.Name()
		if !strings.HasPrefix(n, logPrefix) || !e.Type().IsRegular() {
			continue
		}
		p := filepath.Join(ls.dir, n)
		if ls.own != nil && p == ls.own.path {
			continue
		}
		seen[p] = true
		if l := ls.others[p]; l != nil {
			if foldDead {
				if got, _ := tryLockFile(l.f); got {
					// its owner died since we first read it
					if err := l.parse(); err != nil && firstErr == nil {
						firstErr = err
					}
					dead = append(dead, deadLog{l, true})
					continue
				}
			}
			if err := l.parse(); err != nil && firstErr == nil {
				firstErr = err
			}
			continue
		}
		l, isDead, err := openLog(p)
		if err != nil {
			if !errors.Is(err, fs.ErrNotExist) && firstErr == nil {
				firstErr = err
			}
			continue
		}
		if !isDead || !foldDead {
			if isDead {
				l.release() // read it, but let a folder take it
			}
			ls.others[p] = l
			continue
		}
		dead = append(dead, deadLog{l, false})
	}
	for p, l := range ls.others {
		if !seen[p] {
			l.close()
			delete(ls.others, p)
			delete(ls.checking, l)
		}
	}
	for _, d := range dead {
		if err := ls.fold(d.l, ps); err != nil && firstErr == nil {
			firstErr = fmt.Errorf("%w\n(the object log %s of an agent process that ended holds snapshots not yet in the shadow repository "+
				"and could not be folded into it; fix the cause above, or move it aside (mv %s %s) to go on without the "+
				"snapshots only it holds)", err, d.l.path, d.l.path, filepath.Join(ls.dir, "broken-"+filepath.Base(d.l.path)))
		}
		if d.known {
			delete(ls.others, d.l.path)
			delete(ls.checking, d.l)
		}
		d.l.close()
	}
	return firstErr
}

// fold writes l's objects as a pack (durable when it returns), then
// removes l's file (its directory is synced by the next syncDirs; a log
// folded twice after a crash writes the same pack again, harmlessly).
func (ls *logSet) fold(l *objLog, ps *packSet) error {
	// What l's heads reach in other, live logs is copied into its pack
	// (foldclosure.go), so its refs never need a log to be whole.
	foreign, err := ls.foreignClosure(l, ps)
	if err != nil {
		return fmt.Errorf("checkpoint: fold object log: %w", err)
	}
	if len(l.order) > 0 || len(foreign) > 0 {
		out := newPendingPack()
		flush := func() error {
			if out.len() == 0 {
				return nil
			}
			if _, err := ps.write(out); err != nil {
				return err
			}
			out = newPendingPack()
			return nil
		}
		for _, fo := range foreign {
			raw, err := fo.log.entry(fo.e)
			if err != nil {
				return fmt.Errorf("checkpoint: fold object log: %w", err)
			}
			off := len(out.buf)
			out.buf = append(out.buf, raw...)
			out.addRaw(fo.h, off)
		}
		for _, h := range l.order {
			raw, err := l.entry(l.ents[h])
			if err != nil {
				return fmt.Errorf("checkpoint: fold object log: %w", err)
			}
			off := len(out.buf)
			out.buf = append(out.buf, raw...)
			out.addRaw(h, off)
			if len(out.buf) >= maxPendingBytes {
				if err := flush(); err != nil {
					return fmt.Errorf("checkpoint: fold object log: %w", err)
				}
			}
		}
		if err := flush(); err != nil {
			return fmt.Errorf("checkpoint: fold object log: %w", err)
		}
		if err := ps.mergeIfMany(); err != nil {
			return err
		}
	}
	if len(l.heads) > 0 && ls.setRefs != nil {
		if err := ls.setRefs(l.heads); err != nil {
			return fmt.Errorf("checkpoint: fold object log: %w", err)
		}
	}
	if err := os.Remove(l.path); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("checkpoint: remove folded object log: %w", err)
	}
	ls.sy.markDirty(ls.dir)
	return nil
}

// foldOwn folds this process's log, if it has one; the next flush starts
// a new one.
func (ls *logSet) foldOwn(ps *packSet) error {
	l := ls.own
	if l == nil {
		return nil
	}
	if err := ls.fold(l, ps); err != nil {
		return err
	}
	l.close()
	ls.own = nil
	return nil
}

// hashes lists the objects the logs hold whose id starts with b.
func (ls *logSet) hashes(b []byte, seen map[plumbing.Hash]bool) []plumbing.Hash {
	var out []plumbing.Hash
	add := func(l *objLog) {
		for _, h := range l.order {
			if bytes.HasPrefix(h[:], b) && !seen[h] {
				seen[h] = true
				out = append(out, h)
			}
		}
	}
	if ls.own != nil {
		add(ls.own)
	}
	for _, p := range ls.sortedOthers() {
		add(ls.others[p])
	}
	return out
}

// closeAll closes every log (this process's own is not folded: see
// Store.Close).
func (ls *logSet) closeAll() {
	ls.dropOwn()
	for p, l := range ls.others {
		l.close()
		delete(ls.others, p)
	}
	ls.checking = map[*objLog]struct{}{}
}

// logRuns lists the runs whose heads the object logs in dir hold (read
// without opening the store: see DeleteRunSnapshots).
func logRuns(dir string) ([]string, error) {
	ents, err := os.ReadDir(dir)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("checkpoint: list object logs: %w", err)
	}
	var out []string
	for _, e := range ents {
		if !strings.HasPrefix(e.Name(), logPrefix) || !e.Type().IsRegular() {
			continue
		}
		f, err := os.Open(filepath.Join(dir, e.Name()))
		if err != nil {
			continue
		}
		l := newObjLog(f.Name(), f, false)
		err = l.parse()
		f.Close()
		if err != nil {
			return nil, fmt.Errorf("checkpoint: read object log %s: %w", e.Name(), err)
		}
		for r := range l.heads {
			out = append(out, r)
		}
	}
	return out, nil
}
