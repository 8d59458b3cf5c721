// Package repomap owns the repository map: it extracts definitions and
// references from source files (Go through a token-level scan, go/parser
// as its fallback: goscan.go; Python, JavaScript,
// TypeScript, Rust and Java through tree-sitter in cgo builds or a coarser
// line scanner without cgo), ranks files and definitions with a personalized
// PageRank over the reference graph, and renders the best part of the
// skeleton, plus a short orientation section for newcomers, within a token
// budget counted with tiktoken.
//
// It must not touch the command line, the SQLite store or the network: the
// command wires flags into Options, and persistence reaches this package only
// through the Cache interface (and SnapshotStore, for a cache that keeps a
// snapshot of a Builder's index per root: snapshot.go). It reads files under
// Options.Root (and the git history of the repository containing it) and
// never writes to the tree; the only file it writes is a FileCache's own
// file, when asked to Save.
package repomap

import (
	"context"
	"sync"
)

// DefaultTokens is the budget used when Options.Tokens is zero or negative.
const DefaultTokens = 1024

// DefaultEncoding is the tiktoken encoding used to count tokens.
const DefaultEncoding = "o200k_base"

// Options configures Build.
type Options struct {
	// Root is the directory to map. Required.
	Root string
	// Tokens is the budget for Map.Text (default DefaultTokens).
	Tokens int
	// Focus lists files (relative to Root or absolute) the user wants the
	// map to centre on; they seed the ranking and stay in the output.
	Focus []string
	// Query is the user's request; identifiers and paths named in it seed
	// the ranking.
	Query string
	// Conversation lists files already in the model's context. They seed
	// the ranking and weigh their references ×50, but their own
	// definitions are left out of the map, as the model already sees them.
	Conversation []string
	// Cache stores extracted tags between runs; nil means no caching.
	Cache Cache
	// Workers is the number of parallel parsers (default 2).
	Workers int
	// Encoding names the tiktoken encoding (default DefaultEncoding).
	Encoding string
}

// Map is the rendered repository map.
type Map struct {
	Budget int    `json:"budget"`
	Tokens int    `json:"tokens"`
	Files  []File `json:"files"`
	Text   string `json:"text"`
	Stats  Stats  `json:"stats"`
}

// File is one file shown in the map, in rank order.
type File struct {
	Path    string   `json:"path"`
	Rank    float64  `json:"rank"`
	Symbols []Symbol `json:"symbols"`
}

// Symbol is one definition shown in the map.
type Symbol struct {
	Name      string `json:"name"`
	Kind      string `json:"kind"`
	Line      int    `json:"line"`
	Signature string `json:"signature"`
}

// Stats counts the source files seen by one Build.
type Stats struct {
	Files   int `json:"files"`   // source files found
	Parsed  int `json:"parsed"`  // parsed in this run
	Cached  int `json:"cached"`  // taken from the Builder's memory or the cache
	Skipped int `json:"skipped"` // left out of the rendered map: large (> 1 MiB), generated, minified or unparsable files
	// Generated counts the generated files among Skipped ("Code generated
	// ... DO NOT EDIT." and the like): they are indexed all the same, so a
	// request naming an identifier defined only there shows that file.
	Generated int `json:"generated"`
}

// Build walks opts.Root, extracts (or reuses cached) tags, ranks and
// renders the map within opts.Tokens tokens. It keeps nothing between
// calls but what opts.Cache holds; a process that maps repeatedly should
// keep one Builder instead.
func Build(ctx context.Context, opts Options) (*Map, error) {
	return new(Builder).Build(ctx, opts)
}

// Builder builds maps and keeps between its builds what makes the next one
// cheap: per root (up to four), every file's definitions and interned
// references keyed by its size and mtime, the identifier table, and the
// recency read from the git history per HEAD commit. A later Build of the
// same root stats every file, parses only those whose size or mtime
// changed (and Puts them in opts.Cache), then ranks and renders: it never
// reads the cache for a file it already holds, so a refresh inside a
// long-lived process costs no more than a warm `agent repomap` (and less:
// no cache to load). How to refresh within a run:
//
//	b := new(repomap.Builder)              // once per process or session
//	cache, _ := st.RepomapCache(ctx, root) // once, kept open with the store
//	m, err := b.Build(ctx, repomap.Options{Root: root, Cache: cache, Query: req, Tokens: n})
//	// ... after edits, at compaction: the same b.Build with the same cache
//
// When opts.Cache is also a SnapshotStore, the first build of a root
// reads the root's snapshot (the index above, as another process left it)
// instead of the cache rows, patches it with the files whose key changed,
// and rewrites it when there was none, when many files were patched or
// when HEAD moved (snapshot.go).
//
// The zero value is ready. It is safe for concurrent use; builds on one
// Builder run one at a time.
type Builder struct {
	mu      sync.Mutex // held by Build: the index and interner are single-writer
	history gitHistory
	in      *interner
	roots   map[string]*rootIndex
	builds  uint64
}

// Build is the package's Build, reusing what b kept from its earlier
// builds.
func (b *Builder) Build(ctx context.Context, opts Options) (*Map, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.build(ctx, opts)
}
