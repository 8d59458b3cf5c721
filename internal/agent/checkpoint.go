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
	Checkpoint(ctx context.Context, runID, callID, kind string, step int, seq int64, changed []string) (id string, files []string, err error)
	// RestorePaths puts the given workspace paths back as they were at the
	// checkpoint (deleting those it did not have).
	RestorePaths(ctx context.Context, checkpointID string, paths []string) error
	// Changed lists the paths that differ between two checkpoints.
	Changed(ctx context.Context, from, to string) ([]string, error)
}

func (r *Runner) checkpoint(ctx context.Context, st *State, callID, kind string, changed []string) error {
	id, files, err := r.Checkpointer.Checkpoint(ctx, st.RunID, callID, kind, st.Step, st.LastSeq, changed)
	if err != nil {
		return Fail(ClassRuntime, err)
	}
	if files == nil {
		files = []string{}
	}
	return r.record(ctx, st, event.Checkpoint, &event.CheckpointData{CheckpointID: id, CallID: callID, Kind: kind, Step: st.Step, Files: files})
}
