package checkpoint

import (
	"context"

	"agent/internal/event"
)

// Head returns the run's newest snapshot (zero Snapshot if it has none).
func (s *Store) Head(runID string) (Snapshot, error) {
	if err := validRunID(runID); err != nil {
		return Snapshot{}, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.head(runID)
}

// Checkpointer adapts a Store to the agent loop's Checkpointer interface
// (internal/agent) without importing it; it speaks the spine's checkpoint
// kind (internal/event), the one event type this package knows.
type Checkpointer struct{ Store *Store }

// Checkpoint records the workspace as the run's next snapshot. When changed
// is non-nil it lists the only paths that can differ from the run's
// previous snapshot, which is then updated incrementally; otherwise the
// workspace is scanned. files are the paths that differ from the previous
// snapshot (none for a run's first).
func (c Checkpointer) Checkpoint(ctx context.Context, runID, callID string, kind event.CheckpointKind, step int, seq int64, changed []string) (string, []string, error) {
	meta := Meta{RunID: runID, CallID: callID, Kind: Kind(kind), Step: step, Event: seq}
	var snap Snapshot
	head, err := c.Store.Head(runID)
	if err == nil {
		if changed != nil && head.ID != "" {
			snap, err = c.Store.SnapshotPaths(ctx, head, changed, meta)
		} else {
			snap, err = c.Store.Snapshot(ctx, meta)
		}
	}
	if err != nil {
		return "", nil, err
	}
	files := []string{}
	if snap.Parent != "" {
		d, err := c.Store.Diff(ctx, snap.Parent, snap.ID)
		if err != nil {
			return "", nil, err
		}
		for _, ch := range d {
			files = append(files, ch.Path)
		}
	}
	return snap.ID, files, nil
}

// RestorePaths puts the given paths back as they were at the checkpoint
// (see Store.RestorePaths).
func (c Checkpointer) RestorePaths(ctx context.Context, checkpointID string, paths []string) error {
	_, err := c.Store.RestorePaths(ctx, checkpointID, paths)
	return err
}

// Changed lists the paths that differ between two checkpoints.
func (c Checkpointer) Changed(ctx context.Context, from, to string) ([]string, error) {
	d, err := c.Store.Diff(ctx, from, to)
	if err != nil {
		return nil, err
	}
	files := make([]string, 0, len(d))
	for _, ch := range d {
		files = append(files, ch.Path)
	}
	return files, nil
}
