package repomap

import (
	"context"
	"os"
	"strconv"
	"testing"
	"time"
)

// TestInspectMap prints a map for manual inspection (skipped unless
// REPOMAP_ROOT is set):
//
//	REPOMAP_ROOT=dir REPOMAP_QUERY='...' REPOMAP_TOKENS=2048 go test -run InspectMap -v ./internal/repomap/
func TestInspectMap(t *testing.T) {
	root := os.Getenv("REPOMAP_ROOT")
	if root == "" {
		t.Skip("REPOMAP_ROOT not set")
	}
	tokens, _ := strconv.Atoi(os.Getenv("REPOMAP_TOKENS"))
	cache := NewMemCache()
	for i := range 2 {
		start := time.Now()
		m, err := Build(context.Background(), Options{Root: root, Tokens: tokens, Query: os.Getenv("REPOMAP_QUERY"), Cache: cache})
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("run %d (%s): %v stats=%+v tokens=%d/%d files=%d", i, otherEngine, time.Since(start), m.Stats, m.Tokens, m.Budget, len(m.Files))
		if i == 1 {
			t.Log("\n" + m.Text)
		}
	}
}

// TestInspectFile prints the tags of one file (skipped unless
// REPOMAP_FILE is set; REPOMAP_LINE=1 forces the line scanner).
func TestInspectFile(t *testing.T) {
	p := os.Getenv("REPOMAP_FILE")
	if p == "" {
		t.Skip("REPOMAP_FILE not set")
	}
	src, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	lang := langOf(p)
	var ft *FileTags
	switch {
	case os.Getenv("REPOMAP_LINE") != "":
		ft = scanLines(lang, p, src)
	case lang == "go":
		ft, err = parseGo(p, src)
	default:
		ft, err = parseOther(lang, p, src)
	}
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range ft.Defs {
		t.Logf("%4d %-9s %-24s parent=%-14s depth=%d | %s", d.Line, d.Kind, d.Name, d.Parent, d.Depth, d.Signature)
	}
	t.Logf("imports: %v routes: %v main: %v refs: %d", ft.Imports, ft.Routes, ft.Main, len(ft.Refs))
}
