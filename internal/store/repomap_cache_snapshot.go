package store

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"agent/internal/atomicfile"
	"agent/internal/repomap"
)

// The repo map's snapshot of a root (repomap.SnapshotStore) is one file
// beside the database, $AGENT_HOME/repomap/<hash of the root>.snap (0600
// in a 0700 directory), replaced whole with internal/atomicfile, opened
// beneath $AGENT_HOME. It is off until EnableSnapshot: the caller then
// says how its text is redacted before it reaches the disk.

// snapshotDir is the directory of the snapshots under the state directory.
const snapshotDir = "repomap"

// maxSnapshotBytes bounds what ReadSnapshot reads into memory.
const maxSnapshotBytes = 1 << 31

// EnableSnapshot makes c keep the root's snapshot, passing what it
// persists through redact (nil: kept as the engine has it, as the rows of a
// cache without a redacting Put are). Call it before the first Build.
func (c *RepomapCache) EnableSnapshot(redact func(string) string) {
	c.snapOn, c.snapRedact = true, redact
}

// snapshotName is the snapshot's path relative to the state directory.
func (c *RepomapCache) snapshotName() string {
	sum := sha256.Sum256([]byte(c.root))
	return filepath.Join(snapshotDir, hex.EncodeToString(sum[:16])+".snap")
}

// SnapshotPath is the snapshot's absolute path (tests and diagnostics).
func (c *RepomapCache) SnapshotPath() string { return filepath.Join(c.s.home, c.snapshotName()) }

// ReadSnapshot implements repomap.SnapshotStore.
func (c *RepomapCache) ReadSnapshot(ctx context.Context) ([]byte, error) {
	if !c.snapOn {
		return nil, repomap.ErrSnapshotsOff
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	root, err := os.OpenRoot(c.s.home)
	if err != nil {
		return nil, fmt.Errorf("repomap snapshot: %w", err)
	}
	defer root.Close()
	f, err := root.Open(c.snapshotName())
	if err != nil {
		return nil, fmt.Errorf("repomap snapshot: %w", err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("repomap snapshot: %w", err)
	}
	if !fi.Mode().IsRegular() || fi.Size() > maxSnapshotBytes {
		return nil, fmt.Errorf("repomap snapshot: %s is not a regular file under %d bytes", c.SnapshotPath(), int64(maxSnapshotBytes))
	}
	data := make([]byte, fi.Size())
	if _, err := io.ReadFull(f, data); err != nil {
		return nil, fmt.Errorf("repomap snapshot: %w", err)
	}
	return data, nil
}

// WriteSnapshot implements repomap.SnapshotStore: it replaces the file
// atomically, then writes the buffered rows and deletes the rows of files
// that no longer exist (the sweep a build taking its index from the
// snapshot leaves for this moment).
func (c *RepomapCache) WriteSnapshot(ctx context.Context, write func(io.Writer) error) error {
	if !c.snapOn {
		return repomap.ErrSnapshotsOff
	}
	root, err := os.OpenRoot(c.s.home)
	if err != nil {
		return fmt.Errorf("repomap snapshot: %w", err)
	}
	defer root.Close()
	if err := root.Mkdir(snapshotDir, 0o700); err != nil && !errors.Is(err, fs.ErrExist) {
		return fmt.Errorf("repomap snapshot: %w", err)
	}
	if err := atomicfile.StreamIn(root, c.snapshotName(), 0o600, write); err != nil {
		return fmt.Errorf("repomap snapshot: %w", err)
	}
	c.mu.Lock()
	err = c.loadKeys(ctx)
	c.mu.Unlock()
	if err != nil {
		return err
	}
	return c.FlushContext(ctx)
}

// SnapshotRedactor implements repomap.SnapshotStore.
func (c *RepomapCache) SnapshotRedactor() func(string) string { return c.snapRedact }
