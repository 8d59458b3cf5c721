package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"

	"agent/internal/repomap"
)

// RepomapCache is the repo map's tag cache for one root, kept in the
// repomap_tags table. It implements repomap.Cache and repomap.Flusher:
// RepomapCache loads the root's rows once and decodes them, Get is served
// from memory (the same *FileTags for every Get of an unchanged file, which
// lets the engine reuse what it derived from them), Put is buffered, and
// Flush writes the buffered rows in one transaction and deletes the rows of
// files that no longer exist.
//
// Paths under the root are stored relative to it, so the row set of a root
// is self-contained; the keys the engine uses stay absolute. It is safe for
// concurrent use. Two processes flushing the same root is safe too: each row
// is written whole, and the last writer wins.
type RepomapCache struct {
	s    *Store
	root string

	mu      sync.RWMutex
	entries map[string]*tagsEntry // absolute path -> entry
	pending map[string]*tagsEntry // absolute path -> entry to write (nil: to delete)

	flushMu sync.Mutex // one Flush at a time
}

type tagsEntry struct {
	size, mtime int64
	tags        *repomap.FileTags
	seen        atomic.Bool // asked for since the last Flush
}

// RepomapCache opens the cache of root (made absolute and symlink-resolved,
// as the engine does) and loads its rows. Rows that do not decode (written
// by another codec version) are left out and count as misses.
func (s *Store) RepomapCache(ctx context.Context, root string) (*RepomapCache, error) {
	abs, err := filepath.Abs(root)
	if err != nil {
		return nil, fmt.Errorf("repomap cache: root %s: %w", root, err)
	}
	if r, err := filepath.EvalSymlinks(abs); err == nil {
		abs = r
	}
	c := &RepomapCache{s: s, root: abs, entries: map[string]*tagsEntry{}, pending: map[string]*tagsEntry{}}
	rows, err := s.db.QueryContext(ctx, `SELECT path, size, mtime, data FROM repomap_tags WHERE root = ?`, abs)
	if err != nil {
		return nil, fmt.Errorf("repomap cache: load %s: %w", abs, err)
	}
	defer rows.Close()
	for rows.Next() {
		var (
			p           string
			size, mtime int64
			data        sql.RawBytes // decodeTags copies what it keeps
		)
		if err := rows.Scan(&p, &size, &mtime, &data); err != nil {
			return nil, fmt.Errorf("repomap cache: load %s: %w", abs, err)
		}
		t, err := decodeTags(data)
		if err != nil {
			continue
		}
		c.entries[c.absPath(p)] = &tagsEntry{size: size, mtime: mtime, tags: t}
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("repomap cache: load %s: %w", abs, err)
	}
	return c, nil
}

// Root is the absolute, symlink-resolved root the cache belongs to.
func (c *RepomapCache) Root() string { return c.root }

// Len is the number of files the cache holds in memory.
func (c *RepomapCache) Len() int {
	c.mu.RLock()
	defer c.mu.RUnlock()
	return len(c.entries)
}

// Get implements repomap.Cache.
func (c *RepomapCache) Get(path string, size, mtimeNs int64) (*repomap.FileTags, bool) {
	c.mu.RLock()
	e, ok := c.entries[path]
	c.mu.RUnlock()
	if !ok {
		return nil, false
	}
	e.seen.Store(true) // the file exists: keep its row
	if e.size != size || e.mtime != mtimeNs {
		return nil, false
	}
	return e.tags, true
}

// Put implements repomap.Cache. A nil t forgets the file.
func (c *RepomapCache) Put(path string, size, mtimeNs int64, t *repomap.FileTags) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if t == nil {
		delete(c.entries, path)
		c.pending[path] = nil
		return
	}
	e := &tagsEntry{size: size, mtime: mtimeNs, tags: t}
	e.seen.Store(true)
	c.entries[path] = e
	c.pending[path] = e
}

// Flush implements repomap.Flusher with a background context; see
// FlushContext.
func (c *RepomapCache) Flush() error { return c.FlushContext(context.Background()) }

// FlushContext writes the rows Put since the last flush in one transaction
// (INSERT OR REPLACE) and deletes the rows of files no Get or Put asked for
// since then that no longer exist on disk (a stat each; after a Build that
// is only the files it did not find). Nothing is written when nothing
// changed. On error the buffered rows are kept for the next flush.
func (c *RepomapCache) FlushContext(ctx context.Context) error {
	c.flushMu.Lock()
	defer c.flushMu.Unlock()

	c.mu.Lock()
	pending := c.pending
	c.pending = map[string]*tagsEntry{}
	var unseen []string
	for p, e := range c.entries {
		if !e.seen.Swap(false) {
			unseen = append(unseen, p)
		}
	}
	c.mu.Unlock()

	var gone []string
	for _, p := range unseen {
		if _, err := os.Lstat(p); errors.Is(err, fs.ErrNotExist) {
			gone = append(gone, p)
		}
	}
	if len(pending) == 0 && len(gone) == 0 {
		return nil
	}
	if err := c.write(ctx, pending, gone); err != nil {
		c.mu.Lock()
		for p, e := range pending {
			if _, newer := c.pending[p]; !newer {
				c.pending[p] = e
			}
		}
		for _, p := range gone {
			if e, ok := c.entries[p]; ok {
				e.seen.Store(false)
			}
		}
		c.mu.Unlock()
		return err
	}
	c.mu.Lock()
	for _, p := range gone {
		if e, ok := c.entries[p]; ok && !e.seen.Load() {
			delete(c.entries, p)
		}
	}
	c.mu.Unlock()
	return nil
}

func (c *RepomapCache) write(ctx context.Context, pending map[string]*tagsEntry, gone []string) error {
	tx, err := c.s.db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("repomap cache: flush %s: %w", c.root, err)
	}
	defer tx.Rollback()
	var ins, del *sql.Stmt
	for p, e := range pending {
		if e == nil {
			gone = append(gone, p)
			continue
		}
		if ins == nil {
			if ins, err = tx.PrepareContext(ctx, `INSERT OR REPLACE INTO repomap_tags(root, path, size, mtime, data) VALUES (?, ?, ?, ?, ?)`); err != nil {
				return fmt.Errorf("repomap cache: flush %s: %w", c.root, err)
			}
			defer ins.Close()
		}
		if _, err := ins.ExecContext(ctx, c.root, c.relPath(p), e.size, e.mtime, encodeTags(e.tags)); err != nil {
			return fmt.Errorf("repomap cache: flush %s: %w", c.root, err)
		}
	}
	for _, p := range gone {
		if del == nil {
			if del, err = tx.PrepareContext(ctx, `DELETE FROM repomap_tags WHERE root = ? AND path = ?`); err != nil {
				return fmt.Errorf("repomap cache: flush %s: %w", c.root, err)
			}
			defer del.Close()
		}
		if _, err := del.ExecContext(ctx, c.root, c.relPath(p)); err != nil {
			return fmt.Errorf("repomap cache: flush %s: %w", c.root, err)
		}
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("repomap cache: flush %s: %w", c.root, err)
	}
	return nil
}

// relPath is the stored form of an absolute key: relative (slash-separated)
// under the root, else unchanged.
func (c *RepomapCache) relPath(p string) string {
	if rel, ok := strings.CutPrefix(p, c.root+string(filepath.Separator)); ok {
		return filepath.ToSlash(rel)
	}
	return p
}

func (c *RepomapCache) absPath(p string) string {
	if filepath.IsAbs(p) {
		return p
	}
	return filepath.Join(c.root, filepath.FromSlash(p))
}
