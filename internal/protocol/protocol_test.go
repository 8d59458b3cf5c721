package protocol

import (
	"testing"

	"agent/internal/event"
)

func TestDecisionCheck(t *testing.T) {
	for _, tc := range []struct {
		d  Decision
		ok bool
	}{
		{AllowOnce(), true},
		{AllowRun(), true},
		{DenyCall(""), true},
		{DenyCall("use make"), true},
		{Decision{Verdict: Allow}, true}, // scope defaults to once
		{Decision{Verdict: Pending}, false},
		{Decision{}, false},
		{Decision{Verdict: "maybe"}, false},
		{Decision{Verdict: Allow, Note: "x"}, false},
		{Decision{Verdict: Deny, Scope: event.ScopeRun}, false},
		{Decision{Verdict: Allow, Scope: event.ScopeEscalate}, false},
	} {
		if err := tc.d.Check(); (err == nil) != tc.ok {
			t.Errorf("%+v.Check() = %v, want ok %t", tc.d, err, tc.ok)
		}
	}
}

func TestVerdictEvent(t *testing.T) {
	if Allow.Event() != event.Allow || Deny.Event() != event.Deny || Pending.Event() != "" {
		t.Fatalf("verdicts map to %q %q %q", Allow.Event(), Deny.Event(), Pending.Event())
	}
}

func TestFinished(t *testing.T) {
	for s, want := range map[event.Status]bool{
		event.StatusCompleted: true, event.StatusStopped: true,
		event.StatusAwaitingApproval: false, event.StatusInterrupted: false, event.StatusFailed: false, event.StatusRunning: false,
	} {
		if got := (RunInfo{Status: s}).Finished(); got != want {
			t.Errorf("Finished(%s) = %t", s, got)
		}
	}
}
