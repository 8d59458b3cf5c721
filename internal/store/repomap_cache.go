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

	"agent/internal/repomap"
)

// RepomapCache is the repo map's tag cache for one root, kept in the
// repomap_tags table. It implements repomap.Cache, repomap.Scanner,
// repomap.Flusher and repomap.SnapshotStore (off until EnableSnapshot:
// repomap_cache_snapshot.go), and holds in memory only the rows' keys (path,
// size, mtime; read on first need) and the rows waiting to be written: the
// tags live in the table and in the repomap.Builder that compiled them.
// With a snapshot, a Get reads the one row it asks for and the keys are
// read only to sweep the rows of deleted files when the snapshot is
// rewritten (a Builder forgets, with Put(nil), a file it drops from a
// snapshot's index). Scan streams the root's rows,
// decoding one at a time (a new process's first build); Get reads one row
// (a file a Builder has not seen yet); Put encodes the tags at once and
// buffers the row, writing the buffer in one transaction whenever it passes
// putBatchBytes and at Flush, which also deletes the rows of files that no
// longer exist.
//
// Paths under the root are stored relative to it, so the row set of a root
// is self-contained; the keys the engine uses stay absolute. It is safe for
// concurrent use. Two processes flushing the same root is safe too: each row
// is written whole, and the last writer wins.
type RepomapCache struct {
	s    *Store
	root string

	mu       sync.Mutex
	keys     map[string]*rowKey    // absolute path -> the row's key, for rows in the table or pending; nil until read
	pending  map[string]pendingRow // absolute path -> row to write (nil data: to delete)
	pendingN int                   // bytes in pending

	flushMu sync.Mutex // one write at a time

	snapOn     bool                // EnableSnapshot was called
	snapRedact func(string) string // applied to what a snapshot persists
}

// putBatchBytes is how many encoded bytes Put buffers before it writes
// them: a cold build of a large tree then never holds every row at once.
const putBatchBytes = 2 << 20

type pendingRow struct {
	size, mtime int64
	data        []byte
}

type rowKey struct {
	size, mtime int64
	seen        bool // asked for (or part of a build) since the last Flush
}

// RepomapCache opens the cache of root (made absolute and symlink-resolved,
// as the engine does). It reads nothing yet: the rows' keys are read by
// the first Scan, Len or snapshot write, so a build that takes its index
// from the root's snapshot reads only the rows of the files it patches.
func (s *Store) RepomapCache(ctx context.Context, root string) (*RepomapCache, error) {
	abs, err := filepath.Abs(root)
	if err != nil {
		return nil, fmt.Errorf("repomap cache: root %s: %w", root, err)
	}
	if r, err := filepath.EvalSymlinks(abs); err == nil {
		abs = r
	}
	return &RepomapCache{s: s, root: abs, pending: map[string]pendingRow{}}, nil
}

// loadKeys reads the rows' keys unless they were read; the caller holds mu.
func (c *RepomapCache) loadKeys(ctx context.Context) error {
	if c.keys != nil {
		return nil
	}
	keys := map[string]*rowKey{}
	rows, err := c.s.db.QueryContext(ctx, `SELECT path, size, mtime FROM repomap_tags WHERE root = ?`, c.root)
	if err != nil {
		return fmt.Errorf("repomap cache: load %s: %w", c.root, err)
	}
	defer rows.Close()
	for rows.Next() {
		var (
			p           string
			size, mtime int64
		)
		if err := rows.Scan(&p, &size, &mtime); err != nil {
			return fmt.Errorf("repomap cache: load %s: %w", c.root, err)
		}
		keys[c.absPath(p)] = &rowKey{size: size, mtime: mtime}
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("repomap cache: load %s: %w", c.root, err)
	}
	for p, row := range c.pending { // Put before the keys were read
		if row.data == nil {
			delete(keys, p)
		} else {
			keys[p] = &rowKey{size: row.size, mtime: row.mtime, seen: true}
		}
	}
	c.keys = keys
	return nil
}

// Root is the absolute, symlink-resolved root the cache belongs to.
func (c *RepomapCache) Root() string { return c.root }

// Len is the number of files the cache holds (rows, and rows to write).
func (c *RepomapCache) Len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	if err := c.loadKeys(context.Background()); err != nil {
		return len(c.pending)
	}
	return len(c.keys)
}

// Get implements repomap.Cache: a hit reads and decodes the file's row (or
// its pending write). Rows that do not decode (written by another codec
// version) are misses.
func (c *RepomapCache) Get(path string, size, mtimeNs int64) (*repomap.FileTags, bool) {
	c.mu.Lock()
	if !c.snapOn {
		// without a snapshot, a build asks for every file it has not seen:
		// read the keys, so that Flush can drop the rows of files gone
		_ = c.loadKeys(context.Background()) // on error: ask the table
	}
	var k *rowKey
	ok := c.keys == nil // keys not read: ask the table
	if !ok {
		if k, ok = c.keys[path]; ok {
			k.seen = true // the file exists: keep its row
		}
	}
	row, buffered := c.pending[path]
	c.mu.Unlock()
	if buffered && (row.data == nil || row.size != size || row.mtime != mtimeNs) {
		return nil, false
	}
	if !ok || k != nil && (k.size != size || k.mtime != mtimeNs) {
		return nil, false
	}
	data := row.data
	if !buffered {
		err := c.s.db.QueryRow(`SELECT data FROM repomap_tags WHERE root = ? AND path = ? AND size = ? AND mtime = ?`,
			c.root, c.relPath(path), size, mtimeNs).Scan(&data)
		if err != nil {
			return nil, false
		}
	}
	t, err := decodeTags(data)
	if err != nil {
		return nil, false
	}
	return t, true
}

// Scan implements repomap.Scanner: it streams the root's rows, decoding
// one at a time; a row fn keeps counts as asked for. Rows that do not
// decode are skipped. Rows not yet written are not scanned.
func (c *RepomapCache) Scan(ctx context.Context, fn func(path string, size, mtimeNs int64, t *repomap.FileTags) bool) error {
	c.mu.Lock()
	err := c.loadKeys(ctx)
	c.mu.Unlock()
	if err != nil {
		return err
	}
	rows, err := c.s.db.QueryContext(ctx, `SELECT path, size, mtime, data FROM repomap_tags WHERE root = ?`, c.root)
	if err != nil {
		return fmt.Errorf("repomap cache: scan %s: %w", c.root, err)
	}
	defer rows.Close()
	var keep []string
	for rows.Next() {
		var (
			p           string
			size, mtime int64
			data        sql.RawBytes // decodeTags copies what it keeps
		)
		if err := rows.Scan(&p, &size, &mtime, &data); err != nil {
			return fmt.Errorf("repomap cache: scan %s: %w", c.root, err)
		}
		t, err := decodeTags(data)
		if err != nil {
			continue
		}
		if abs := c.absPath(p); fn(abs, size, mtime, t) {
			keep = append(keep, abs)
		}
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("repomap cache: scan %s: %w", c.root, err)
	}
	c.mu.Lock()
	for _, p := range keep {
		if k, ok := c.keys[p]; ok {
			k.seen = true
		}
	}
	c.mu.Unlock()
	return nil
}

// Put implements repomap.Cache. A nil t forgets the file. When the buffer
// passes putBatchBytes, Put writes it (a failure keeps it for Flush).
func (c *RepomapCache) Put(path string, size, mtimeNs int64, t *repomap.FileTags) {
	var data []byte
	if t != nil {
		data = encodeTags(t)
	}
	c.mu.Lock()
	if c.keys == nil {
		// keys not read: loadKeys applies pending rows when it reads them
	} else if t == nil {
		delete(c.keys, path)
	} else {
		c.keys[path] = &rowKey{size: size, mtime: mtimeNs, seen: true}
	}
	c.pendingN += len(data) - len(c.pending[path].data)
	c.pending[path] = pendingRow{size, mtimeNs, data}
	full := c.pendingN >= putBatchBytes
	c.mu.Unlock()
	if full {
		c.flushMu.Lock()
		defer c.flushMu.Unlock()
		_ = c.writePending(context.Background(), nil) // on failure the rows stay buffered for Flush
	}
}

// Flush implements repomap.Flusher with a background context; see
// FlushContext.
func (c *RepomapCache) Flush() error { return c.FlushContext(context.Background()) }

// FlushContext writes the rows Put since the last write in one
// transaction (INSERT OR REPLACE) and, when the rows' keys were read,
// deletes the rows of files no Get, Scan or Put asked for since the last
// flush that no longer exist on disk (a stat each). Nothing is written when
// nothing changed. On error the buffered rows are kept for the next flush.
func (c *RepomapCache) FlushContext(ctx context.Context) error {
	c.flushMu.Lock()
	defer c.flushMu.Unlock()

	c.mu.Lock()
	var unseen []string
	for p, k := range c.keys {
		if !k.seen {
			unseen = append(unseen, p)
		}
		k.seen = false
	}
	c.mu.Unlock()

	var gone []string
	for _, p := range unseen {
		if _, err := os.Lstat(p); errors.Is(err, fs.ErrNotExist) {
			gone = append(gone, p)
		}
	}
	if err := c.writePending(ctx, gone); err != nil {
		c.mu.Lock()
		for _, p := range unseen {
			if k, ok := c.keys[p]; ok {
				k.seen = false
			}
		}
		c.mu.Unlock()
		return err
	}
	c.mu.Lock()
	for _, p := range gone {
		if k, ok := c.keys[p]; ok && !k.seen {
			delete(c.keys, p)
		}
	}
	c.mu.Unlock()
	return nil
}

// writePending writes the buffered rows and deletes the rows of gone in
// one transaction; the caller holds flushMu. On error the rows written
// are put back in the buffer unless a newer Put replaced them.
func (c *RepomapCache) writePending(ctx context.Context, gone []string) error {
	c.mu.Lock()
	pending := c.pending
	c.pending, c.pendingN = map[string]pendingRow{}, 0
	c.mu.Unlock()
	if len(pending) == 0 && len(gone) == 0 {
		return nil
	}
	if err := c.write(ctx, pending, gone); err != nil {
		c.mu.Lock()
		for p, row := range pending {
			if _, newer := c.pending[p]; !newer {
				c.pending[p] = row
				c.pendingN += len(row.data)
			}
		}
		c.mu.Unlock()
		return err
	}
	return nil
}

func (c *RepomapCache) write(ctx context.Context, pending map[string]pendingRow, gone []string) error {
	tx, err := c.s.db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("repomap cache: flush %s: %w", c.root, err)
	}
	defer tx.Rollback()
	var ins, del *sql.Stmt
	for p, row := range pending {
		if row.data == nil {
			gone = append(gone, p)
			continue
		}
		if ins == nil {
			if ins, err = tx.PrepareContext(ctx, `INSERT OR REPLACE INTO repomap_tags(root, path, size, mtime, data) VALUES (?, ?, ?, ?, ?)`); err != nil {
				return fmt.Errorf("repomap cache: flush %s: %w", c.root, err)
			}
			defer ins.Close()
		}
		if _, err := ins.ExecContext(ctx, c.root, c.relPath(p), row.size, row.mtime, row.data); err != nil {
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
