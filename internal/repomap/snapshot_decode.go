package repomap

import (
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"math"
	"path/filepath"
	"unsafe"
)

// snapReader reads a snapshot held whole in memory. Strings and, on a
// little-endian machine, the arrays of ids, weights and definitions are
// views of that memory rather than copies: reading a snapshot costs one
// allocation of its size and a pass of checks. Its first error sticks and
// every later read returns zeros.
type snapReader struct {
	b      []byte
	at     int
	err    error
	native bool // arrays can be viewed in place
}

// sdefPacked says that sdef's memory layout is the snapshot's 28 bytes.
const sdefPacked = unsafe.Sizeof(sdef{}) == 28 && unsafe.Offsetof(sdef{}.sigAt) == 4 &&
	unsafe.Offsetof(sdef{}.kindAt) == 16 && unsafe.Offsetof(sdef{}.sigN) == 20 &&
	unsafe.Offsetof(sdef{}.parN) == 24 && unsafe.Offsetof(sdef{}.kindN) == 26 && unsafe.Offsetof(sdef{}.depth) == 27

func (r *snapReader) fail(what string) {
	if r.err == nil {
		r.err = fmt.Errorf("%w: %s", errSnapshot, what)
	}
}

func (r *snapReader) take(n int) []byte {
	if r.err != nil {
		return nil
	}
	if n < 0 || n > len(r.b)-r.at {
		r.fail("truncated")
		return nil
	}
	p := r.b[r.at : r.at+n : r.at+n]
	r.at += n
	return p
}

func (r *snapReader) u8() uint8 {
	if p := r.take(1); p != nil {
		return p[0]
	}
	return 0
}

func (r *snapReader) u32() uint32 {
	if p := r.take(4); p != nil {
		return binary.LittleEndian.Uint32(p)
	}
	return 0
}

func (r *snapReader) i32() int32 { return int32(r.u32()) }

func (r *snapReader) i64() int64 {
	if p := r.take(8); p != nil {
		return int64(binary.LittleEndian.Uint64(p))
	}
	return 0
}

// count reads a count of elements of size bytes each, bounded by what is
// left.
func (r *snapReader) count(size int) int {
	n := int(r.u32())
	if n > (len(r.b)-r.at)/size {
		r.fail("count past the end")
		return 0
	}
	return n
}

func (r *snapReader) str() string {
	n := r.count(1)
	p := r.take(n)
	if len(p) == 0 {
		return ""
	}
	return unsafe.String(&p[0], n)
}

// align skips the writer's padding to a multiple of 4 bytes.
func (r *snapReader) align() { r.take((4 - r.at%4) % 4) }

// words returns n 4-byte words: a view when the machine allows it.
func (r *snapReader) words(n int) ([]byte, bool) {
	r.align()
	p := r.take(4 * n)
	if len(p) == 0 {
		return nil, false
	}
	return p, r.native && uintptr(unsafe.Pointer(&p[0]))%4 == 0
}

// i32sN reads n int32s, each in [0, limit).
func (r *snapReader) i32sN(n int, limit int32) []int32 {
	p, view := r.words(n)
	if p == nil {
		return nil
	}
	var out []int32
	if view {
		out = unsafe.Slice((*int32)(unsafe.Pointer(&p[0])), n)
	} else {
		out = make([]int32, n)
		for j := range out {
			out[j] = int32(binary.LittleEndian.Uint32(p[4*j:]))
		}
	}
	for _, v := range out {
		if v < 0 || v >= limit {
			r.fail("index out of range")
			return nil
		}
	}
	return out
}

func (r *snapReader) i32s(limit int32) []int32 { return r.i32sN(r.count(4), limit) }

func (r *snapReader) f32s(n int) []float32 {
	p, view := r.words(n)
	if p == nil {
		return nil
	}
	if view {
		return unsafe.Slice((*float32)(unsafe.Pointer(&p[0])), n)
	}
	out := make([]float32, n)
	for j := range out {
		out[j] = math.Float32frombits(binary.LittleEndian.Uint32(p[4*j:]))
	}
	return out
}

// sdefs reads n definitions of 28 bytes.
func (r *snapReader) sdefs(n int) []sdef {
	p, view := r.words(7 * n)
	if p == nil {
		return nil
	}
	if view && sdefPacked {
		return unsafe.Slice((*sdef)(unsafe.Pointer(&p[0])), n)
	}
	out := make([]sdef, n)
	le := binary.LittleEndian
	for i := range out {
		q := p[28*i : 28*i+28]
		out[i] = sdef{line: int32(le.Uint32(q)), sigAt: le.Uint32(q[4:]), nameAt: le.Uint32(q[8:]), parAt: le.Uint32(q[12:]),
			kindAt: le.Uint32(q[16:]), sigN: le.Uint16(q[20:]), nameN: le.Uint16(q[22:]), parN: le.Uint16(q[24:]), kindN: q[26], depth: q[27]}
	}
	return out
}

type snapshot struct {
	root, layout string
	in           *interner
	files        map[string]*fileEntry
	histKey      string             // root and HEAD the recency was read at ("" if none)
	recent       map[string]float64 // its recency
}

// decodeSnapshot reads a snapshot written by encodeSnapshot, which data
// then backs (it must not be modified); the interner it returns has
// generation gen, as do the files' compiled forms.
func decodeSnapshot(data []byte, gen uint64) (*snapshot, error) {
	if len(data) < snapshotHeader+snapshotTrailer || string(data[:8]) != snapshotMagic {
		return nil, fmt.Errorf("%w: not a snapshot", errSnapshot)
	}
	if v := binary.LittleEndian.Uint32(data[8:]); v != snapshotFormat {
		return nil, fmt.Errorf("%w: format %d, want %d", errSnapshot, v, snapshotFormat)
	}
	end := len(data) - snapshotTrailer
	if n := binary.LittleEndian.Uint64(data[end+4:]); n != uint64(end-snapshotHeader) {
		return nil, fmt.Errorf("%w: %d payload bytes, the trailer says %d", errSnapshot, end-snapshotHeader, n)
	}
	if crc32.Checksum(data[snapshotHeader:end], castagnoli) != binary.LittleEndian.Uint32(data[end:]) {
		return nil, fmt.Errorf("%w: checksum mismatch", errSnapshot)
	}
	data = data[:end:end]
	r := &snapReader{b: data, at: snapshotHeader, native: binary.NativeEndian.Uint16([]byte{1, 0}) == 1}
	s := decodePayload(r, gen)
	if r.err != nil {
		return nil, r.err
	}
	return s, nil
}

func decodePayload(r *snapReader, gen uint64) *snapshot {
	s := &snapshot{}
	if r.str() != snapshotEngine() {
		r.fail("another engine version")
		return nil
	}
	s.root, s.layout = r.str(), r.str()
	in := decodeInterner(r, gen)
	if r.err != nil {
		return nil
	}
	s.in = in
	s.files = decodeFiles(r, s.root, in)
	s.histKey = r.str()
	n := r.count(12)
	s.recent = make(map[string]float64, n)
	for range n {
		rel := r.str()
		s.recent[rel] = math.Float64frombits(uint64(r.i64()))
	}
	if r.err == nil && r.at != len(r.b) {
		r.fail("trailing bytes")
	}
	return s
}

func decodeInterner(r *snapReader, gen uint64) *interner {
	nk := r.count(13) // offset, dot, keyID, byName per key
	blob := r.str()
	in := &interner{gen: gen, ids: map[string]int32{}, scoped: map[[2]int32]int32{}}
	offs := r.i32sN(nk+1, int32(len(blob))+1)
	if r.err != nil {
		return nil
	}
	in.keys = make([]string, nk)
	if offs[0] != 0 || offs[nk] != int32(len(blob)) {
		r.fail("bad key offsets")
		return nil
	}
	for k := range in.keys {
		if offs[k+1] < offs[k] {
			r.fail("bad key offsets")
			return nil
		}
		in.keys[k] = blob[offs[k]:offs[k+1]]
	}
	dots := r.take(nk)
	in.dot = make([]bool, nk)
	for k, v := range dots {
		if v > 1 {
			r.fail("bad flag")
			return nil
		}
		in.dot[k] = v == 1
	}
	keyID := r.i32sN(nk, math.MaxInt32)
	byName := r.i32sN(nk, int32(nk))
	nids := r.count(8)
	in.keyOf = r.i32sN(nids, int32(nk))
	in.muls = r.f32s(nids)
	if r.err != nil {
		return nil
	}
	seen := make([]bool, nk)
	for i, k := range byName {
		if seen[k] || i > 0 && in.cmpKeys(byName[i-1], k) > 0 {
			r.fail("key order")
			return nil
		}
		seen[k] = true
	}
	for k, v := range keyID {
		if int(v) >= nids || in.keyOf[v] != int32(k) {
			r.fail("key ids")
			return nil
		}
	}
	in.base.byName, in.base.keyID = byName, keyID

	np := r.count(8)
	in.pkgs = make(map[string]int32, np)
	for range np {
		p, v := r.str(), r.i32()
		if v < 0 || int(v) >= np {
			r.fail("package ids")
			return nil
		}
		in.pkgs[p] = v
	}
	if len(in.pkgs) != np {
		r.fail("package ids")
		return nil
	}
	ns := r.count(12)
	in.base.scoped = make([]scopedEntry, ns)
	for i := range in.base.scoped {
		e := scopedEntry{r.i32(), r.i32(), r.i32()}
		if e.pkg < 0 || int(e.pkg) >= np || e.bare < 0 || int(e.bare) >= nids || e.id < 0 || int(e.id) >= nids ||
			i > 0 && cmpScoped(in.base.scoped[i-1], e) >= 0 {
			r.fail("scoped ids")
			return nil
		}
		in.base.scoped[i] = e
	}
	return in
}

// cmpKeys compares key indices a and b by full key.
func (in *interner) cmpKeys(a, b int32) int {
	return cmpFull(in.keys[a], in.dot[a], in.keys[b], in.dot[b])
}

func decodeFiles(r *snapReader, root string, in *interner) map[string]*fileEntry {
	nf := r.count(40)
	nids := int32(in.n())
	files := make(map[string]*fileEntry, nf)
	entries := make([]fileEntry, nf)
	infos := make([]fileInfo, nf)
	for i := range nf {
		rel := r.str()
		e := &entries[i]
		e.size, e.mtime = r.i64(), r.i64()
		fi := &infos[i]
		fi.Lang, fi.Engine, fi.Skipped = canonWord(r.str()), canonWord(r.str()), canonWord(r.str())
		flags := r.u8()
		fi.Main, fi.Generated = flags&1 != 0, flags&2 != 0
		fi.text = r.str()
		if r.err != nil || flags > 3 || rel == "" {
			r.fail("file header")
			return nil
		}
		span := func() string {
			at, n := r.u32(), r.u32()
			if uint64(at)+uint64(n) > uint64(len(fi.text)) {
				r.fail("span out of range")
				return ""
			}
			return fi.text[at : at+n]
		}
		fi.Package = span()
		if n := r.count(8); n > 0 {
			fi.Imports = make([]string, n)
			for i := range fi.Imports {
				fi.Imports[i] = span()
			}
		}
		if n := r.count(24); n > 0 {
			fi.Routes = make([]Route, n)
			for i := range fi.Routes {
				fi.Routes[i] = Route{Line: int(r.i64()), Pattern: span(), Call: span()}
			}
		}
		fi.defs = r.sdefs(r.count(28))
		t := uint64(len(fi.text))
		for i := range fi.defs {
			d := &fi.defs[i]
			if uint64(d.sigAt)+uint64(d.sigN) > t || uint64(d.nameAt)+uint64(d.nameN) > t ||
				uint64(d.parAt)+uint64(d.parN) > t || uint64(d.kindAt)+uint64(d.kindN) > t {
				r.fail("definition out of range")
				return nil
			}
		}
		if fi.Skipped == "" {
			c := &compiled{gen: in.gen, scope: r.str()}
			c.defIDs = r.i32s(nids)
			c.udefs = r.i32s(nids)
			c.refs = r.i32s(nids)
			c.refW = r.f32s(len(c.refs))
			if len(c.defIDs) != len(fi.defs) || !increasing(c.udefs) || !increasing(c.refs) {
				r.fail("definition ids")
			}
			e.comp = c
		}
		if r.err != nil {
			return nil
		}
		e.info = fi
		abs := filepath.Join(root, filepath.FromSlash(rel))
		if _, dup := files[abs]; dup {
			r.fail("duplicate file")
			return nil
		}
		files[abs] = e
	}
	return files
}

func increasing(s []int32) bool {
	for i := 1; i < len(s); i++ {
		if s[i] <= s[i-1] {
			return false
		}
	}
	return true
}
