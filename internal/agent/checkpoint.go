package agent

import (
	"context"

	"agent/internal/event"
)

// Checkpointer snapshots the workspace around calls that can change it.
type Checkpointer interface {
	// Checkpoint records the workspace for callID at seq; kind is "before" or
	// "after"; changed, when known, lists the only paths that can differ from
	// the previous snapshot. It returns the checkpoint id and changed files.
	Checkpoint(ctx context.Context, runID, callID string, kind event.CheckpointKind, step int, seq int64, changed []string) (id string, files []string, err error)
	// RestorePaths puts the given workspace paths back as they were at the
	// checkpoint (deleting those it did not have).
	RestorePaths(ctx context.Context, checkpointID string, paths []string) error
	// Changed lists the paths that differ between two checkpoints.
	Changed(ctx context.Context, from, to string) ([]string, error)
}

// checkpoint takes and journals a checkpoint; with sync the event is fsynced
// (the last event before a write changes anything).
func (r *Runner) checkpoint(ctx context.Context, st *State, callID string, kind event.CheckpointKind, changed []string, sync bool) error {
	id, files, err := r.Checkpointer.Checkpoint(ctx, st.RunID, callID, kind, st.Step, st.LastSeq, changed)
	if err != nil {
		return Fail(ClassRuntime, err)
	}
	if files == nil {
		files = []string{}
	}
	d := &event.CheckpointData{CheckpointID: id, CallID: callID, Kind: kind, Step: st.Step, Files: files}
	if sync {
		return r.recordSync(ctx, st, d)
	}
	return r.record(ctx, st, d)
}
