package repomap

import (
	"bytes"
	"context"
	"encoding/gob"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sync"

	"agent/internal/atomicfile"
)

// Cache stores the tags of one file, keyed by its absolute path, size and
// modification time in nanoseconds. A warm Build re-parses only the files
// whose key changed. Implementations must be safe for concurrent use; the
// *FileTags they hand out are shared and must be treated as read-only.
type Cache interface {
	Get(path string, size int64, mtimeNs int64) (*FileTags, bool)
	Put(path string, size int64, mtimeNs int64, t *FileTags)
}

// Scanner is implemented by caches that can stream every entry they hold
// in one pass. A Build that finds many files missing from its Builder's
// memory (the first build of a process) scans instead of calling Get per
// file: fn receives each entry's key and tags (the caller's to keep) and
// returns whether that file is part of the build, which is what Get would
// have told the cache. A Scan error is a cold start, not a failure.
type Scanner interface {
	Scan(ctx context.Context, fn func(path string, size, mtimeNs int64, t *FileTags) bool) error
}

// Flusher is implemented by caches that buffer writes; Build calls Flush
// once at the end of a run.
type Flusher interface {
	Flush() error
}

// FileTags is what extraction yields for one file. Every field is exported
// so stores can serialize it (gob or JSON); an entry whose Engine differs
// from the one this build would use is treated as a miss, so a cache
// shared by cgo and non-cgo builds stays correct.
//
// Refs keys are bare identifiers, except in Go files, where they say how
// the use resolves: "Name" (unqualified: this package), "import/path.Name"
// (qualified through an import) or ".Name" (a field or method selected on
// a value).
type FileTags struct {
	Lang    string // "go", "python", "javascript", "typescript", "tsx", "rust", "java"
	Engine  string // extractor and version, e.g. "go/1", "ts/1", "line/1"
	Skipped string // non-empty (reason) when the file was not parsed
	// Generated marks a generated file ("Code generated ... DO NOT EDIT.",
	// "@generated"): parsed and indexed for lookup, left out of the rendered
	// map unless a request names one of its identifiers.
	Generated bool
	Package   string         // Go package name
	Main      bool           // the file is an entry point (func main, __main__, ...)
	Defs      []Tag          // definitions in source order
	Refs      map[string]int // identifier -> number of uses (see below)
	Imports   []string       // raw import paths / module names
	Routes    []Route        // HTTP route registrations seen in the file
}

// Tag is one definition.
type Tag struct {
	Name      string
	Kind      string // func, method, field, type, const, var, class, function, ...
	Line      int    // 1-based
	Signature string // one line, e.g. "func (c *Client) Do(req *Request) (*Response, error)"
	Parent    string // receiver, class or impl the definition belongs to
	Depth     int    // nesting depth for indentation (0 = top level)
}

// Route is an HTTP route registration, e.g. mux.HandleFunc("/x", h).
type Route struct {
	Line    int
	Pattern string
	Call    string // the registering call, e.g. "HandleFunc" or "app.get"
}

type cacheKey struct {
	Path  string
	Size  int64
	Mtime int64
}

// MemCache is an in-memory Cache.
type MemCache struct {
	mu sync.RWMutex
	m  map[string]memEntry
}

type memEntry struct {
	size, mtime int64
	t           *FileTags
}

// NewMemCache returns an empty in-memory cache.
func NewMemCache() *MemCache { return &MemCache{m: make(map[string]memEntry)} }

// Get implements Cache.
func (c *MemCache) Get(path string, size, mtimeNs int64) (*FileTags, bool) {
	c.mu.RLock()
	e, ok := c.m[path]
	c.mu.RUnlock()
	if !ok || e.size != size || e.mtime != mtimeNs {
		return nil, false
	}
	return e.t, true
}

// Put implements Cache.
func (c *MemCache) Put(path string, size, mtimeNs int64, t *FileTags) {
	c.mu.Lock()
	c.m[path] = memEntry{size, mtimeNs, t}
	c.mu.Unlock()
}

// Len reports the number of entries.
func (c *MemCache) Len() int {
	c.mu.RLock()
	defer c.mu.RUnlock()
	return len(c.m)
}

// FileCache is a Cache kept in memory and persisted to one gob file (mode
// 0600) with internal/atomicfile (temporary file, fsync, rename, fsync of
// the directory). Build calls Flush, which
// saves when something changed.
type FileCache struct {
	path  string
	mem   *MemCache
	mu    sync.Mutex
	dirty bool
}

type fileCacheRecord struct {
	Key  cacheKey
	Tags *FileTags
}

const fileCacheMagic = "repomap-cache-v1"

// OpenFileCache loads the cache at path; a missing file gives an empty
// cache, and an unreadable or stale-format one is discarded.
func OpenFileCache(path string) (*FileCache, error) {
	c := &FileCache{path: path, mem: NewMemCache()}
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return c, nil
	}
	if err != nil {
		return nil, fmt.Errorf("repomap: read cache: %w", err)
	}
	dec := gob.NewDecoder(bytes.NewReader(data))
	var magic string
	var recs []fileCacheRecord
	if dec.Decode(&magic) != nil || magic != fileCacheMagic || dec.Decode(&recs) != nil {
		return c, nil // start over rather than fail on a corrupt cache
	}
	for _, r := range recs {
		c.mem.Put(r.Key.Path, r.Key.Size, r.Key.Mtime, r.Tags)
	}
	return c, nil
}

// Get implements Cache.
func (c *FileCache) Get(path string, size, mtimeNs int64) (*FileTags, bool) {
	return c.mem.Get(path, size, mtimeNs)
}

// Put implements Cache.
func (c *FileCache) Put(path string, size, mtimeNs int64, t *FileTags) {
	c.mem.Put(path, size, mtimeNs, t)
	c.mu.Lock()
	c.dirty = true
	c.mu.Unlock()
}

// Flush implements Flusher: it saves if anything was Put since the last save.
func (c *FileCache) Flush() error {
	c.mu.Lock()
	dirty := c.dirty
	c.mu.Unlock()
	if !dirty {
		return nil
	}
	return c.Save()
}

// Save writes the cache atomically.
func (c *FileCache) Save() error {
	c.mu.Lock()
	c.dirty = false
	c.mu.Unlock()
	if err := c.save(); err != nil {
		c.mu.Lock()
		c.dirty = true
		c.mu.Unlock()
		return err
	}
	return nil
}

func (c *FileCache) save() error {
	c.mem.mu.RLock()
	recs := make([]fileCacheRecord, 0, len(c.mem.m))
	for p, e := range c.mem.m {
		recs = append(recs, fileCacheRecord{Key: cacheKey{p, e.size, e.mtime}, Tags: e.t})
	}
	c.mem.mu.RUnlock()
	var buf bytes.Buffer
	enc := gob.NewEncoder(&buf)
	if err := enc.Encode(fileCacheMagic); err != nil {
		return fmt.Errorf("repomap: encode cache: %w", err)
	}
	if err := enc.Encode(recs); err != nil {
		return fmt.Errorf("repomap: encode cache: %w", err)
	}
	if err := os.MkdirAll(filepath.Dir(c.path), 0o700); err != nil {
		return fmt.Errorf("repomap: save cache: %w", err)
	}
	if err := atomicfile.Write(c.path, buf.Bytes(), 0o600); err != nil {
		return fmt.Errorf("repomap: save cache: %w", err)
	}
	return nil
}
