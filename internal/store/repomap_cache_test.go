package store

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"agent/internal/repomap"
)

var cacheRepo = map[string]string{
	"go.mod": "module example.com/shop\n\ngo 1.26\n",
	"cart/cart.go": `package cart

// Cart holds items.
type Cart struct{ Items []Item }

// Item is one line of a cart.
type Item struct {
	SKU   string
	Price int
}

// Total sums the prices.
func (c *Cart) Total() int {
	n := 0
	for _, it := range c.Items {
		n += it.Price
	}
	return n
}
`,
	"cart/discount.go": `package cart

// ApplyDiscount lowers every price.
func ApplyDiscount(c *Cart, pct int) {
	for i := range c.Items {
		c.Items[i].Price -= c.Items[i].Price * pct / 100
	}
}
`,
	"cmd/shop/main.go": `package main

import "example.com/shop/cart"

func main() {
	c := &cart.Cart{}
	cart.ApplyDiscount(c, 10)
	println(c.Total())
}
`,
	"tools/report.py": `import json


class Report:
    def render(self, cart):
        return json.dumps(cart)


def main():
    print(Report().render({}))
`,
}

func writeTree(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, body := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// buildOnce opens the store and the cache as a new process would, builds
// the map through them and closes the store.
func buildOnce(t *testing.T, home, root string) *repomap.Map {
	t.Helper()
	ctx := context.Background()
	s, err := Open(ctx, home)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	c, err := s.RepomapCache(ctx, root)
	if err != nil {
		t.Fatal(err)
	}
	m, err := repomap.Build(ctx, repomap.Options{Root: root, Cache: c, Tokens: 1024, Query: "how is ApplyDiscount computed?"})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func cachedPaths(t *testing.T, home, root string) []string {
	t.Helper()
	s, err := Open(context.Background(), home)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	rows, err := s.DB().Query(`SELECT path FROM repomap_tags WHERE root = ? ORDER BY path`, root)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var p string
		if err := rows.Scan(&p); err != nil {
			t.Fatal(err)
		}
		out = append(out, p)
	}
	return out
}

func TestRepomapCacheWarmRunParsesOnlyChanges(t *testing.T) {
	root := writeTree(t, cacheRepo)
	root, _ = filepath.EvalSymlinks(root)
	home := filepath.Join(t.TempDir(), "state")
	const sources = 4

	cold := buildOnce(t, home, root)
	if cold.Stats.Files != sources || cold.Stats.Parsed != sources || cold.Stats.Cached != 0 {
		t.Fatalf("cold run stats = %+v, want %d files all parsed", cold.Stats, sources)
	}
	want := []string{"cart/cart.go", "cart/discount.go", "cmd/shop/main.go", "tools/report.py"}
	if got := cachedPaths(t, home, root); !slices.Equal(got, want) {
		t.Fatalf("rows after the cold run = %q, want %q (relative to the root)", got, want)
	}

	warm := buildOnce(t, home, root)
	if warm.Stats.Parsed != 0 || warm.Stats.Cached != sources {
		t.Fatalf("warm run stats = %+v, want 0 parsed, %d cached", warm.Stats, sources)
	}
	if warm.Text != cold.Text {
		t.Fatalf("warm map differs from the cold one:\n--- cold\n%s--- warm\n%s", cold.Text, warm.Text)
	}

	// Edit one file: only it is parsed again, and the map shows the edit.
	disc := filepath.Join(root, "cart", "discount.go")
	src := cacheRepo["cart/discount.go"] + "\n// ApplyCoupon takes a fixed amount off.\nfunc ApplyCoupon(c *Cart, amount int) {}\n"
	if err := os.WriteFile(disc, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	edited := buildOnce(t, home, root)
	if edited.Stats.Parsed != 1 || edited.Stats.Cached != sources-1 {
		t.Fatalf("after editing one file stats = %+v, want 1 parsed, %d cached", edited.Stats, sources-1)
	}
	if !strings.Contains(edited.Text, "func ApplyCoupon(c *Cart, amount int)") {
		t.Fatalf("the edited file's new function is not in the map:\n%s", edited.Text)
	}
	if again := buildOnce(t, home, root); again.Stats.Parsed != 0 {
		t.Fatalf("the edit was not saved: next run parsed %d", again.Stats.Parsed)
	}

	// Delete one file: its row goes at the next flush.
	if err := os.Remove(filepath.Join(root, "tools", "report.py")); err != nil {
		t.Fatal(err)
	}
	if m := buildOnce(t, home, root); m.Stats.Files != sources-1 || m.Stats.Parsed != 0 {
		t.Fatalf("after deleting one file stats = %+v", m.Stats)
	}
	if got := cachedPaths(t, home, root); slices.Contains(got, "tools/report.py") || len(got) != sources-1 {
		t.Fatalf("rows after deleting tools/report.py = %q", got)
	}
}

func TestRepomapCacheSharesTagsAndSeparatesRoots(t *testing.T) {
	ctx := context.Background()
	s, err := Open(ctx, filepath.Join(t.TempDir(), "state"))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	a, b := writeTree(t, cacheRepo), writeTree(t, map[string]string{"x.go": "package x\n\nfunc X() {}\n"})
	ca, err := s.RepomapCache(ctx, a)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := repomap.Build(ctx, repomap.Options{Root: a, Cache: ca}); err != nil {
		t.Fatal(err)
	}
	if ca.Len() != 4 {
		t.Fatalf("cache of %s holds %d files, want 4", a, ca.Len())
	}
	key := filepath.Join(ca.Root(), "cart", "cart.go")
	fi, err := os.Stat(key)
	if err != nil {
		t.Fatal(err)
	}
	ca2, err := s.RepomapCache(ctx, a)
	if err != nil {
		t.Fatal(err)
	}
	t1, ok1 := ca2.Get(key, fi.Size(), fi.ModTime().UnixNano())
	t2, ok2 := ca2.Get(key, fi.Size(), fi.ModTime().UnixNano())
	// The cache keeps no tags in memory (the Builder does): each Get reads
	// the row again, and the two decode alike.
	if !ok1 || !ok2 || !reflect.DeepEqual(t1, t2) || len(t1.Defs) == 0 {
		t.Fatalf("two Gets of an unchanged file: ok %v %v, equal %v; want the file's tags twice", ok1, ok2, reflect.DeepEqual(t1, t2))
	}
	if _, ok := ca2.Get(key, fi.Size()+1, fi.ModTime().UnixNano()); ok {
		t.Fatal("Get with another size hit")
	}
	cb, err := s.RepomapCache(ctx, b)
	if err != nil {
		t.Fatal(err)
	}
	if cb.Len() != 0 {
		t.Fatalf("a new root sees %d rows of another root", cb.Len())
	}
}

// A flush with nothing to write must not take the write lock: a warm run
// then never waits on, or blocks, a run journaling in another process.
func TestRepomapCacheWarmFlushWritesNothing(t *testing.T) {
	ctx := context.Background()
	home := filepath.Join(t.TempDir(), "state")
	root := writeTree(t, cacheRepo)
	buildOnce(t, home, root)

	s, err := Open(ctx, home)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	c, err := s.RepomapCache(ctx, root)
	if err != nil {
		t.Fatal(err)
	}
	other, err := Open(ctx, home)
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	tx, err := other.DB().BeginTx(ctx, nil) // _txlock=immediate: holds the write lock
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()

	bctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	m, err := repomap.Build(bctx, repomap.Options{Root: root, Cache: c})
	if err != nil {
		t.Fatalf("warm build while another connection holds the write lock: %v", err)
	}
	if m.Stats.Parsed != 0 {
		t.Fatalf("warm build parsed %d files", m.Stats.Parsed)
	}
	// A Put must be written, so it waits for the lock: give up soon.
	fctx, cancel2 := context.WithTimeout(ctx, 300*time.Millisecond)
	defer cancel2()
	c.Put(filepath.Join(c.Root(), "cart", "cart.go"), 1, 1, &repomap.FileTags{Lang: "go", Engine: "go/1"})
	if err := c.FlushContext(fctx); err == nil {
		t.Fatal("flushing a Put succeeded while another connection held the write lock")
	}
	tx.Rollback()
	if err := c.FlushContext(ctx); err != nil {
		t.Fatalf("the failed flush's rows were not kept for the next one: %v", err)
	}
	if got := cachedPaths(t, home, c.Root()); len(got) != 4 {
		t.Fatalf("rows = %q", got)
	}
}

func TestRepomapCodecRoundTrip(t *testing.T) {
	in := &repomap.FileTags{
		Lang: "go", Engine: "go/1", Skipped: "", Package: "cart", Main: true, Generated: true,
		Defs: []repomap.Tag{
			{Name: "Cart", Kind: "type", Line: 4, Signature: "type Cart struct", Depth: 0},
			{Name: "Total", Kind: "method", Line: 13, Signature: "func (c *Cart) Total() int", Parent: "Cart", Depth: 1},
			{Name: "ünïcode", Kind: "func", Line: 1 << 20, Signature: strings.Repeat("x", 300)},
		},
		Refs:    map[string]int{"Cart": 3, ".Price": 2, "example.com/shop/cart.Item": 1},
		Imports: []string{"fmt", "example.com/shop/cart"},
		Routes:  []repomap.Route{{Line: 9, Pattern: "/cart", Call: "HandleFunc"}},
	}
	data := encodeTags(in)
	out, err := decodeTags(data)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(in, out) {
		t.Fatalf("round trip:\n in %+v\nout %+v", in, out)
	}
	if !bytes.Equal(encodeTags(out), data) {
		t.Fatal("encoding is not deterministic")
	}
	// Every truncation and a trailing byte must fail cleanly, never panic.
	for n := range len(data) {
		if _, err := decodeTags(data[:n]); err == nil {
			t.Fatalf("decoding the first %d of %d bytes succeeded", n, len(data))
		}
	}
	if _, err := decodeTags(append(slices.Clone(data), 0)); err == nil {
		t.Fatal("decoding with a trailing byte succeeded")
	}
	bad := slices.Clone(data)
	bad[0] = tagsCodecVersion + 1
	if _, err := decodeTags(bad); err == nil {
		t.Fatal("decoding another version succeeded")
	}
	empty, err := decodeTags(encodeTags(&repomap.FileTags{Lang: "python", Engine: "line/1", Skipped: "generated"}))
	if err != nil || empty.Skipped != "generated" || empty.Defs != nil || empty.Refs != nil {
		t.Fatalf("empty tags: %+v, %v", empty, err)
	}
}

// The codec writes the fields it knows by hand; a field added to the
// engine's types must be added to encodeTags/decodeTags (and
// tagsCodecVersion bumped), or the cache would silently drop it.
func TestRepomapCodecCoversFileTags(t *testing.T) {
	for _, c := range []struct {
		v    any
		want []string
	}{
		{repomap.FileTags{}, []string{"Lang", "Engine", "Skipped", "Generated", "Package", "Main", "Defs", "Refs", "Imports", "Routes"}},
		{repomap.Tag{}, []string{"Name", "Kind", "Line", "Signature", "Parent", "Depth"}},
		{repomap.Route{}, []string{"Line", "Pattern", "Call"}},
	} {
		typ := reflect.TypeOf(c.v)
		var got []string
		for f := range typ.Fields() {
			if f.IsExported() {
				got = append(got, f.Name)
			}
		}
		if !slices.Equal(got, c.want) {
			t.Errorf("repomap.%s has exported fields %q; the cache codec knows %q: update internal/store/repomap_codec.go and bump tagsCodecVersion", typ.Name(), got, c.want)
		}
	}
}
