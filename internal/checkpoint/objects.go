package checkpoint

import (
	"bytes"
	"crypto/sha1"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/format/objfile"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/go-git/go-git/v5/plumbing/storer"
)

// treeEntry is one entry of a git tree.
type treeEntry struct {
	name string
	mode filemode.FileMode
	hash plumbing.Hash
}

// maxCachedTrees bounds the decoded-tree cache (entries are small).
const maxCachedTrees = 200000

func modeString(m filemode.FileMode) string {
	switch m {
	case filemode.Dir:
		return "40000"
	case filemode.Executable:
		return "100755"
	case filemode.Symlink:
		return "120000"
	case filemode.Submodule:
		return "160000"
	}
	return "100644"
}

// entryLess is git's tree order: directories compare as if named "name/".
func entryLess(a, b *treeEntry) bool {
	an, bn := a.name, b.name
	n := min(len(an), len(bn))
	if an[:n] != bn[:n] {
		return an[:n] < bn[:n]
	}
	ac, bc := byte(0), byte(0)
	if len(an) > n {
		ac = an[n]
	} else if a.mode == filemode.Dir {
		ac = '/'
	}
	if len(bn) > n {
		bc = bn[n]
	} else if b.mode == filemode.Dir {
		bc = '/'
	}
	return ac < bc
}

func encodeTree(es []treeEntry) []byte {
	n := 0
	for i := range es {
		n += len(es[i].name) + 28
	}
	buf := make([]byte, 0, n)
	for i := range es {
		buf = append(buf, modeString(es[i].mode)...)
		buf = append(buf, ' ')
		buf = append(buf, es[i].name...)
		buf = append(buf, 0)
		buf = append(buf, es[i].hash[:]...)
	}
	return buf
}

func decodeTree(data []byte) ([]treeEntry, error) {
	var es []treeEntry
	for len(data) > 0 {
		sp := bytes.IndexByte(data, ' ')
		if sp < 0 {
			return nil, errors.New("malformed tree entry mode")
		}
		m, err := strconv.ParseUint(string(data[:sp]), 8, 32)
		if err != nil {
			return nil, fmt.Errorf("malformed tree entry mode: %w", err)
		}
		data = data[sp+1:]
		nul := bytes.IndexByte(data, 0)
		if nul < 0 || len(data) < nul+1+20 {
			return nil, errors.New("malformed tree entry")
		}
		e := treeEntry{name: string(data[:nul]), mode: filemode.FileMode(m)}
		copy(e.hash[:], data[nul+1:nul+21])
		es = append(es, e)
		data = data[nul+21:]
	}
	return es, nil
}

// hashObject is git's object id: sha1("<type> <len>\0" + data).
func hashObject(t plumbing.ObjectType, data []byte) plumbing.Hash {
	h := sha1.New()
	hdr := make([]byte, 0, 32)
	hdr = append(hdr, t.String()...)
	hdr = append(hdr, ' ')
	hdr = strconv.AppendInt(hdr, int64(len(data)), 10)
	hdr = append(hdr, 0)
	h.Write(hdr)
	h.Write(data)
	var out plumbing.Hash
	copy(out[:], h.Sum(nil))
	return out
}

// hasObject reports whether h is in the shadow store (memoized). An object
// found on disk the first time may have been written by a process that died
// before it fsynced the directory that names its pack (or, for a loose
// object of an earlier version, its fan-out directory): that directory is
// synced before anything that names the object is recorded. A miss does not
// look for packs other processes wrote since this one last listed them: at
// worst the object is written again, and duplicates across packs are
// harmless.
func (s *Store) hasObject(h plumbing.Hash) bool {
	if _, ok := s.have[h]; ok {
		return true
	}
	if err := s.packs.ensureLoaded(); err == nil {
		if pf, _ := s.packs.find(h); pf != nil {
			if !pf.durable {
				s.sy.markDirty(s.packs.dir)
				s.packs.checking = append(s.packs.checking, pf)
			}
			s.markHave(h)
			return true
		}
	}
	if s.logs.has(h) {
		s.markHave(h)
		return true
	}
	if s.loose {
		if _, err := os.Stat(s.loosePath(h)); err == nil {
			s.sy.markDirty(filepath.Dir(s.loosePath(h)))
			s.markHave(h)
			return true
		}
	}
	return false
}

// loosePath is where an earlier version kept h as a loose object.
func (s *Store) loosePath(h plumbing.Hash) string {
	hx := h.String()
	return filepath.Join(s.gitDir, "objects", hx[:2], hx[2:])
}

// looseObject reads h, a loose object of an earlier version.
func (s *Store) looseObject(h plumbing.Hash) (plumbing.EncodedObject, error) {
	f, err := os.Open(s.loosePath(h))
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, plumbing.ErrObjectNotFound
		}
		return nil, err
	}
	defer f.Close()
	r, err := objfile.NewReader(f)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	t, size, err := r.Header()
	if err != nil {
		return nil, err
	}
	obj := &plumbing.MemoryObject{}
	obj.SetType(t)
	obj.SetSize(size)
	if _, err := io.Copy(obj, r); err != nil {
		return nil, err
	}
	return obj, nil
}

// findObject reads h from the packs (listing them again if it is not in
// the ones this process knows) or from the loose objects.
func (s *Store) findObject(h plumbing.Hash) (plumbing.EncodedObject, error) {
	if err := s.packs.ensureLoaded(); err != nil {
		return nil, err
	}
	for try := 0; try < 2; try++ {
		if l, e, ok := s.logs.find(h); ok {
			return l.object(e)
		}
		if pf, off := s.packs.find(h); pf != nil {
			return pf.object(off)
		}
		if s.loose {
			obj, err := s.looseObject(h)
			if !errors.Is(err, plumbing.ErrObjectNotFound) {
				return obj, err
			}
		}
		if try == 0 {
			// Another process may have written it to its log, or
			// folded its log into a pack, since we last looked.
			if err := s.logs.refresh(s.packs, false); err != nil {
				return nil, err
			}
			if err := s.packs.refresh(); err != nil {
				return nil, err
			}
		}
	}
	return nil, plumbing.ErrObjectNotFound
}

func (s *Store) markHave(h plumbing.Hash) { s.have[h] = struct{}{} }

// writeObject stores data as an object of type t whose id is h, unless the
// store already has it. The object joins the pending batch (see
// objectBatch): it is durable and visible after the next flushObjects.
func (s *Store) writeObject(t plumbing.ObjectType, data []byte, h plumbing.Hash) error {
	if s.hasObject(h) {
		return nil
	}
	if err := s.objs.add(t, data, h); err != nil {
		s.forgetObjects()
		return fmt.Errorf("checkpoint: %w", err)
	}
	s.markHave(h)
	return nil
}

// flushObjects makes the pending objects durable and visible, and fsyncs
// every directory whose entries changed (see syncer). It runs before a ref
// or a stat cache that names objects is written. On error the caches that
// assume objects exist are dropped.
func (s *Store) flushObjects() error {
	if err := s.objs.flush(); err != nil {
		s.forgetObjects()
		return err
	}
	return nil
}

// forgetObjects drops the pending objects and every cache that may name
// one of them.
func (s *Store) forgetObjects() {
	s.objs.discard()
	s.resetCaches()
}

// writeBlob stores data as a blob and returns its id.
func (s *Store) writeBlob(data []byte) (plumbing.Hash, error) {
	h := hashObject(plumbing.BlobObject, data)
	return h, s.writeObject(plumbing.BlobObject, data, h)
}

// writeTree stores a tree of sorted entries, remembers its decoded form and
// returns its id.
func (s *Store) writeTree(es []treeEntry) (plumbing.Hash, error) {
	data := encodeTree(es)
	h := hashObject(plumbing.TreeObject, data)
	if err := s.writeObject(plumbing.TreeObject, data, h); err != nil {
		return h, err
	}
	s.cacheTree(h, es)
	return h, nil
}

func (s *Store) cacheTree(h plumbing.Hash, es []treeEntry) {
	if len(s.trees) >= maxCachedTrees {
		s.trees = map[plumbing.Hash][]treeEntry{}
	}
	s.trees[h] = es
}

// emptyTree is the id of the tree with no entries.
var emptyTree = hashObject(plumbing.TreeObject, nil)

// readTree returns a tree's entries (shared: do not modify).
func (s *Store) readTree(h plumbing.Hash) ([]treeEntry, error) {
	if h == emptyTree || h.IsZero() {
		return nil, nil
	}
	if es, ok := s.trees[h]; ok {
		return es, nil
	}
	data, err := s.readRaw(plumbing.TreeObject, h)
	if err != nil {
		return nil, err
	}
	es, err := decodeTree(data)
	if err != nil {
		return nil, fmt.Errorf("checkpoint: tree %s: %w", h, err)
	}
	s.cacheTree(h, es)
	return es, nil
}

func (s *Store) readRaw(t plumbing.ObjectType, h plumbing.Hash) ([]byte, error) {
	obj, err := s.encodedObject(t, h)
	if err != nil {
		return nil, fmt.Errorf("checkpoint: read %s %s: %w", t, h, err)
	}
	r, err := obj.Reader()
	if err != nil {
		return nil, fmt.Errorf("checkpoint: read %s %s: %w", t, h, err)
	}
	defer r.Close()
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, fmt.Errorf("checkpoint: read %s %s: %w", t, h, err)
	}
	return data, nil
}

// writeCommit stores a commit and returns its id.
func (s *Store) writeCommit(c *object.Commit) (plumbing.Hash, error) {
	obj := &plumbing.MemoryObject{}
	if err := c.Encode(obj); err != nil {
		return plumbing.ZeroHash, fmt.Errorf("checkpoint: encode commit: %w", err)
	}
	r, err := obj.Reader()
	if err != nil {
		return plumbing.ZeroHash, fmt.Errorf("checkpoint: encode commit: %w", err)
	}
	data, err := io.ReadAll(r)
	if err != nil {
		return plumbing.ZeroHash, fmt.Errorf("checkpoint: encode commit: %w", err)
	}
	h := hashObject(plumbing.CommitObject, data)
	if err := s.writeObject(plumbing.CommitObject, data, h); err != nil {
		return plumbing.ZeroHash, err
	}
	return h, nil
}

// encodedObject reads an object (of type t, or any type for AnyObject),
// first flushing the pending batch if it holds the object.
func (s *Store) encodedObject(t plumbing.ObjectType, h plumbing.Hash) (plumbing.EncodedObject, error) {
	if s.objs.has(h) {
		if err := s.flushObjects(); err != nil {
			return nil, err
		}
	}
	obj, err := s.findObject(h)
	if err != nil {
		return nil, err
	}
	if t != plumbing.AnyObject && obj.Type() != t {
		return nil, plumbing.ErrObjectNotFound
	}
	return obj, nil
}

// resolveTree accepts a commit or tree id (or a unique prefix of one; ""
// is the empty tree) and returns the tree id.
func (s *Store) resolveTree(id string) (plumbing.Hash, error) {
	if id == "" {
		return emptyTree, nil
	}
	h, err := s.resolveHash(id)
	if err != nil {
		return plumbing.ZeroHash, err
	}
	if snap, ok := s.snaps[h]; ok && snap.Tree != "" {
		// A snapshot this process made or read: its commit names this tree
		// (commits never change), without reading the commit again.
		return plumbing.NewHash(snap.Tree), nil
	}
	obj, err := s.encodedObject(plumbing.AnyObject, h)
	if err != nil {
		return plumbing.ZeroHash, fmt.Errorf("checkpoint: %s: %w", id, err)
	}
	switch obj.Type() {
	case plumbing.TreeObject:
		return h, nil
	case plumbing.CommitObject:
		c, err := object.DecodeCommit(s.reader(), obj)
		if err != nil {
			return plumbing.ZeroHash, fmt.Errorf("checkpoint: %s: %w", id, err)
		}
		return c.TreeHash, nil
	}
	return plumbing.ZeroHash, fmt.Errorf("checkpoint: %s is a %s, not a snapshot", id, obj.Type())
}

// resolveHash turns a full or abbreviated (≥ 4 hex digits) id into a hash.
func (s *Store) resolveHash(id string) (plumbing.Hash, error) {
	if len(id) == 40 {
		if !plumbing.IsHash(id) {
			return plumbing.ZeroHash, fmt.Errorf("checkpoint: invalid id %q", id)
		}
		return plumbing.NewHash(id), nil
	}
	if len(id) < 4 || len(id) > 40 {
		return plumbing.ZeroHash, fmt.Errorf("checkpoint: invalid id %q", id)
	}
	b, err := hexPrefix(id)
	if err != nil {
		return plumbing.ZeroHash, fmt.Errorf("checkpoint: invalid id %q: %w", id, err)
	}
	hs, err := s.hashesWithPrefix(b)
	if err != nil {
		return plumbing.ZeroHash, fmt.Errorf("checkpoint: %s: %w", id, err)
	}
	var match []plumbing.Hash
	for _, h := range hs {
		if len(h.String()) >= len(id) && h.String()[:len(id)] == id {
			match = append(match, h)
		}
	}
	switch len(match) {
	case 0:
		return plumbing.ZeroHash, fmt.Errorf("checkpoint: no snapshot %q: %w", id, plumbing.ErrObjectNotFound)
	case 1:
		return match[0], nil
	}
	return plumbing.ZeroHash, fmt.Errorf("checkpoint: ambiguous id %q", id)
}

// hashesWithPrefix lists the objects whose id starts with the bytes b
// (packs first, listed afresh, then loose objects).
func (s *Store) hashesWithPrefix(b []byte) ([]plumbing.Hash, error) {
	if err := s.packs.refresh(); err != nil {
		return nil, err
	}
	seen := map[plumbing.Hash]bool{}
	var out []plumbing.Hash
	for _, pf := range s.packs.sortedPacks() {
		it, err := pf.idx.Entries()
		if err != nil {
			return nil, err
		}
		for {
			e, err := it.Next()
			if err != nil {
				break
			}
			if bytes.HasPrefix(e.Hash[:], b) && !seen[e.Hash] {
				seen[e.Hash] = true
				out = append(out, e.Hash)
			}
		}
		it.Close()
	}
	if err := s.logs.refresh(s.packs, false); err != nil {
		return nil, err
	}
	out = append(out, s.logs.hashes(b, seen)...)
	if s.loose && len(b) > 0 {
		hx := hex.EncodeToString(b[:1])
		ents, _ := os.ReadDir(filepath.Join(s.gitDir, "objects", hx))
		for _, e := range ents {
			if h, ok := hashOf(hx + e.Name()); ok && bytes.HasPrefix(h[:], b) && !seen[h] {
				seen[h] = true
				out = append(out, h)
			}
		}
	}
	return out, nil
}

func hashOf(hx string) (plumbing.Hash, bool) {
	if !plumbing.IsHash(hx) {
		return plumbing.ZeroHash, false
	}
	return plumbing.NewHash(hx), true
}

func hexPrefix(id string) ([]byte, error) {
	var out []byte
	for i := 0; i+1 < len(id); i += 2 {
		v, err := strconv.ParseUint(id[i:i+2], 16, 8)
		if err != nil {
			return nil, err
		}
		out = append(out, byte(v))
	}
	if len(id)%2 == 1 {
		if _, err := strconv.ParseUint(id[len(id)-1:], 16, 8); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// objectReader is the object storage go-git's object model (trees walked
// by Files and Patch, commits) reads through: the Store's packs and loose
// objects rather than go-git's own pack reading, which loads the pack
// indexes once and would not see packs written since. The caller holds
// s.mu.
type objectReader struct {
	storer.EncodedObjectStorer
	s *Store
}

func (s *Store) reader() objectReader { return objectReader{EncodedObjectStorer: s.st, s: s} }

// EncodedObject implements storer.EncodedObjectStorer.
func (r objectReader) EncodedObject(t plumbing.ObjectType, h plumbing.Hash) (plumbing.EncodedObject, error) {
	return r.s.encodedObject(t, h)
}

// HasEncodedObject implements storer.EncodedObjectStorer.
func (r objectReader) HasEncodedObject(h plumbing.Hash) error {
	if r.s.hasObject(h) {
		return nil
	}
	return plumbing.ErrObjectNotFound
}

// EncodedObjectSize implements storer.EncodedObjectStorer.
func (r objectReader) EncodedObjectSize(h plumbing.Hash) (int64, error) {
	obj, err := r.s.encodedObject(plumbing.AnyObject, h)
	if err != nil {
		return 0, err
	}
	return obj.Size(), nil
}
