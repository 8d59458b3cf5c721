package repomap

import (
	"fmt"
	"go/parser"
	"go/token"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// diffTags describes how a differs from b, "" when they are the same.
func diffTags(a, b *FileTags) string {
	var out []string
	if a.Package != b.Package || a.Main != b.Main || a.Lang != b.Lang || a.Engine != b.Engine {
		out = append(out, fmt.Sprintf("head %q/%v vs %q/%v", a.Package, a.Main, b.Package, b.Main))
	}
	if !slices.Equal(a.Imports, b.Imports) {
		out = append(out, fmt.Sprintf("imports %q vs %q", a.Imports, b.Imports))
	}
	if !slices.Equal(a.Defs, b.Defs) {
		for i := range max(len(a.Defs), len(b.Defs)) {
			var x, y Tag
			if i < len(a.Defs) {
				x = a.Defs[i]
			}
			if i < len(b.Defs) {
				y = b.Defs[i]
			}
			if x != y {
				out = append(out, fmt.Sprintf("def %d: %+v vs %+v", i, x, y))
				break
			}
		}
	}
	if !maps.Equal(a.Refs, b.Refs) {
		var d []string
		for k, n := range a.Refs {
			if b.Refs[k] != n {
				d = append(d, fmt.Sprintf("%s %d/%d", k, n, b.Refs[k]))
			}
		}
		for k, n := range b.Refs {
			if _, ok := a.Refs[k]; !ok {
				d = append(d, fmt.Sprintf("%s 0/%d", k, n))
			}
		}
		slices.Sort(d)
		out = append(out, "refs "+strings.Join(d[:min(len(d), 8)], ", "))
	}
	if !reflect.DeepEqual(a.Routes, b.Routes) {
		out = append(out, fmt.Sprintf("routes %+v vs %+v", a.Routes, b.Routes))
	}
	return strings.Join(out, "; ")
}

// parsedWhole is parseGo's reading of a file go/parser reads without a
// syntax error.
func parsedWhole(name string, src []byte) (*FileTags, bool) {
	if _, err := parser.ParseFile(token.NewFileSet(), name, src, parser.SkipObjectResolution); err != nil {
		return nil, false
	}
	t, err := parseGo(name, src)
	return t, err == nil
}

// TestScanGoMatchesParser holds the fast path to go/parser's reading on
// every Go file of GOROOT/src (testdata included: it holds odd syntax):
// wherever scanGo answers, its tags are parseGo's, and it answers for
// nearly every file.
func TestScanGoMatchesParser(t *testing.T) {
	if raceEnabled {
		t.Skip("race detector on: make test runs this comparison in its pure-Go pass (CGO_ENABLED=0 go test ./internal/repomap/...)")
	}
	root := goroot()
	if root == "" {
		t.Skip("no go command")
	}
	var files, fast, bad int
	var fellBack []string
	err := filepath.WalkDir(filepath.Join(root, "src"), func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".go") {
			return nil
		}
		src, err := os.ReadFile(p)
		if err != nil || len(src) > maxFileSize {
			return nil
		}
		want, ok := parsedWhole(p, src)
		if !ok {
			return nil // go/parser's partial trees are not a reference
		}
		got, ok := scanGo(src, true)
		inTestdata := strings.Contains(p, "/testdata/")
		files++
		if !ok {
			if !inTestdata {
				fellBack = append(fellBack, p)
			}
			return nil
		}
		fast++
		if d := diffTags(got, want); d != "" {
			bad++
			if bad <= 15 {
				t.Errorf("%s: %s", p, d)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if bad > 0 {
		t.Errorf("%d of %d files differ", bad, fast)
	}
	t.Logf("%d files parse without error; scanGo read %d, fell back on %d outside testdata: %v", files, fast, len(fellBack), fellBack[:min(len(fellBack), 20)])
	if len(fellBack) > files/100 {
		t.Errorf("scanGo fell back on %d of %d files", len(fellBack), files)
	}
}

// TestScanGoNeverPanics feeds scanGo every prefix-truncation and a few
// byte flips of a real file: it answers or declines, never panics, and
// what it answers for a file go/parser reads whole is go/parser's.
func TestScanGoNeverPanics(t *testing.T) {
	src := []byte(goSample)
	for cut := range len(src) {
		scanGo(src[:cut], true)
	}
	for i := range src {
		for _, b := range []byte{'{', '}', '(', ')', '"', '`', '\n', '.', '/', '*', '['} {
			mut := slices.Clone(src)
			mut[i] = b
			got, ok := scanGo(mut, true)
			if !ok {
				continue
			}
			if want, ok := parsedWhole("x.go", mut); ok {
				if d := diffTags(got, want); d != "" {
					t.Fatalf("byte %d set to %q: %s", i, b, d)
				}
			}
		}
	}
}
