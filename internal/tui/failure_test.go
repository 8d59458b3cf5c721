package tui

import (
	"testing"

	"agent/internal/event"
	"agent/internal/tui/theme"
)

// A failed or stopped run's diagnosis is a warning in the transcript; a
// run that completed shows none.
func TestTranscriptShowsFailure(t *testing.T) {
	tr := newTranscript(theme.New(true, false), nil)
	ev := func(seq int64, p event.Payload) event.Event { e := event.New("r", p); e.Seq = seq; return e }
	tr.apply(ev(1, &event.RunFinishedData{Status: event.StatusCompleted}))
	if len(tr.entries) != 0 {
		t.Fatalf("a completed run shows %+v", tr.entries[0])
	}
	tr.apply(ev(9, &event.RunFinishedData{Status: event.StatusStopped, Failure: &event.FailureInfo{
		Class: event.ClassPermission, Seq: 6, Reason: "the person denied run_command `rm -rf build` and stopped the turn"}}))
	if len(tr.entries) != 1 {
		t.Fatalf("%d entries, want the failure", len(tr.entries))
	}
	if e := tr.entries[0]; e.kind != itemWarn || e.text != "stopped: you denied a call; "+stoppedHint {
		t.Fatalf("entry %+v", e)
	}
}
