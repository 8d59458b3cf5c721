package app

import (
	"context"

	"agent/internal/event"
)

// Compact compacts the run's context now, as a person asked (/compact):
// older rounds are folded into the summary, old tool outputs masked, reads
// of files edited since dropped; the compaction and the refresh of the slow
// layers after it are journaled and published like the loop's events. It
// returns the compaction, or nil when there was nothing to compact. A run
// being driven is refused with a *UsageError: CompactNext asks for it at
// the start of the next stretch instead.
func (r *Run) Compact(ctx context.Context) (*event.CompactionData, error) {
	r.mu.Lock()
	driving := r.cancel != nil
	r.mu.Unlock()
	if driving {
		return nil, usage("run %s is being driven: the compaction can only apply to its next turn", r.id)
	}
	return r.s.runner.Compact(ctx, r.state)
}

// CompactNext makes the first model request of the next Drive compact the
// context first (trigger "forced"), as `agent resume --compact` does. It
// may be called while the run is being driven: the current stretch is not
// touched.
func (r *Run) CompactNext() {
	r.mu.Lock()
	r.compactNext = true
	r.mu.Unlock()
}

// CompactPending reports whether CompactNext asked for a compaction that
// no Drive has started with yet.
func (r *Run) CompactPending() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.compactNext
}
