package repomap

import (
	"bytes"
	"context"
	"math/rand/v2"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// TestSnapshotUnredactedFilesWrittenAsHeld: a redactor that changes
// nothing in a file lets the encoder write the file as the index holds it
// (no rebuild through redactTags); the bytes must be exactly those of the
// rebuild, and those of an encoding without a redactor. A redactor that
// changes a file's fields still rebuilds it (the secret never reaches the
// bytes).
func TestSnapshotUnredactedFilesWrittenAsHeld(t *testing.T) {
	dir := writeDemo(t)
	var b Builder
	if _, err := b.Build(context.Background(), Options{Root: dir}); err != nil {
		t.Fatal(err)
	}
	root, _ := filepath.EvalSymlinks(dir)
	ri := b.roots[root]
	encode := func(ri *rootIndex, red func(string) string) []byte {
		t.Helper()
		var buf bytes.Buffer
		if err := encodeSnapshot(&buf, b.in, root, ri, &b.history, red); err != nil {
			t.Fatal(err)
		}
		return buf.Bytes()
	}
	identity := func(s string) string { return strings.Clone(s) }
	rebuilt := &rootIndex{layout: ri.layout, files: map[string]*fileEntry{}}
	for p, e := range ri.files {
		cp := *e
		if e.info.Skipped == "" {
			cp.info = redactTags(e.info, identity) // what the encoder did for every file
		}
		rebuilt.files[p] = &cp
	}
	plain, fast, slow := encode(ri, nil), encode(ri, identity), encode(rebuilt, nil)
	if !bytes.Equal(plain, fast) || !bytes.Equal(plain, slow) {
		t.Fatalf("snapshot bytes differ: no redactor %d bytes, identity redactor %d, rebuilt files %d", len(plain), len(fast), len(slow))
	}
	// a redactor that hides part of the methods' signatures: those files
	// are rebuilt
	if !bytes.Contains(plain, []byte("func (")) {
		t.Fatal("the demo has no method to redact")
	}
	red := func(s string) string { return strings.ReplaceAll(s, "func (", "[REDACTED]") }
	got := encode(ri, red)
	if bytes.Contains(got, []byte("func (")) || !bytes.Contains(got, []byte("[REDACTED]")) {
		t.Fatal("a redacted name reached the snapshot, or the redaction is missing")
	}
}

// TestSortedScopedMatchesComparison: the packed sort of the scoped table
// orders exactly as cmpScoped does, with base entries and map entries, and
// falls back when a field does not fit its bits.
func TestSortedScopedMatchesComparison(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 24))
	for _, big := range []bool{false, true} {
		in := newInterner(1)
		seen := map[[2]int32]bool{}
		for i := range 5000 {
			k := [2]int32{rng.Int32N(300), rng.Int32N(4000)}
			if big && i == 77 {
				k[1] = 1<<21 + 5 // does not fit: the comparison sort
			}
			if seen[k] {
				continue
			}
			seen[k] = true
			if i%3 == 0 {
				in.base.scoped = append(in.base.scoped, scopedEntry{k[0], k[1], int32(i)})
			} else {
				in.scoped[k] = int32(i)
			}
		}
		slices.SortFunc(in.base.scoped, cmpScoped)
		want := slices.Clone(in.base.scoped)
		for k, v := range in.scoped {
			want = append(want, scopedEntry{k[0], k[1], v})
		}
		slices.SortFunc(want, cmpScoped)
		if got := sortedScoped(in); !reflect.DeepEqual(got, want) {
			t.Fatalf("big=%v: sortedScoped differs from the comparison sort (%d entries, %d wanted)", big, len(got), len(want))
		}
	}
}

// TestSortedKeysMatchesFullKeyOrder: the merged sort of bare names and
// members orders the key indices exactly as cmpFull orders the full keys
// ("." + name for a member), with names around "." in byte order.
func TestSortedKeysMatchesFullKeyOrder(t *testing.T) {
	rng := rand.New(rand.NewPCG(24, 6))
	alpha := []string{"", "a", "b", "-", "/", "A", "_", "é", "z", "0"}
	seen := map[string]bool{}
	var keys []string
	var dot []bool
	for len(keys) < 1500 {
		var b strings.Builder
		for range rng.IntN(5) {
			b.WriteString(alpha[rng.IntN(len(alpha))])
		}
		s, d := b.String(), rng.IntN(3) == 0
		if full := map[bool]string{true: ".", false: ""}[d] + s; !seen[full] {
			seen[full] = true
			keys, dot = append(keys, s), append(dot, d)
		}
	}
	want := make([]int32, len(keys))
	for i := range want {
		want[i] = int32(i)
	}
	slices.SortFunc(want, func(a, b int32) int { return cmpFull(keys[a], dot[a], keys[b], dot[b]) })
	if got := sortedKeys(keys, dot); !slices.Equal(got, want) {
		t.Fatal("sortedKeys differs from the order of cmpFull")
	}
}
