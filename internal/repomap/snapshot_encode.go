package repomap

import (
	"cmp"
	"encoding/binary"
	"errors"
	"hash"
	"hash/crc32"
	"io"
	"maps"
	"math"
	"path/filepath"
	"slices"
	"strings"
	"unsafe"
)

// The snapshot's file: a 16-byte header — magic, format version — then
// the payload, then a 12-byte trailer — the payload's CRC-32C and length
// (a trailer, so that the snapshot is written in one streaming pass).
// The payload, little-endian, arrays aligned to 4 bytes:
//
//	engine, root, layout                        strings (u32 length + bytes)
//	keys: n, blob, offsets[n+1], dot[n], keyID[n], byName[n]
//	ids: n, keyOf[n], muls[n]
//	pkgs: n, (path, id)*n;  scoped: n, (pkg, bare, id)*n
//	files: n, text bytes in all, then per file (sorted by path):
//	  rel, size, mtime, lang, engine, skipped, flags, text,
//	  package span, imports (spans), routes (line, spans), defs (28 bytes
//	  each), and unless skipped: scope, defIDs, udefs, refs, refW
//
// Every count and span is checked against what remains and what it
// indexes, and the CRC over the whole payload before anything is used, so
// a damaged, truncated or foreign file is a miss (the build rebuilds and
// rewrites it), never a panic or a wrong map.

const (
	snapshotMagic   = "agentRMs"
	snapshotFormat  = 1
	snapshotHeader  = 16 // magic, format, 4 bytes reserved
	snapshotTrailer = 12 // CRC-32C of the payload, payload length
)

var errSnapshot = errors.New("repomap: malformed snapshot")

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// snapWriter streams the payload to out in chunks, hashing it.
type snapWriter struct {
	b   []byte // not yet written
	out io.Writer
	crc hash.Hash32
	off int64 // file offset of b[0]
	n   int64 // payload bytes written
	err error
}

const snapChunk = 256 << 10

// spill writes the buffer once it passes snapChunk (force: whatever it holds).
func (w *snapWriter) spill(force bool) {
	if len(w.b) == 0 || !force && len(w.b) < snapChunk {
		return
	}
	if w.err == nil {
		w.crc.Write(w.b)
		_, w.err = w.out.Write(w.b)
	}
	w.off += int64(len(w.b))
	w.n += int64(len(w.b))
	w.b = w.b[:0]
}

func (w *snapWriter) u8(v uint8)   { w.b = append(w.b, v) }
func (w *snapWriter) u32(v uint32) { w.b = binary.LittleEndian.AppendUint32(w.b, v) }
func (w *snapWriter) i32(v int32)  { w.u32(uint32(v)) }
func (w *snapWriter) i64(v int64)  { w.b = binary.LittleEndian.AppendUint64(w.b, uint64(v)) }
func (w *snapWriter) n32(v int)    { w.u32(uint32(v)) }
func (w *snapWriter) str(s string) { w.n32(len(s)); w.b = append(w.b, s...); w.spill(false) }
func (w *snapWriter) align() {
	for (w.off+int64(len(w.b)))%4 != 0 {
		w.b = append(w.b, 0)
	}
}
func (w *snapWriter) i32s(v []int32) {
	w.n32(len(v))
	w.i32a(v)
}

// i32a writes v without its count.
func (w *snapWriter) i32a(v []int32) {
	w.align()
	for _, x := range v {
		w.i32(x)
		w.spill(false)
	}
}
func (w *snapWriter) f32s(v []float32) {
	w.align()
	for _, x := range v {
		w.u32(math.Float32bits(x))
		w.spill(false)
	}
}

// encodeSnapshot writes in and the entries of ri under root to out, every
// persisted text passed through red (nil: none), a chunk at a time: a cold
// build's peak never holds the snapshot whole.
func encodeSnapshot(out io.Writer, in *interner, root string, ri *rootIndex, hist *gitHistory, red func(string) string) error {
	redacting := red != nil
	if !redacting {
		red = func(s string) string { return s }
	}
	type ent struct {
		rel string
		e   *fileEntry
	}
	var ents []ent
	prefix := root + string(filepath.Separator)
	for p, e := range ri.files {
		rel, ok := strings.CutPrefix(p, prefix)
		if !ok || e.info == nil || (e.comp == nil) != (e.info.Skipped != "") || e.comp != nil && e.comp.gen != in.gen {
			continue // not a file of this walk, or compiled with another table
		}
		ents = append(ents, ent{filepath.ToSlash(rel), e}) // redacted as written: never two copies of the index
	}
	slices.SortFunc(ents, func(a, b ent) int { return cmp.Compare(a.rel, b.rel) })

	nk := len(in.keys)
	keys := in.keys
	if redacting {
		keys = make([]string, nk)
		for k, s := range in.keys {
			keys[k] = redactLong(s, red)
		}
	}
	blobN := 0
	for _, s := range keys {
		blobN += len(s)
	}
	pkgs := slices.Sorted(maps.Keys(in.pkgs))
	key, recent := hist.lastOf(root)

	var h [snapshotHeader]byte
	copy(h[:], snapshotMagic)
	binary.LittleEndian.PutUint32(h[8:], snapshotFormat)
	if _, err := out.Write(h[:]); err != nil {
		return err
	}
	w := &snapWriter{b: make([]byte, 0, snapChunk+64<<10), out: out, crc: crc32.New(castagnoli), off: snapshotHeader}
	w.str(snapshotEngine())
	w.str(root)
	w.str(ri.layout)

	keyID := make([]int32, nk)
	copy(keyID, in.base.keyID)
	for _, v := range in.ids {
		keyID[in.keyOf[v]] = v
	}
	w.n32(nk)
	w.n32(blobN)
	for _, s := range keys {
		w.b = append(w.b, s...)
		w.spill(false)
	}
	off := 0
	w.align()
	w.n32(0)
	for _, s := range keys {
		off += len(s)
		w.n32(off)
		w.spill(false)
	}
	for _, d := range in.dot {
		w.u8(b2u(d))
	}
	w.spill(false)
	w.i32a(keyID)
	w.i32a(sortedKeys(keys, in.dot))
	w.i32s(in.keyOf)
	w.f32s(in.muls)

	w.n32(len(pkgs))
	for _, p := range pkgs {
		w.str(redactLong(p, red))
		w.i32(in.pkgs[p])
	}
	scoped := sortedScoped(in)
	w.n32(len(scoped))
	for _, e := range scoped {
		w.i32(e.pkg)
		w.i32(e.bare)
		w.i32(e.id)
		w.spill(false)
	}

	w.n32(len(ents))
	for _, x := range ents {
		fi := x.e.info
		if !spansInText(fi) || redacting && !redactsNothing(fi, red) {
			fi = redactTags(fi, red)
		}
		w.str(x.rel)
		w.i64(x.e.size)
		w.i64(x.e.mtime)
		w.str(fi.Lang)
		w.str(fi.Engine)
		w.str(fi.Skipped)
		w.u8(b2u(fi.Main) | b2u(fi.Generated)<<1)
		w.str(fi.text)
		span := func(s string) { // s is a substring of fi.text (compact made it so)
			w.n32(spanAt(fi.text, s))
			w.n32(len(s))
		}
		span(fi.Package)
		w.n32(len(fi.Imports))
		for _, s := range fi.Imports {
			span(s)
		}
		w.n32(len(fi.Routes))
		for _, r := range fi.Routes {
			w.i64(int64(r.Line))
			span(r.Pattern)
			span(r.Call)
		}
		w.n32(len(fi.defs))
		w.align()
		for _, d := range fi.defs {
			w.i32(d.line)
			w.u32(d.sigAt)
			w.u32(d.nameAt)
			w.u32(d.parAt)
			w.u32(d.kindAt)
			w.b = binary.LittleEndian.AppendUint16(w.b, d.sigN)
			w.b = binary.LittleEndian.AppendUint16(w.b, d.nameN)
			w.b = binary.LittleEndian.AppendUint16(w.b, d.parN)
			w.u8(d.kindN)
			w.u8(d.depth)
		}
		if c := x.e.comp; c != nil {
			w.str(redactLong(c.scope, red))
			w.i32s(c.defIDs)
			w.i32s(c.udefs)
			w.i32s(c.refs)
			w.f32s(c.refW)
		}
	}
	w.str(key)
	w.n32(len(recent))
	for _, rel := range slices.Sorted(maps.Keys(recent)) {
		w.str(rel)
		w.i64(int64(math.Float64bits(recent[rel])))
	}
	w.spill(true)
	var t [snapshotTrailer]byte
	binary.LittleEndian.PutUint32(t[:], w.crc.Sum32())
	binary.LittleEndian.PutUint64(t[4:], uint64(w.n))
	if w.err == nil {
		_, w.err = out.Write(t[:])
	}
	return w.err
}

// sortedScoped lists the table's scoped entries sorted by (pkg, bare): as
// packed integers when they fit (a sort without a comparison function),
// else with cmpScoped.
func sortedScoped(in *interner) []scopedEntry {
	const bits = 21 // per field: pkg, bare and id in one uint64
	fits := func(e scopedEntry) bool { return uint32(e.pkg)|uint32(e.bare)|uint32(e.id) < 1<<bits }
	packed := make([]uint64, 0, len(in.base.scoped)+len(in.scoped))
	ok := true
	add := func(e scopedEntry) {
		if ok = ok && fits(e); ok {
			packed = append(packed, uint64(e.pkg)<<(2*bits)|uint64(e.bare)<<bits|uint64(e.id))
		}
	}
	for _, e := range in.base.scoped {
		add(e)
	}
	for k, v := range in.scoped {
		add(scopedEntry{k[0], k[1], v})
	}
	if !ok {
		scoped := slices.Grow(slices.Clone(in.base.scoped), len(in.scoped))
		for k, v := range in.scoped {
			scoped = append(scoped, scopedEntry{k[0], k[1], v})
		}
		slices.SortFunc(scoped, cmpScoped)
		return scoped
	}
	slices.Sort(packed)
	scoped := make([]scopedEntry, len(packed))
	const mask = 1<<bits - 1
	for i, x := range packed {
		scoped[i] = scopedEntry{pkg: int32(x >> (2 * bits)), bare: int32(x >> bits & mask), id: int32(x & mask)}
	}
	return scoped
}

func b2u(b bool) uint8 {
	if b {
		return 1
	}
	return 0
}

// spansInText reports whether fi's package, imports and routes are
// substrings of its text, as compact and the decoder make them.
func spansInText(fi *fileInfo) bool {
	in := func(s string) bool { return len(s) == 0 || within(fi.text, s) }
	ok := in(fi.Package)
	for _, s := range fi.Imports {
		ok = ok && in(s)
	}
	for _, r := range fi.Routes {
		ok = ok && in(r.Pattern) && in(r.Call)
	}
	return ok
}

func within(text, s string) bool {
	if len(text) == 0 {
		return false
	}
	t0 := uintptr(unsafe.Pointer(unsafe.StringData(text)))
	s0 := uintptr(unsafe.Pointer(unsafe.StringData(s)))
	return s0 >= t0 && s0+uintptr(len(s)) <= t0+uintptr(len(text))
}

// spanAt is where s (a substring of text, or empty) starts in text.
func spanAt(text, s string) int {
	if len(s) == 0 {
		return 0
	}
	return int(uintptr(unsafe.Pointer(unsafe.StringData(s))) - uintptr(unsafe.Pointer(unsafe.StringData(text))))
}
