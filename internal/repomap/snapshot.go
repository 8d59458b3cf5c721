package repomap

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
)

// A snapshot is one root's index as a Builder holds it — the identifier
// table, and per file its key (size, mtime), slim tags and interned form —
// written in one file so that a new process's first build reads it in one
// pass instead of decoding and interning every file's cache row. The
// build then patches it: a file whose key changed since the snapshot is
// taken from the cache (Get) or parsed, exactly as in a long-lived
// Builder. The snapshot is rewritten only when there is none yet or when
// enough files were patched (snapshotPatchLimit), so a warm run with a few
// edits writes one cache row per edited file and no snapshot.
//
// Everything a snapshot holds passes through the store's redaction first
// (SnapshotStore.SnapshotRedactor): signatures, route patterns and package
// names whole; imports, identifiers (defined or referenced), parents and
// package paths of 16 bytes or more — what the app redacts in a cache row,
// and the definitions' names besides.

// ErrSnapshotsOff is what a SnapshotStore's ReadSnapshot returns when the
// store keeps no snapshot for this cache: the Builder then neither reads
// nor encodes one.
var ErrSnapshotsOff = errors.New("repomap: snapshots are off for this cache")

// SnapshotStore is implemented by caches that can keep one snapshot per
// root. ReadSnapshot returns the snapshot's bytes, which the Builder then
// keeps and the store must not reuse (fs.ErrNotExist when there is none,
// ErrSnapshotsOff when snapshots are off). WriteSnapshot replaces it
// atomically with what write writes; an error from write leaves the old
// one. SnapshotRedactor returns the function applied to the text a
// snapshot persists (see the comment above), nil when there is nothing to
// hide.
type SnapshotStore interface {
	ReadSnapshot(ctx context.Context) ([]byte, error)
	WriteSnapshot(ctx context.Context, write func(io.Writer) error) error
	SnapshotRedactor() func(string) string
}

// snapshotStale says whether the build that just ran should rewrite the
// root's snapshot: there is none, enough files were patched, or the git
// history moved (a new HEAD: its recency would be read again by every
// process).
func (b *Builder) snapshotStale(root string, ri *rootIndex, files int) bool {
	switch ri.snap {
	case snapMissing:
		return true
	case snapSynced:
		key, _ := b.history.lastOf(root)
		return ri.patched >= snapshotPatchLimit(files) || key != ri.histKey
	}
	return false
}

// snapshotPatchLimit is how many files a Builder may patch into a root's
// index (changed, new or gone since the snapshot it read or wrote) before
// the next build rewrites the snapshot.
func snapshotPatchLimit(files int) int { return max(64, files/32) }

// snapState says how a root's index relates to its snapshot.
type snapState uint8

const (
	snapUnknown snapState = iota // not read yet
	snapSynced                   // the snapshot holds the index, but for ri.patched files
	snapMissing                  // no usable snapshot: write one
	snapOff                      // the cache keeps none
)

// snapshotEngine names what a snapshot's content depends on besides its
// own format: the extractors and the interning rules. Bump indexVersion
// when compile or compact change what they produce.
func snapshotEngine() string {
	const indexVersion = "index/1"
	return strings.Join([]string{indexVersion, goEngine, otherEngine}, " ")
}

// readSnapshot fills ri (empty, its Builder's table unused) from the
// snapshot of root, if one is readable and matches root, layout and
// engine. Anything else — no snapshot, another version, a damaged or
// truncated file — leaves the Builder as it was and marks the snapshot
// missing, so that this build writes a new one.
func (b *Builder) readSnapshot(ctx context.Context, ss SnapshotStore, root, layout string, ri *rootIndex) {
	data, err := ss.ReadSnapshot(ctx)
	if errors.Is(err, ErrSnapshotsOff) {
		ri.snap = snapOff
		return
	}
	ri.snap = snapMissing
	if err != nil {
		return
	}
	if len(ri.files) > 0 || (b.in != nil && b.in.n() > 0) {
		return // the table already holds names a snapshot's ids would clash with
	}
	gen := uint64(1)
	if b.in != nil {
		gen = b.in.gen + 1
	}
	snap, err := decodeSnapshot(data, gen)
	if err != nil || snap.root != root || snap.layout != layout {
		return
	}
	b.in = snap.in
	ri.files = snap.files
	ri.snap, ri.patched, ri.histKey = snapSynced, 0, snap.histKey
	if snap.histKey != "" {
		b.history.restore(root, snap.histKey, snap.recent)
	}
}

// writeSnapshot encodes ri and the Builder's table and hands them to ss.
func (b *Builder) writeSnapshot(ctx context.Context, ss SnapshotStore, root string, ri *rootIndex) error {
	err := ss.WriteSnapshot(ctx, func(w io.Writer) error {
		return encodeSnapshot(w, b.in, root, ri, &b.history, ss.SnapshotRedactor())
	})
	if err != nil {
		return fmt.Errorf("repomap: save snapshot: %w", err)
	}
	ri.snap, ri.patched = snapSynced, 0
	ri.histKey, _ = b.history.lastOf(root)
	return nil
}

// redactTags applies red to the fields a cache row would have redacted.
func redactTags(fi *fileInfo, red func(string) string) *fileInfo {
	t := &FileTags{Lang: fi.Lang, Engine: fi.Engine, Skipped: fi.Skipped, Generated: fi.Generated, Main: fi.Main,
		Package: red(fi.Package), Defs: make([]Tag, len(fi.defs))}
	for i := range fi.defs {
		d := &fi.defs[i]
		t.Defs[i] = Tag{Name: redactLong(fi.name(d), red), Kind: fi.kind(d), Line: int(d.line), Signature: red(fi.sig(d)),
			Parent: redactLong(fi.parent(d), red), Depth: int(d.depth)}
	}
	for _, imp := range fi.Imports {
		t.Imports = append(t.Imports, redactLong(imp, red))
	}
	for _, r := range fi.Routes {
		t.Routes = append(t.Routes, Route{Line: r.Line, Pattern: red(r.Pattern), Call: r.Call})
	}
	return compact(t)
}

// redactsNothing reports whether red leaves every field redactTags would
// redact as it is: the file is then written as the index holds it
// (redactTags would only rebuild the same fileInfo).
func redactsNothing(fi *fileInfo, red func(string) string) bool {
	if red(fi.Package) != fi.Package {
		return false
	}
	for i := range fi.defs {
		d := &fi.defs[i]
		if sig := fi.sig(d); red(sig) != sig {
			return false
		}
		if n := fi.name(d); redactLong(n, red) != n {
			return false
		}
		if p := fi.parent(d); redactLong(p, red) != p {
			return false
		}
	}
	for _, imp := range fi.Imports {
		if redactLong(imp, red) != imp {
			return false
		}
	}
	for _, r := range fi.Routes {
		if red(r.Pattern) != r.Pattern {
			return false
		}
	}
	return true
}

// redactLong redacts s when it is long enough to hold a secret; shorter
// identifiers are tokens, not keys (as the cache rows treat them).
func redactLong(s string, red func(string) string) string {
	if len(s) >= 16 {
		return red(s)
	}
	return s
}

// sortedKeys returns the key indices sorted by full key.
// Bare names and members are sorted apart, each by a plain comparison of
// (string, index) pairs held together, and then merged: a third of the
// time of sorting indices through cmpFull.
func sortedKeys(keys []string, dot []bool) []int32 {
	type key struct {
		s string
		i int32
	}
	var bare, member []key
	for i, s := range keys {
		if dot[i] {
			member = append(member, key{s, int32(i)})
		} else {
			bare = append(bare, key{s, int32(i)})
		}
	}
	byName := func(a, b key) int { return strings.Compare(a.s, b.s) }
	slices.SortFunc(bare, byName)
	slices.SortFunc(member, byName)
	idx := make([]int32, 0, len(keys))
	for len(bare) > 0 && len(member) > 0 {
		if cmpFull(bare[0].s, false, member[0].s, true) <= 0 {
			idx, bare = append(idx, bare[0].i), bare[1:]
		} else {
			idx, member = append(idx, member[0].i), member[1:]
		}
	}
	for _, k := range bare {
		idx = append(idx, k.i)
	}
	for _, k := range member {
		idx = append(idx, k.i)
	}
	return idx
}

// cmpFull compares two keys as interned: a bare name, or "." + name when
// dot is set (without building that string).
func cmpFull(a string, da bool, b string, db bool) int {
	switch {
	case da == db:
		return strings.Compare(a, b)
	case db:
		return -cmpFull(b, db, a, da)
	}
	// "." + a against b
	if b == "" {
		return 1
	}
	if c := cmp.Compare('.', b[0]); c != 0 {
		return c
	}
	return strings.Compare(a, b[1:])
}
