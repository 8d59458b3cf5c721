package checkpoint

import (
	"bytes"
	"compress/zlib"
	"crypto/rand"
	"crypto/sha1"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/format/idxfile"
	"github.com/go-git/go-git/v5/plumbing/format/packfile"
)

// Objects live in packs, git's own format: objects/pack/pack-<sum>.pack
// holds them zlib-compressed one after another (no deltas) and
// pack-<sum>.idx, beside it, maps each object id to its offset. A flush of
// the pending objects writes one pack: both files are built in memory,
// written under temporary names (objects/pack/tmp_idx_*, tmp_pack_*),
// fdatasynced, renamed into place (the index first: git reads a pack only
// through its index and skips an index whose pack is missing; go-git and
// this package list the packs, so a pack is visible only once its index
// is there), and the directory is fsynced once. A crash leaves a
// temporary file at worst, never a torn pack under a real name; a pack
// whose files do not agree with each other (truncated, or its index
// missing) is ignored when packs are loaded (see loadPack).
//
// A pack per checkpoint keeps the repository readable by git at every
// moment, at the cost of many small packs: past maxPacks, the smallest are
// merged into one (mergePacks), and prune rewrites the reachable objects
// into fresh packs, which is how a deleted run's space is reclaimed.

const (
	// maxPendingBytes bounds the compressed size of a pending pack; a
	// bigger batch is written as several packs.
	maxPendingBytes = 32 << 20
	// maxPacks is how many packs a repository may hold before a flush
	// merges the smallest (down to keepPacks, see mergePlan).
	maxPacks  = 16
	keepPacks = 6
	// packFileMode: packs are read-only, as git makes them (owner only).
	packFileMode fs.FileMode = 0o400
)

// packObject is one object of a pack being built or loaded.
type packObject struct {
	h   plumbing.Hash
	off int64
	crc uint32
}

// pendingPack is a pack being built in memory: the 12-byte header (its
// count filled in by finish), then each object's entry.
type pendingPack struct {
	buf  []byte
	objs []packObject
	idx  map[plumbing.Hash]struct{}
	zbuf bytes.Buffer
}

// zlibWriters are reused: a compressor's state is ~800 KB to allocate and
// clear, more than compressing a small object costs. They compress at
// BestSpeed (git reads any level): resetting and running the default
// level took 4x the CPU (190 against 45 µs for a 1.7 KB tree here) for a
// few percent of space. A commit or tree under smallObject bytes is stored
// in zlib's uncompressed blocks (storedWriters): under 1 µs against 20 µs,
// for at most a few hundred bytes more per object. Blobs are compressed at
// the default level (blobWriters), which Huffman-codes text even when it is
// short, so a file's text (a .env's values) does not lie in the pack byte
// for byte as in a stored block (e2e TestNoSecretInPlainTextAnywhere).
var zlibWriters, storedWriters, blobWriters sync.Pool

// smallObject is the size under which an object is stored uncompressed.
const smallObject = 512

func newPendingPack() *pendingPack {
	return &pendingPack{buf: make([]byte, 12, 4096), idx: map[plumbing.Hash]struct{}{}}
}

func (p *pendingPack) has(h plumbing.Hash) bool {
	_, ok := p.idx[h]
	return ok
}

func (p *pendingPack) len() int { return len(p.objs) }

// entryHeader appends a pack entry's type and size header.
func entryHeader(b []byte, t plumbing.ObjectType, size int64) []byte {
	c := byte(t)<<4 | byte(size&0x0f)
	size >>= 4
	for size > 0 {
		b = append(b, c|0x80)
		c = byte(size & 0x7f)
		size >>= 7
	}
	return append(b, c)
}

// add appends data, an object of type t whose id is h.
func (p *pendingPack) add(t plumbing.ObjectType, data []byte, h plumbing.Hash) error {
	if p.has(h) {
		return nil
	}
	p.zbuf.Reset()
	pool, level := &zlibWriters, zlib.BestSpeed
	switch {
	case t == plumbing.BlobObject:
		// a file's bytes: BestSpeed writes a short block of them as a
		// stored block, byte for byte (a .env's values in plain text)
		pool, level = &blobWriters, zlib.DefaultCompression
	case len(data) < smallObject:
		pool, level = &storedWriters, zlib.NoCompression
	}
	zw, _ := pool.Get().(*zlib.Writer)
	if zw == nil {
		zw, _ = zlib.NewWriterLevel(&p.zbuf, level)
	} else {
		zw.Reset(&p.zbuf)
	}
	_, err := zw.Write(data)
	if e := zw.Close(); err == nil {
		err = e
	}
	pool.Put(zw)
	if err != nil {
		return fmt.Errorf("compress object %s: %w", h, err)
	}
	off := len(p.buf)
	p.buf = entryHeader(p.buf, t, int64(len(data)))
	p.buf = append(p.buf, p.zbuf.Bytes()...)
	p.addRaw(h, off)
	return nil
}

// addRaw records the entry that starts at off and ends at the end of buf.
func (p *pendingPack) addRaw(h plumbing.Hash, off int) {
	p.objs = append(p.objs, packObject{h: h, off: int64(off), crc: crc32.ChecksumIEEE(p.buf[off:])})
	p.idx[h] = struct{}{}
}

// finish completes the pack (header count, trailing checksum) and returns
// it, its checksum and its encoded index.
func (p *pendingPack) finish() (pack []byte, sum plumbing.Hash, idx *idxfile.MemoryIndex, idxData []byte, err error) {
	copy(p.buf[0:4], "PACK")
	binary.BigEndian.PutUint32(p.buf[4:8], 2)
	binary.BigEndian.PutUint32(p.buf[8:12], uint32(len(p.objs)))
	sum = plumbing.Hash(sha1.Sum(p.buf))
	pack = append(p.buf, sum[:]...)
	w := new(idxfile.Writer)
	_ = w.OnHeader(uint32(len(p.objs)))
	for _, o := range p.objs {
		w.Add(o.h, uint64(o.off), o.crc)
	}
	if err := w.OnFooter(sum); err != nil {
		return nil, sum, nil, nil, err
	}
	if idx, err = w.Index(); err != nil {
		return nil, sum, nil, nil, err
	}
	var ib bytes.Buffer
	if _, err := idxfile.NewEncoder(&ib).Encode(idx); err != nil {
		return nil, sum, nil, nil, err
	}
	return pack, sum, idx, ib.Bytes(), nil
}

// packFile is a pack this process reads: its index in memory and the pack
// kept open (a pack another process merges away stays readable).
type packFile struct {
	sum   plumbing.Hash
	idx   *idxfile.MemoryIndex
	f     *os.File
	size  int64
	count int
	// durable: the pack's name is known to be on disk (this process wrote
	// it, or fsynced the directory after finding it).
	durable bool
	gp      *packfile.Packfile // for delta entries (a pack git itself wrote)
	offs    []int64            // sorted entry offsets, for entry ends
}

// packSet is every pack of the repository this process knows.
type packSet struct {
	dir    string // <gitDir>/objects/pack
	sy     *syncer
	packs  map[plumbing.Hash]*packFile
	loaded bool
	// bad: pack files that failed validation (name → size), skipped until
	// they change.
	bad map[string]int64
	// checking: packs found by hasObject whose name is made durable by the
	// next flush.
	checking []*packFile
	// sawBad: a pack failed validation since the Store last looked (it
	// drops the caches that may name the pack's objects).
	sawBad bool
}

func newPackSet(gitDir string, sy *syncer) *packSet {
	return &packSet{dir: filepath.Join(gitDir, "objects", "pack"), sy: sy, packs: map[plumbing.Hash]*packFile{}, bad: map[string]int64{}}
}

func packName(sum plumbing.Hash, ext string) string { return "pack-" + sum.String() + "." + ext }

// refresh loads the packs that appeared since the last call and drops the
// ones that are gone.
func (ps *packSet) refresh() error {
	ents, err := os.ReadDir(ps.dir)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("checkpoint: list packs: %w", err)
	}
	ps.loaded = true
	seen := map[plumbing.Hash]bool{}
	for _, e := range ents {
		n := e.Name()
		if !strings.HasPrefix(n, "pack-") || !strings.HasSuffix(n, ".pack") || len(n) != len("pack-")+40+len(".pack") {
			continue
		}
		hx := n[5 : 5+40]
		if !plumbing.IsHash(hx) {
			continue
		}
		sum := plumbing.NewHash(hx)
		seen[sum] = true
		if ps.packs[sum] != nil {
			continue
		}
		pf, err := ps.load(sum)
		if err != nil {
			continue // gone meanwhile, or invalid (recorded in bad)
		}
		ps.packs[sum] = pf
	}
	for sum, pf := range ps.packs {
		if !seen[sum] {
			pf.close()
			delete(ps.packs, sum)
		}
	}
	return nil
}

// errBadPack: a pack's files do not agree (a torn or truncated file, or
// an index of another pack); the pack is ignored.
var errBadPack = errors.New("invalid pack")

// load opens and validates one pack: its index is whole (its own checksum
// matches) and names this pack, the pack has git's header with the
// index's count and ends with the checksum the index records, and every
// offset lies inside it. It does not hash the whole pack: packs appear
// only by rename after their data was synced, so a pack that passes
// these checks is the one that was written.
func (ps *packSet) load(sum plumbing.Hash) (*packFile, error) {
	pp := filepath.Join(ps.dir, packName(sum, "pack"))
	f, err := os.Open(pp)
	if err != nil {
		return nil, err
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	if sz, ok := ps.bad[pp]; ok && sz == fi.Size() {
		f.Close()
		return nil, errBadPack
	}
	pf, err := validatePack(f, fi.Size(), filepath.Join(ps.dir, packName(sum, "idx")), sum)
	if err != nil {
		f.Close()
		if errors.Is(err, errBadPack) {
			ps.bad[pp] = fi.Size()
			ps.sawBad = true
		}
		return nil, err
	}
	return pf, nil
}

func validatePack(f *os.File, size int64, idxPath string, sum plumbing.Hash) (*packFile, error) {
	raw, err := os.ReadFile(idxPath)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("%w: %s has no index", errBadPack, filepath.Base(f.Name()))
	}
	if err != nil {
		return nil, err
	}
	if len(raw) < 8+256*4+40 || sha1.Sum(raw[:len(raw)-20]) != [20]byte(raw[len(raw)-20:]) {
		return nil, fmt.Errorf("%w: index %s is torn", errBadPack, filepath.Base(idxPath))
	}
	idx := idxfile.NewMemoryIndex()
	if err := idxfile.NewDecoder(bytes.NewReader(raw)).Decode(idx); err != nil {
		return nil, fmt.Errorf("%w: index %s: %v", errBadPack, filepath.Base(idxPath), err)
	}
	if idx.PackfileChecksum != sum {
		return nil, fmt.Errorf("%w: index %s names another pack", errBadPack, filepath.Base(idxPath))
	}
	n, _ := idx.Count()
	var hdr [12]byte
	var trailer [20]byte
	if size < 32 {
		return nil, fmt.Errorf("%w: %s is truncated", errBadPack, filepath.Base(f.Name()))
	}
	if _, err := f.ReadAt(hdr[:], 0); err != nil {
		return nil, fmt.Errorf("%w: %s: %v", errBadPack, filepath.Base(f.Name()), err)
	}
	if _, err := f.ReadAt(trailer[:], size-20); err != nil {
		return nil, fmt.Errorf("%w: %s: %v", errBadPack, filepath.Base(f.Name()), err)
	}
	if string(hdr[:4]) != "PACK" || binary.BigEndian.Uint32(hdr[8:]) != uint32(n) || plumbing.Hash(trailer) != sum {
		return nil, fmt.Errorf("%w: %s is torn or truncated", errBadPack, filepath.Base(f.Name()))
	}
	offs, err := entryOffsets(idx)
	if err != nil {
		return nil, fmt.Errorf("%w: index %s: %v", errBadPack, filepath.Base(idxPath), err)
	}
	if len(offs) > 0 && (offs[0] < 12 || offs[len(offs)-1] >= size-20) {
		return nil, fmt.Errorf("%w: %s is truncated", errBadPack, filepath.Base(f.Name()))
	}
	return &packFile{sum: sum, idx: idx, f: f, size: size, count: int(n), offs: offs}, nil
}

func entryOffsets(idx *idxfile.MemoryIndex) ([]int64, error) {
	it, err := idx.Entries()
	if err != nil {
		return nil, err
	}
	defer it.Close()
	var offs []int64
	for {
		e, err := it.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
		offs = append(offs, int64(e.Offset))
	}
	sort.Slice(offs, func(i, j int) bool { return offs[i] < offs[j] })
	return offs, nil
}

func (pf *packFile) close() {
	if pf.f != nil {
		_ = pf.f.Close()
	}
}

// find returns the pack holding h and its offset there.
func (ps *packSet) find(h plumbing.Hash) (*packFile, int64) {
	for _, pf := range ps.packs {
		if off, err := pf.idx.FindOffset(h); err == nil {
			return pf, off
		}
	}
	return nil, 0
}

// ensureLoaded loads the packs the first time they are needed.
func (ps *packSet) ensureLoaded() error {
	if ps.loaded {
		return nil
	}
	return ps.refresh()
}

// closeAll closes every pack.
func (ps *packSet) closeAll() {
	for sum, pf := range ps.packs {
		pf.close()
		delete(ps.packs, sum)
	}
	ps.loaded = false
	ps.checking = nil
}

// entryEnd is where the entry at off ends (the next entry, or the
// trailing checksum).
func (pf *packFile) entryEnd(off int64) int64 {
	i := sort.Search(len(pf.offs), func(i int) bool { return pf.offs[i] > off })
	if i < len(pf.offs) {
		return pf.offs[i]
	}
	return pf.size - 20
}

// readEntryHeader parses the type and size header of the entry at off.
func (pf *packFile) readEntryHeader(off int64) (t plumbing.ObjectType, size int64, hlen int, err error) {
	var b [16]byte
	n, err := pf.f.ReadAt(b[:], off)
	if n == 0 && err != nil {
		return 0, 0, 0, err
	}
	t, size, hlen, ok := parseEntryHeader(b[:n])
	if !ok {
		return 0, 0, 0, fmt.Errorf("pack %s: bad entry header at %d", pf.sum, off)
	}
	return t, size, hlen, nil
}

// parseEntryHeader parses the type and size header that starts a pack
// entry in b (git's format: 3 type bits, then the size 4 bits and 7 bits a
// byte, low first); hlen is its length.
func parseEntryHeader(b []byte) (t plumbing.ObjectType, size int64, hlen int, ok bool) {
	if len(b) == 0 {
		return 0, 0, 0, false
	}
	c := b[0]
	t = plumbing.ObjectType((c >> 4) & 7)
	size = int64(c & 0x0f)
	shift, i := 4, 1
	for c&0x80 != 0 {
		if i >= len(b) || shift > 56 {
			return 0, 0, 0, false
		}
		c = b[i]
		size |= int64(c&0x7f) << shift
		shift += 7
		i++
	}
	return t, size, i, true
}

// object reads the object at off. Entries this package writes are whole
// objects; a delta (in a pack git wrote, after a `git gc` of the shadow
// repository) is resolved by go-git's pack reader.
func (pf *packFile) object(off int64) (plumbing.EncodedObject, error) {
	t, size, hlen, err := pf.readEntryHeader(off)
	if err != nil {
		return nil, err
	}
	if t == plumbing.OFSDeltaObject || t == plumbing.REFDeltaObject {
		if pf.gp == nil {
			pf.gp = packfile.NewPackfile(pf.idx, nil, billyFile{pf.f}, 0)
		}
		return pf.gp.GetByOffset(off)
	}
	if !t.Valid() {
		return nil, fmt.Errorf("pack %s: entry at %d has type %d", pf.sum, off, t)
	}
	zr, err := zlib.NewReader(io.NewSectionReader(pf.f, off+int64(hlen), pf.entryEnd(off)-off-int64(hlen)))
	if err != nil {
		return nil, fmt.Errorf("pack %s: entry at %d: %w", pf.sum, off, err)
	}
	defer zr.Close()
	data := make([]byte, size)
	if _, err := io.ReadFull(zr, data); err != nil {
		return nil, fmt.Errorf("pack %s: entry at %d: %w", pf.sum, off, err)
	}
	obj := &plumbing.MemoryObject{}
	obj.SetType(t)
	_, _ = obj.Write(data)
	return obj, nil
}

// rawEntry returns the bytes of the entry at off when it is a whole object
// (it can be copied into another pack as is), or nil for a delta.
func (pf *packFile) rawEntry(off int64) ([]byte, error) {
	t, _, _, err := pf.readEntryHeader(off)
	if err != nil {
		return nil, err
	}
	if t == plumbing.OFSDeltaObject || t == plumbing.REFDeltaObject {
		return nil, nil
	}
	b := make([]byte, pf.entryEnd(off)-off)
	if _, err := pf.f.ReadAt(b, off); err != nil {
		return nil, err
	}
	return b, nil
}

// billyFile adapts an *os.File to the billy.File go-git's pack reader
// wants (it only reads).
type billyFile struct{ *os.File }

func (billyFile) Lock() error   { return nil }
func (billyFile) Unlock() error { return nil }

// tempName is a fresh temporary name in dir.
func tempName(dir, prefix string) string {
	var b [8]byte
	_, _ = rand.Read(b[:])
	return filepath.Join(dir, prefix+hex.EncodeToString(b[:]))
}

// writeTemp writes data to a new read-only temporary file in dir and
// fdatasyncs it; the file is returned open.
func (ps *packSet) writeTemp(prefix string, data []byte) (*os.File, error) {
	name := tempName(ps.dir, prefix)
	f, err := os.OpenFile(name, os.O_RDWR|os.O_CREATE|os.O_EXCL, packFileMode)
	if err != nil && errors.Is(err, fs.ErrNotExist) {
		if err = ps.sy.mkdirAll(ps.dir); err == nil {
			f, err = os.OpenFile(name, os.O_RDWR|os.O_CREATE|os.O_EXCL, packFileMode)
		}
	}
	if err != nil {
		return nil, err
	}
	if _, err = f.Write(data); err == nil {
		err = ps.sy.syncData(f, name)
	}
	if err != nil {
		_ = f.Close()
		_ = os.Remove(name)
		return nil, err
	}
	return f, nil
}

// write makes p a pack on disk, durable (its files synced, renamed into
// place, the directory synced) when it returns, and adds it to the set.
func (ps *packSet) write(p *pendingPack) (*packFile, error) {
	pack, sum, idx, idxData, err := p.finish()
	if err != nil {
		return nil, fmt.Errorf("checkpoint: build pack: %w", err)
	}
	if pf := ps.packs[sum]; pf != nil {
		return pf, nil // the same objects, already a pack
	}
	fi, err := ps.writeTemp("tmp_idx_", idxData)
	if err != nil {
		return nil, fmt.Errorf("checkpoint: write pack index: %w", err)
	}
	_ = fi.Close()
	fp, err := ps.writeTemp("tmp_pack_", pack)
	if err != nil {
		_ = os.Remove(fi.Name())
		return nil, fmt.Errorf("checkpoint: write pack: %w", err)
	}
	// The index first: a pack is listed by its .pack file.
	for _, mv := range [][2]string{{fi.Name(), packName(sum, "idx")}, {fp.Name(), packName(sum, "pack")}} {
		to := filepath.Join(ps.dir, mv[1])
		if err := os.Rename(mv[0], to); err != nil {
			_ = fp.Close()
			_ = os.Remove(fi.Name())
			_ = os.Remove(fp.Name())
			return nil, fmt.Errorf("checkpoint: write pack: %w", err)
		}
		ps.sy.note(syncEvent{Op: opRename, Path: mv[0], To: to})
	}
	ps.sy.markDirty(ps.dir)
	if err := ps.sy.syncDirs(); err != nil {
		_ = fp.Close()
		return nil, fmt.Errorf("checkpoint: write pack: %w", err)
	}
	offs := make([]int64, len(p.objs))
	for i, o := range p.objs {
		offs[i] = o.off
	}
	pf := &packFile{sum: sum, idx: idx, f: fp, size: int64(len(pack)), count: len(p.objs), durable: true, offs: offs}
	ps.packs[sum] = pf
	return pf, nil
}

// remove deletes packs from disk (the .pack first: an index without its
// pack is skipped by every reader) and from the set.
func (ps *packSet) remove(pfs []*packFile) error {
	var first error
	for _, pf := range pfs {
		for _, ext := range []string{"pack", "idx"} {
			if err := os.Remove(filepath.Join(ps.dir, packName(pf.sum, ext))); err != nil && !errors.Is(err, fs.ErrNotExist) && first == nil {
				first = err
			}
		}
		pf.close()
		delete(ps.packs, pf.sum)
	}
	if len(pfs) > 0 {
		ps.sy.markDirty(ps.dir)
	}
	return first
}

// mergePlan picks the packs to merge when there are more than maxPacks:
// the smallest ones, enough to leave keepPacks, and further while the next
// one is smaller than twice what is merged already, so packs grow
// geometrically and an object is rewritten O(log n) times.
func mergePlan(packs []*packFile) []*packFile {
	if len(packs) <= maxPacks {
		return nil
	}
	sorted := append([]*packFile(nil), packs...)
	sort.Slice(sorted, func(i, j int) bool {
		if sorted[i].size != sorted[j].size {
			return sorted[i].size < sorted[j].size
		}
		return sorted[i].sum.String() < sorted[j].sum.String()
	})
	k := len(sorted) - keepPacks
	var cum int64
	for _, pf := range sorted[:k] {
		cum += pf.size
	}
	for k < len(sorted) && sorted[k].size < 2*cum {
		cum += sorted[k].size
		k++
	}
	return sorted[:k]
}

// copyInto adds every object of pf that out does not hold yet (whole
// entries copied as they are; a delta resolved and compressed again).
// keep, if not nil, says which objects to copy.
func (pf *packFile) copyInto(out *pendingPack, keep func(plumbing.Hash) bool) error {
	it, err := pf.idx.EntriesByOffset()
	if err != nil {
		return err
	}
	defer it.Close()
	for {
		e, err := it.Next()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		if out.has(e.Hash) || (keep != nil && !keep(e.Hash)) {
			continue
		}
		raw, err := pf.rawEntry(int64(e.Offset))
		if err != nil {
			return err
		}
		if raw == nil {
			obj, err := pf.object(int64(e.Offset))
			if err != nil {
				return err
			}
			data, err := readAllObject(obj)
			if err != nil {
				return err
			}
			if err := out.add(obj.Type(), data, e.Hash); err != nil {
				return err
			}
			continue
		}
		off := len(out.buf)
		out.buf = append(out.buf, raw...)
		out.addRaw(e.Hash, off)
	}
}

func readAllObject(obj plumbing.EncodedObject) ([]byte, error) {
	r, err := obj.Reader()
	if err != nil {
		return nil, err
	}
	defer r.Close()
	return io.ReadAll(r)
}

// sortedPacks lists the set's packs in a stable order.
func (ps *packSet) sortedPacks() []*packFile {
	out := make([]*packFile, 0, len(ps.packs))
	for _, pf := range ps.packs {
		out = append(out, pf)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].sum.String() < out[j].sum.String() })
	return out
}

// merge rewrites the packs of plan as one (or a few, past
// maxPendingBytes), durable before the old ones are removed. Two
// processes merging the same packs write the same bytes under the same
// name; a reader holding a merged pack open keeps reading it.
func (ps *packSet) merge(plan []*packFile) error {
	if len(plan) < 2 {
		return nil
	}
	out := newPendingPack()
	made := map[plumbing.Hash]bool{}
	for _, pf := range plan {
		if err := pf.copyInto(out, nil); err != nil {
			return fmt.Errorf("checkpoint: merge packs: %w", err)
		}
		if len(out.buf) >= maxPendingBytes {
			np, err := ps.write(out)
			if err != nil {
				return err
			}
			made[np.sum] = true
			out = newPendingPack()
		}
	}
	if out.len() > 0 {
		np, err := ps.write(out)
		if err != nil {
			return err
		}
		made[np.sum] = true
	}
	var old []*packFile
	for _, pf := range plan {
		if !made[pf.sum] {
			old = append(old, pf)
		}
	}
	if err := ps.remove(old); err != nil {
		return fmt.Errorf("checkpoint: merge packs: %w", err)
	}
	return nil
}

// mergeIfMany merges the smallest packs when there are more than maxPacks
// (packs other processes wrote since we last looked count too).
func (ps *packSet) mergeIfMany() error {
	if plan := mergePlan(ps.sortedPacks()); plan == nil {
		return nil
	}
	if err := ps.refresh(); err != nil {
		return err
	}
	return ps.merge(mergePlan(ps.sortedPacks()))
}
