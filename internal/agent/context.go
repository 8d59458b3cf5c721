package agent

import (
	"context"
	"errors"

	"agent/internal/event"
)

// DefaultWindow is the context window in tokens when the config sets none.
const DefaultWindow = 128000

// ContextSource builds each model request from the run's state. A Build
// must depend only on st (and files it reads), so that a resumed run builds
// the same bytes: what it decides on the way (a compaction, a refresh of
// the slow layers) it returns as events, which the loop journals before
// building again from the state they fold into, and only then sends.
type ContextSource interface {
	Build(ctx context.Context, st *State, opt BuildOptions) (*Built, error)
}

// BuildOptions say what one Build may do.
type BuildOptions struct {
	// Decide lets Build return compaction and refresh events instead of a
	// request; without it Build renders the state as it is.
	Decide bool
}

// Built is one Build's result: either events to journal first (Events),
// or the request and its report.
type Built struct {
	Request *Request
	Report  event.ContextReport
	Events  []event.Payload
}

// buildRequest builds the next request of st, journaling first whatever the
// builder decided (a compaction, a refresh), so that the request sent is the
// one a resumed run would build from the journal.
func (r *Runner) buildRequest(ctx context.Context, st *State) (*Built, error) {
	b, err := r.Context.Build(ctx, st, BuildOptions{Decide: true})
	// a person's forced compaction is served by this request, done or not
	st.Context.Force = false
	if err != nil {
		return nil, classify(ClassContext, err)
	}
	if len(b.Events) == 0 {
		return b, nil
	}
	for _, p := range b.Events {
		if err := r.record(ctx, st, p); err != nil {
			return nil, err
		}
	}
	b, err = r.Context.Build(ctx, st, BuildOptions{})
	if err != nil {
		return nil, classify(ClassContext, err)
	}
	return b, nil
}

// Compact compacts st's context now, as a person asked (/compact): it
// journals the builder's compaction (and the refresh after it) and returns
// the compaction, or nil when there was nothing to compact.
func (r *Runner) Compact(ctx context.Context, st *State) (*event.CompactionData, error) {
	st.Context.Force = true
	defer func() { st.Context.Force = false }()
	b, err := r.Context.Build(ctx, st, BuildOptions{Decide: true})
	if err != nil {
		return nil, classify(ClassContext, err)
	}
	var out *event.CompactionData
	for _, p := range b.Events {
		if err := r.record(ctx, st, p); err != nil {
			return nil, err
		}
		if c, ok := p.(*event.CompactionData); ok {
			out = c
		}
	}
	return out, r.flush(ctx, st, false)
}

// classify gives err class c unless it already has one.
func classify(c Class, err error) error {
	var f *Failure
	if errors.As(err, &f) {
		return err
	}
	return Fail(c, err)
}
