package budget

import (
	"errors"
	"testing"
	"time"

	"agent/internal/event"
	"agent/internal/pricing"
)

func spentTally(limits Limits, tokens int) *Tally {
	t := &Tally{}
	now := time.Now()
	t.Apply(event.Event{Time: now, Data: &event.RunStartedData{Model: "gpt-4.1", Budget: limits.Event()}})
	t.Apply(event.Event{Time: now, Data: &event.ModelRequestData{}})
	t.Apply(event.Event{Time: now, Data: &event.AssistantMessageData{Tokens: &event.TokenCount{Input: tokens}}})
	return t
}

// A child gets an equal share of what is left among its siblings (or the
// configured fraction), all of the time left, nothing of a kind the parent
// does not limit, and the least positive amount when nothing is left.
func TestShare(t *testing.T) {
	p := pricing.New(nil)
	now := time.Now()
	tl := spentTally(Limits{Tokens: 1000, USD: 1}, 400) // 400 input tokens of gpt-4.1: $0.0008
	got := Share(tl, p, 0, 3, now)
	if got.Tokens != 200 || got.Time != 0 || got.USD < 0.333 || got.USD > 0.3334 {
		t.Fatalf("equal share of 3: %+v, want 200 tokens and (1-0.0008)/3 dollars", got)
	}
	if got := Share(tl, p, 0.5, 3, now); got.Tokens != 300 {
		t.Fatalf("budget_share 0.5: %+v, want 300 tokens", got)
	}
	if got := Share(spentTally(Limits{}, 400), p, 0, 2, now); !got.IsZero() {
		t.Fatalf("no parent budget: %+v, want none", got)
	}
	if got := Share(spentTally(Limits{Tokens: 1000}, 1000), p, 0, 2, now); got.Tokens != 1 {
		t.Fatalf("nothing left: %+v, want 1 token (the child stops at its first request)", got)
	}
	tm := spentTally(Limits{Time: time.Hour}, 1)
	if got := Share(tm, p, 0, 4, now.Add(10*time.Minute)); got.Time != 50*time.Minute {
		t.Fatalf("time: %+v, want the 50m left, not divided", got)
	}
}

// A task result's child usage counts in the parent's spend, so the
// parent's budget stops the tree at its next request.
func TestChildUsageCountsInTheParent(t *testing.T) {
	tl := spentTally(Limits{Tokens: 10_000}, 1_000)
	req := Request{Model: "gpt-4.1", Input: 500, Reserve: 500}
	if err := tl.Check(nil, req, time.Now()); err != nil {
		t.Fatal(err)
	}
	tl.Apply(event.Event{Data: &event.ToolResultData{CallID: "c", Status: event.ResultOK,
		ChildUsage: map[string]event.TokenCount{"gpt-4.1": {Input: 8_000, Output: 600}}}})
	if tl.Tokens() != 9_600 {
		t.Fatalf("spent %d, want 9600 with the child's", tl.Tokens())
	}
	var ex *Exhausted
	if err := tl.Check(nil, req, time.Now()); !errors.As(err, &ex) || ex.Kind != "tokens" {
		t.Fatalf("check after the child spent: %v, want token budget exhausted", err)
	}
}
