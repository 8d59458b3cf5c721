package repomap

import (
	"context"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// Issue 11, scope 7: struct fields, interface methods and generated files
// are indexed for lookup. A request naming a field brings the file that
// defines its type; an identifier defined only in a generated file brings
// that file; generated files stay out of the map otherwise.

// wideDef is one identifier of the wide oracle and what kind of
// definition it is.
type wideDef struct {
	name, file, kind string // kind: field, imethod, generated, decl
}

// wideOracle lists, with go/ast, every definition of the Go files under
// root (tests left out): declarations, struct fields, interface methods,
// generated files included; it returns those defined in exactly one file.
func wideOracle(t *testing.T, root string) []wideDef {
	t.Helper()
	files := map[string]map[string]string{} // name -> file -> kind
	add := func(name, file, kind string) {
		if name == "_" {
			return
		}
		if files[name] == nil {
			files[name] = map[string]string{}
		}
		if _, ok := files[name][file]; !ok || kind != "decl" {
			files[name][file] = kind
		}
	}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if p != root && skipOracleDir(d.Name()) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(token.NewFileSet(), p, nil, parser.ParseComments|parser.SkipObjectResolution)
		if err != nil {
			return nil
		}
		rel, _ := filepath.Rel(root, p)
		rel = filepath.ToSlash(rel)
		gen := ast.IsGenerated(f)
		kind := func(k string) string {
			if gen {
				return "generated"
			}
			return k
		}
		for _, decl := range f.Decls {
			switch d := decl.(type) {
			case *ast.FuncDecl:
				add(d.Name.Name, rel, kind("decl"))
			case *ast.GenDecl:
				for _, s := range d.Specs {
					switch s := s.(type) {
					case *ast.TypeSpec:
						add(s.Name.Name, rel, kind("decl"))
						switch tt := s.Type.(type) {
						case *ast.StructType:
							for _, fl := range tt.Fields.List {
								for _, n := range fl.Names {
									add(n.Name, rel, kind("field"))
								}
							}
						case *ast.InterfaceType:
							for _, m := range tt.Methods.List {
								for _, n := range m.Names {
									add(n.Name, rel, kind("imethod"))
								}
							}
						}
					case *ast.ValueSpec:
						for _, n := range s.Names {
							add(n.Name, rel, kind("decl"))
						}
					}
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	var out []wideDef
	for name, fs := range files {
		if len(fs) != 1 || len(name) < 4 {
			continue
		}
		for f, k := range fs {
			out = append(out, wideDef{name, f, k})
		}
	}
	slices.SortFunc(out, func(a, b wideDef) int { return strings.Compare(a.name+"\x00"+a.file, b.name+"\x00"+b.file) })
	return out
}

// spaced picks n evenly spaced items of defs of the given kind.
func spaced(defs []wideDef, kind string, n int) []wideDef {
	var of []wideDef
	for _, d := range defs {
		if d.kind == kind {
			of = append(of, d)
		}
	}
	if len(of) <= n {
		return of
	}
	out := make([]wideDef, 0, n)
	for i := range n {
		out = append(out, of[i*len(of)/n])
	}
	return out
}

// TestWideLookupNetHTTP samples 30 identifiers of GOROOT/src/net/http
// defined in exactly one file: 12 struct fields, 5 interface methods (all
// there are), 7 identifiers of generated files (h2_bundle.go and the like)
// and 6 other declarations, and asks for a 1,024-token map naming each. The defining
// file must be in the map with the identifier in its text.
func TestWideLookupNetHTTP(t *testing.T) {
	root := filepath.Join(goroot(), "src", "net", "http")
	if _, err := os.Stat(root); err != nil {
		t.Skip("no net/http sources")
	}
	defs := wideOracle(t, root)
	var sample []wideDef
	for _, k := range []struct {
		kind string
		n    int
	}{{"field", 12}, {"imethod", 5}, {"generated", 7}, {"decl", 6}} {
		got := spaced(defs, k.kind, k.n)
		if len(got) < k.n {
			t.Fatalf("only %d %s identifiers defined once in net/http", len(got), k.kind)
		}
		sample = append(sample, got...)
	}
	b := new(Builder)
	cache := NewMemCache()
	hits := 0
	var misses []string
	for _, d := range sample {
		m, err := b.Build(context.Background(), Options{Root: root, Tokens: 1024, Cache: cache,
			Query: "How does " + d.name + " work? I need to change " + d.name + "."})
		if err != nil {
			t.Fatal(err)
		}
		if m.Tokens > 1024 {
			t.Errorf("map for %s has %d tokens", d.name, m.Tokens)
		}
		if fileIn(m, d.file) != nil && strings.Contains(m.Text, d.name) {
			hits++
		} else {
			misses = append(misses, d.kind+" "+d.name+" ("+d.file+")")
		}
	}
	t.Logf("net/http: %d of %d found (12 fields, 5 interface methods, 7 generated, 6 declarations)", hits, len(sample))
	if len(misses) > 0 {
		t.Errorf("not found: %s", strings.Join(misses, ", "))
	}
}

// TestFieldBringsItsType: the example. A request naming the
// Transport field ReadBufferSize maps transport.go with Transport's
// declaration shown around the field.
func TestFieldBringsItsType(t *testing.T) {
	root := filepath.Join(goroot(), "src", "net", "http")
	if _, err := os.Stat(filepath.Join(root, "transport.go")); err != nil {
		t.Skip("no net/http sources")
	}
	m, err := Build(context.Background(), Options{Root: root, Tokens: 1024, Query: "Why is ReadBufferSize ignored?"})
	if err != nil {
		t.Fatal(err)
	}
	f := fileIn(m, "transport.go")
	if f == nil {
		t.Fatalf("transport.go is not in the map for ReadBufferSize:\n%s", m.Text)
	}
	if !slices.ContainsFunc(f.Symbols, func(s Symbol) bool { return s.Name == "ReadBufferSize" && s.Kind == "field" }) {
		t.Errorf("transport.go shows %+v, want the field ReadBufferSize", f.Symbols)
	}
	if !strings.Contains(m.Text, "type Transport struct") {
		t.Errorf("the field is shown without its type:\n%s", m.Text)
	}
}

// TestGeneratedFilesLookupOnly: the demo's server/gen.go ("Code generated
// ... DO NOT EDIT.") is in no map, however large, unless the request
// names what it defines; then it is.
func TestGeneratedFilesLookupOnly(t *testing.T) {
	dir := writeDemo(t)
	b := new(Builder)
	for _, q := range []string{"", "how are widgets served?", "what does Handle do?"} {
		m, err := b.Build(context.Background(), Options{Root: dir, Tokens: 8000, Query: q})
		if err != nil {
			t.Fatal(err)
		}
		if f := fileIn(m, "server/gen.go"); f != nil || strings.Contains(m.Text, "func Generated") {
			t.Errorf("query %q: the generated file is in the map:\n%s", q, m.Text)
		}
		if m.Stats.Generated != 1 {
			t.Errorf("query %q: stats %+v, want 1 generated file", q, m.Stats)
		}
	}
	m, err := b.Build(context.Background(), Options{Root: dir, Tokens: 1024, Query: "what calls Generated?"})
	if err != nil {
		t.Fatal(err)
	}
	f := fileIn(m, "server/gen.go")
	if f == nil || !slices.ContainsFunc(f.Symbols, func(s Symbol) bool { return s.Name == "Generated" }) {
		t.Fatalf("a request naming Generated does not show server/gen.go:\n%s", m.Text)
	}
}

// TestGeneratedOnlyIdentifierNetHTTP: an identifier defined only in
// h2_bundle.go brings it.
func TestGeneratedOnlyIdentifierNetHTTP(t *testing.T) {
	root := filepath.Join(goroot(), "src", "net", "http")
	if _, err := os.Stat(filepath.Join(root, "h2_bundle.go")); err != nil {
		t.Skip("no h2_bundle.go")
	}
	m, err := Build(context.Background(), Options{Root: root, Tokens: 1024, Query: "What does http2ConfigureServer do?"})
	if err != nil {
		t.Fatal(err)
	}
	if fileIn(m, "h2_bundle.go") == nil || !strings.Contains(m.Text, "func http2ConfigureServer(") {
		t.Fatalf("h2_bundle.go is not in the map for http2ConfigureServer:\n%s", m.Text)
	}
	plain, err := Build(context.Background(), Options{Root: root, Tokens: 4096, Query: "how does the server handle a request?"})
	if err != nil {
		t.Fatal(err)
	}
	if fileIn(plain, "h2_bundle.go") != nil {
		t.Errorf("h2_bundle.go is in a map whose request names nothing it defines:\n%s", plain.Text)
	}
}

// TestBuilderRefreshParsesOnlyTheChange: a Builder's second build of a
// tree reads nothing from the cache and parses only the edited file.
func TestBuilderRefreshParsesOnlyTheChange(t *testing.T) {
	dir := writeDemo(t)
	cache := &countingCache{MemCache: NewMemCache()}
	b := new(Builder)
	if _, err := b.Build(context.Background(), Options{Root: dir, Cache: cache}); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, "server", "util.go")
	if err := os.WriteFile(p, []byte(demoFiles["server/util.go"]+"\nfunc FreshlyAdded() {}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cache.gets = 0
	m, err := b.Build(context.Background(), Options{Root: dir, Cache: cache, Query: "what does FreshlyAdded do?"})
	if err != nil {
		t.Fatal(err)
	}
	if m.Stats.Parsed != 1 || cache.gets != 1 {
		t.Errorf("refresh: stats %+v, %d cache reads; want 1 parsed and 1 read (the changed file)", m.Stats, cache.gets)
	}
	if !strings.Contains(m.Text, "func FreshlyAdded()") {
		t.Errorf("the edit is not in the refreshed map:\n%s", m.Text)
	}
}

type countingCache struct {
	*MemCache
	gets int
}

func (c *countingCache) Get(path string, size, mtimeNs int64) (*FileTags, bool) {
	c.gets++
	return c.MemCache.Get(path, size, mtimeNs)
}
