package store

import (
	"encoding/binary"
	"errors"
	"fmt"
	"maps"
	"slices"

	"agent/internal/repomap"
)

// The repo map cache stores each file's repomap.FileTags in a compact
// binary form: a version byte, then every field in declaration order,
// strings as uvarint length + bytes, integers as varints, slices and the
// Refs map as a count followed by their elements (Refs sorted by key, so
// equal tags encode to equal bytes). Measured on GOROOT/src (5.6k files) it
// is about half the size of gob and decodes several times faster, which is
// what a warm start pays for (docs/benchmarks.md).
//
// TestRepomapCodecCoversFileTags fails when repomap.FileTags, Tag or Route
// gains a field: extend encode/decode and bump tagsCodecVersion then.
// Rows of another version decode as a miss and are re-parsed.

const tagsCodecVersion = 2 // 2: Generated

var errTagsCodec = errors.New("repomap cache: malformed tags")

func encodeTags(t *repomap.FileTags) []byte {
	n := 16 + len(t.Lang) + len(t.Engine) + len(t.Skipped) + len(t.Package)
	for _, d := range t.Defs {
		n += 12 + len(d.Name) + len(d.Kind) + len(d.Signature) + len(d.Parent)
	}
	for k := range t.Refs {
		n += 3 + len(k)
	}
	for _, s := range t.Imports {
		n += 2 + len(s)
	}
	b := make([]byte, 0, n)
	b = append(b, tagsCodecVersion)
	str := func(s string) {
		b = binary.AppendUvarint(b, uint64(len(s)))
		b = append(b, s...)
	}
	num := func(v int) { b = binary.AppendVarint(b, int64(v)) }
	str(t.Lang)
	str(t.Engine)
	str(t.Skipped)
	str(t.Package)
	var flags byte
	if t.Main {
		flags |= 1
	}
	if t.Generated {
		flags |= 2
	}
	b = append(b, flags)
	num(len(t.Defs))
	for _, d := range t.Defs {
		str(d.Name)
		str(d.Kind)
		num(d.Line)
		str(d.Signature)
		str(d.Parent)
		num(d.Depth)
	}
	num(len(t.Refs))
	for _, k := range slices.Sorted(maps.Keys(t.Refs)) {
		str(k)
		num(t.Refs[k])
	}
	num(len(t.Imports))
	for _, s := range t.Imports {
		str(s)
	}
	num(len(t.Routes))
	for _, r := range t.Routes {
		num(r.Line)
		str(r.Pattern)
		str(r.Call)
	}
	return b
}

// decodeTags is the inverse of encodeTags. Its strings share one copy of
// data rather than one allocation each.
func decodeTags(data []byte) (*repomap.FileTags, error) {
	if len(data) == 0 || data[0] != tagsCodecVersion {
		return nil, fmt.Errorf("%w: unknown version", errTagsCodec)
	}
	s := string(data) // one copy; every field below slices it
	i := 1
	bad := false
	num := func() int {
		v, n := binary.Varint(data[i:])
		if n <= 0 {
			bad = true
			return 0
		}
		i += n
		return int(v)
	}
	count := func() int {
		v := num()
		if v < 0 || v > len(data)-i {
			bad = true // every element takes at least one byte
			return 0
		}
		return v
	}
	str := func() string {
		l, n := binary.Uvarint(data[i:])
		if n <= 0 || l > uint64(len(data)-i-n) {
			bad = true
			return ""
		}
		i += n
		out := s[i : i+int(l)]
		i += int(l)
		return out
	}
	t := &repomap.FileTags{Lang: str(), Engine: str(), Skipped: str(), Package: str()}
	if i >= len(data) {
		return nil, fmt.Errorf("%w: truncated", errTagsCodec)
	}
	if data[i] > 3 {
		return nil, fmt.Errorf("%w: unknown flags", errTagsCodec)
	}
	t.Main, t.Generated = data[i]&1 != 0, data[i]&2 != 0
	i++
	if n := count(); n > 0 {
		t.Defs = make([]repomap.Tag, n)
		for j := range t.Defs {
			d := &t.Defs[j]
			d.Name, d.Kind, d.Line, d.Signature, d.Parent, d.Depth = str(), str(), num(), str(), str(), num()
			if bad {
				break
			}
		}
	}
	if n := count(); n > 0 && !bad {
		t.Refs = make(map[string]int, n)
		for range n {
			k := str()
			t.Refs[k] = num()
			if bad {
				break
			}
		}
	}
	if n := count(); n > 0 && !bad {
		t.Imports = make([]string, n)
		for j := range t.Imports {
			t.Imports[j] = str()
		}
	}
	if n := count(); n > 0 && !bad {
		t.Routes = make([]repomap.Route, n)
		for j := range t.Routes {
			r := &t.Routes[j]
			r.Line, r.Pattern, r.Call = num(), str(), str()
		}
	}
	if bad || i != len(data) {
		return nil, fmt.Errorf("%w: truncated or trailing bytes", errTagsCodec)
	}
	return t, nil
}
