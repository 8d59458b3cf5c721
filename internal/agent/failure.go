package agent

import (
	"context"

	"agent/internal/diagnose"
	"agent/internal/event"
)

// eventReader is a Journal that reads a run's committed events back (the
// store does): the diagnosis of a failed or stopped run judges the whole
// journal.
type eventReader interface {
	Events(ctx context.Context, runID string, after int64) ([]event.Event, error)
}

// diagnose explains a run ending with status (failed or stopped; nil for
// any other) from its committed events and those still queued, the error
// event among them. A journal that cannot be read back leaves the queued
// events alone to judge.
func (r *Runner) diagnose(ctx context.Context, st *State, status event.Status) *event.FailureInfo {
	if status != event.StatusFailed && status != event.StatusStopped {
		return nil
	}
	var evs []event.Event
	if rd, ok := r.Journal.(eventReader); ok {
		evs, _ = rd.Events(ctx, st.RunID, 0)
	}
	var last int64
	if n := len(evs); n > 0 {
		last = evs[n-1].Seq
	}
	for _, ev := range st.queued {
		if ev.Seq > last {
			evs = append(evs, ev)
		}
	}
	return diagnose.Classify(status, evs)
}
