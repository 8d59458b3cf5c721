package app

// STUB for issue 23 (subagents), to test before the fork helper's
// `agent runs --tree` is merged: the LEAD DROPS THIS FILE (and
// cmd/runs_tree_stub.go, and the --tree flag lines in cmd/runs.go) in
// favour of the fork helper's implementation, which reads the same
// parent_run / parent_call / parent_checkpoint of run_started.

import (
	"context"

	"agent/internal/event"
)

// LineageStub is one run's lineage from its run_started.
type LineageStub struct {
	ParentRun, ParentCall, ParentCheckpoint string
}

// LineageStub returns the lineage of every run that has a parent.
func (h *Home) LineageStub(ctx context.Context, ids []string) (map[string]LineageStub, error) {
	out := map[string]LineageStub{}
	for _, id := range ids {
		evs, err := h.st.Events(ctx, id, 0)
		if err != nil {
			return nil, err
		}
		if len(evs) == 0 {
			continue
		}
		if d, ok := evs[0].Data.(*event.RunStartedData); ok && d.ParentRun != "" {
			out[id] = LineageStub{ParentRun: d.ParentRun, ParentCall: d.ParentCall, ParentCheckpoint: d.ParentCheckpoint}
		}
	}
	return out, nil
}
