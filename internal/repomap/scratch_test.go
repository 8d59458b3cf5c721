package repomap

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestRecycledSourcesLeaveNoTrace: a build without a cache reads each Go
// file into a source buffer an earlier file used and scans it into the
// FileTags an earlier file filled (nothing is Put, so both are handed
// back); what the index keeps of every file — its definitions,
// signatures, imports, routes, package, interned names and their use
// counts — and
// the map must be exactly what a build that recycles nothing (a cache that
// keeps what it is given) yields. A string left pointing into a recycled
// buffer would show the bytes of a later file.
func TestRecycledSourcesLeaveNoTrace(t *testing.T) {
	dir := t.TempDir()
	for i := range 120 {
		pkg := fmt.Sprintf("p%d", i%7)
		var b strings.Builder
		fmt.Fprintf(&b, "package %s\n\nimport (\n\t\"net/http\"\n\t\"strings\"\n)\n\n", pkg)
		// sizes differ so that a buffer is reused for shorter and longer files
		for j := range 1 + (i*7)%13 {
			fmt.Fprintf(&b, "// Type%d_%d is documented.\ntype Type%d_%d struct {\n\tField%d string // %s\n}\n\n", i, j, i, j, j, strings.Repeat("x", (i*j)%50))
			fmt.Fprintf(&b, "func (t *Type%d_%d) Method%d(arg%d int) (string, error) {\n\treturn strings.Repeat(t.Field%d, arg%d), nil\n}\n\n", i, j, j, i, j, i)
		}
		fmt.Fprintf(&b, "const Name%d = %q\n\nfunc Serve%d(mux *http.ServeMux) {\n\tmux.HandleFunc(\"/route/%d/{id}\", nil)\n\t_ = Type%d_0{}\n}\n", i, strings.Repeat("v", i%40), i, i, (i+1)%120)
		p := filepath.Join(dir, pkg, fmt.Sprintf("f%03d.go", i))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	ctx := context.Background()
	build := func(cache Cache) (*Builder, *Map) {
		t.Helper()
		var b Builder
		m, err := b.Build(ctx, Options{Root: dir, Cache: cache, Workers: 2, Tokens: 8000, Query: "Serve5 Method3 /route/17"})
		if err != nil {
			t.Fatal(err)
		}
		return &b, m
	}
	recycled, mr := build(nil)
	kept, mk := build(NewMemCache())
	if mr.Text != mk.Text {
		t.Fatalf("the map differs with recycled sources:\n%s\n---- without:\n%s", mr.Text, mk.Text)
	}
	if mr.Stats.Parsed != 120 || mk.Stats.Parsed != 120 {
		t.Fatalf("parsed %d and %d files, want 120", mr.Stats.Parsed, mk.Stats.Parsed)
	}
	root, _ := filepath.EvalSymlinks(dir)
	ra, ka := recycled.roots[root], kept.roots[root]
	if ra == nil || ka == nil || len(ra.files) != 120 || len(ka.files) != 120 {
		t.Fatalf("no index of %s", root)
	}
	name := func(b *Builder, id int32) string {
		k := b.in.keyOf[id]
		if b.in.dot[k] {
			return "." + b.in.keys[k]
		}
		return b.in.keys[k]
	}
	for p, e := range ra.files {
		w := ka.files[p]
		a, x := e.info, w.info
		if a.text != x.text || a.Package != x.Package || fmt.Sprint(a.Imports) != fmt.Sprint(x.Imports) ||
			fmt.Sprint(a.Routes) != fmt.Sprint(x.Routes) || fmt.Sprint(a.defs) != fmt.Sprint(x.defs) {
			t.Errorf("%s: kept tags differ with recycled sources:\n%+v\nwithout:\n%+v", p, a, x)
		}
		if len(a.Routes) != 1 || !strings.HasPrefix(a.Routes[0].Pattern, "/route/") {
			t.Errorf("%s: routes %v, want the one registered", p, a.Routes)
		}
		var ns, nk []string
		for j, id := range e.comp.refs {
			ns = append(ns, fmt.Sprintf("%s×%g", name(recycled, id), e.comp.refW[j]))
		}
		for j, id := range w.comp.refs {
			nk = append(nk, fmt.Sprintf("%s×%g", name(kept, id), w.comp.refW[j]))
		}
		slices.Sort(ns)
		slices.Sort(nk)
		if len(ns) < 5 || fmt.Sprint(ns) != fmt.Sprint(nk) {
			t.Errorf("%s: interned references differ:\n%v\nwithout recycling:\n%v", p, ns, nk)
		}
	}
}
