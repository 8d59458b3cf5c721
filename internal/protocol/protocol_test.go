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

// ItemWords: one kind's words for one and for many, the ref after them, an
// unknown kind as it is.
func TestItemWords(t *testing.T) {
	for _, c := range []struct {
		in   event.ContextItem
		want string
	}{
		{event.ContextItem{Kind: "messages", Count: 41}, "41 messages"},
		{event.ContextItem{Kind: "summary", Count: 2}, "2 summaries"},
		{event.ContextItem{Kind: "tool_result", Count: 1, Ref: "call_9 a.go"}, "tool result call_9 a.go"},
		{event.ContextItem{Kind: "person", Count: 3}, "3 messages of yours"},
		{event.ContextItem{Kind: "gizmo", Count: 2}, "2 gizmo"},
	} {
		if got := ItemWords(c.in); got != c.want {
			t.Errorf("ItemWords(%+v) = %q, want %q", c.in, got, c.want)
		}
	}
}
