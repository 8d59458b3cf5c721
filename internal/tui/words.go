package tui

import (
	"agent/internal/event"
)

// stoppedHint is what a person does after denying a call stopped the turn.
const stoppedHint = "say what to do instead, and the run goes on"

// failed says once, in plain words, why a run failed or stopped: nothing
// when the error that decided it is already on screen (the journal's
// class and positions stay in `agent trace`).
func (t *transcriptState) failed(d *event.RunFinishedData) {
	t.stopShown = false
	f := d.Failure
	if f == nil {
		return
	}
	for i := len(t.entries) - 1; i >= 0; i-- {
		e := t.entries[i]
		if e.kind == itemError && (e.seq == f.Seq || i == len(t.entries)-1) {
			return // the error line already says it
		}
		if e.seq > 0 && e.seq < f.Seq {
			break
		}
	}
	if d.Status == event.StatusStopped {
		t.warn("stopped: you denied a call; %s", stoppedHint)
		t.stopShown = true
		return
	}
	t.warn("%s: %s", d.Status, f.Reason)
}
