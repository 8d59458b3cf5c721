package budget

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"agent/internal/event"
	"agent/internal/pricing"
)

var t0 = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)

func ev(sec int, p event.Payload) event.Event {
	e := event.New("r", p)
	e.Time = t0.Add(time.Duration(sec) * time.Second)
	return e
}

func answer(in, out int) *event.AssistantMessageData {
	return &event.AssistantMessageData{Tokens: &event.TokenCount{Input: in, Output: out}}
}

func TestTallyFoldsTokensCostAndTime(t *testing.T) {
	var tl Tally
	for _, e := range []event.Event{
		ev(0, &event.RunStartedData{Model: "gpt-4.1", Budget: &event.Budget{Tokens: 1000, Time: "1m"}}),
		ev(1, &event.ModelRequestData{Step: 1}),
		ev(2, answer(100, 10)),
		ev(3, &event.ModelChangedData{From: "gpt-4.1", To: "unpriced"}),
		ev(4, &event.ModelRequestData{Step: 2}),
		ev(5, &event.AssistantMessageData{}), // usage unknown: nothing
		ev(6, &event.RunFinishedData{Status: event.StatusCompleted}),
		// an hour later, resumed: the idle hour is not the run's time
		ev(3606, &event.BudgetChangedData{To: event.Budget{Tokens: 5000}}),
		ev(3610, &event.ModelRequestData{Step: 3, Model: "gpt-4.1"}),
		ev(3611, answer(200, 20)),
	} {
		tl.Apply(e)
	}
	if tl.Tokens() != 330 {
		t.Errorf("tokens %d, want 330", tl.Tokens())
	}
	if tl.Limits != (Limits{Tokens: 5000}) {
		t.Errorf("limits %+v: budget_changed replaces the whole budget", tl.Limits)
	}
	usd, ok := tl.Cost(nil)
	if want := (300*2 + 30*8) / 1e6; !ok || fmt.Sprintf("%.9f", usd) != fmt.Sprintf("%.9f", want) {
		t.Errorf("cost %v %v, want %v", usd, ok, want)
	}
	if got := tl.Elapsed(t0.Add(3620 * time.Second)); got != 6*time.Second+14*time.Second {
		t.Errorf("elapsed %v, want 20s (6s + the open stretch's 14s)", got)
	}
	tl.Apply(ev(3612, &event.ModelRequestData{Step: 4, Model: "unpriced"}))
	tl.Apply(ev(3613, answer(1, 1)))
	if _, ok := tl.Cost(nil); ok {
		t.Error("a run that spent tokens on a model without a price has no known cost")
	}
}

// An answer without usable usage counts as its request's counted input: a
// provider that reports none cannot run past a budget.
func TestAnswerWithoutUsageCountsItsCountedInput(t *testing.T) {
	var tl Tally
	tl.Apply(ev(0, &event.RunStartedData{Model: "gpt-4.1"}))
	tl.Apply(ev(1, &event.ModelRequestData{Step: 1, Context: event.ContextReport{TotalTokens: 3000}}))
	tl.Apply(ev(2, &event.AssistantMessageData{UsageWarning: "impossible usage"}))
	tl.Apply(ev(3, &event.ModelRequestData{Step: 2, Context: event.ContextReport{TotalTokens: 3500}}))
	tl.Apply(ev(4, answer(3400, 10)))
	if tl.Tokens() != 3000+3410 || tl.Estimated != 1 {
		t.Errorf("tokens %d (estimated %d), want 6410 with one estimate", tl.Tokens(), tl.Estimated)
	}
}

func TestCrashedStretchEndsAtItsLastEvent(t *testing.T) {
	var tl Tally
	tl.Apply(ev(0, &event.RunStartedData{Model: "m"}))
	tl.Apply(ev(10, &event.ModelRequestData{Step: 1}))
	// killed; resumed 100 s later
	tl.Apply(ev(110, &event.ResumeData{}))
	if got := tl.Elapsed(t0.Add(115 * time.Second)); got != 15*time.Second {
		t.Errorf("elapsed %v, want 15s", got)
	}
}

func TestCheck(t *testing.T) {
	prices := pricing.New(nil)
	mk := func(l Limits, spentIn, spentOut int) *Tally {
		tl := &Tally{}
		tl.Apply(ev(0, &event.RunStartedData{Model: "gpt-4.1", Budget: l.Event()}))
		if spentIn+spentOut > 0 {
			tl.Apply(ev(1, &event.ModelRequestData{Step: 1}))
			tl.Apply(ev(2, answer(spentIn, spentOut)))
		}
		return tl
	}
	now := t0.Add(5 * time.Second)
	req := Request{Model: "gpt-4.1", Input: 1000, Reserve: 8192}
	cases := []struct {
		name string
		tl   *Tally
		req  Request
		kind string
	}{
		{"no budget", mk(Limits{}, 1e6, 1e6), req, ""},
		{"tokens fit exactly", mk(Limits{Tokens: 200000 + 9192}, 150000, 50000), req, ""},
		{"tokens one over", mk(Limits{Tokens: 200000 + 9191}, 150000, 50000), req, "tokens"},
		{"spent all", mk(Limits{Tokens: 200000}, 150000, 50000), Request{Model: "gpt-4.1"}, ""},
		{"spent all, any request", mk(Limits{Tokens: 200000}, 150000, 50000), Request{Model: "gpt-4.1", Input: 1}, "tokens"},
		// $2/M in, $8/M out: 1000 in + 8192 reserve = $0.002 + $0.065536
		{"usd fits", mk(Limits{USD: 0.07}, 0, 0), req, ""},
		{"usd over", mk(Limits{USD: 0.06}, 0, 0), req, "usd"},
		{"usd unpriced", mk(Limits{USD: 100}, 0, 0), Request{Model: "no-price", Input: 1}, "usd"},
		{"time up", mk(Limits{Time: 5 * time.Second}, 0, 0), req, "time"},
		{"time left", mk(Limits{Time: 6 * time.Second}, 0, 0), req, ""},
	}
	for _, c := range cases {
		err := c.tl.Check(prices, c.req, now)
		e, over := IsExhausted(err)
		switch {
		case c.kind == "" && err != nil:
			t.Errorf("%s: %v", c.name, err)
		case c.kind != "" && (!over || e.Kind != c.kind):
			t.Errorf("%s: got %v, want a %s exhaustion", c.name, err, c.kind)
		case over && !strings.Contains(e.Error(), "budget"):
			t.Errorf("%s: message %q does not say budget", c.name, e.Error())
		}
	}
	err := fmt.Errorf("wrapped: %w", &Exhausted{Kind: "usd", Unpriced: "x", Limit: Limits{USD: 1}})
	if e, ok := IsExhausted(err); !ok || !strings.Contains(e.Error(), `[models."x"]`) || e.Flag() != "--budget-usd" {
		t.Errorf("an unpriced model's message names the fix: %v", err)
	}
	if _, ok := IsExhausted(errors.New("other")); ok {
		t.Error("IsExhausted of another error")
	}
}

func TestParse(t *testing.T) {
	for s, want := range map[string]int64{"400000": 400000, "400_000": 400000, "400k": 400000, "2M": 2000000} {
		if got, err := ParseTokens(s); err != nil || got != want {
			t.Errorf("ParseTokens(%q) = %d, %v", s, got, err)
		}
	}
	for _, s := range []string{"", "0", "-5", "1.5", "lots", "99999999999999999999k"} {
		if _, err := ParseTokens(s); err == nil {
			t.Errorf("ParseTokens(%q) took it", s)
		}
	}
	if v, err := ParseUSD("$5.50"); err != nil || v != 5.5 {
		t.Errorf("ParseUSD: %v %v", v, err)
	}
	for _, s := range []string{"0", "-1", "NaN", "Inf", "five"} {
		if _, err := ParseUSD(s); err == nil {
			t.Errorf("ParseUSD(%q) took it", s)
		}
	}
	if d, err := ParseTime("30m"); err != nil || d != 30*time.Minute {
		t.Errorf("ParseTime: %v %v", d, err)
	}
	for _, s := range []string{"0s", "-1m", "3d", "soon"} {
		if _, err := ParseTime(s); err == nil {
			t.Errorf("ParseTime(%q) took it", s)
		}
	}
}

func TestLimitsMinOver(t *testing.T) {
	user := Limits{Tokens: 1000, USD: 5}
	proj := Limits{Tokens: 2000, USD: 1, Time: time.Minute}
	if got := user.Min(proj); got != (Limits{Tokens: 1000, USD: 1, Time: time.Minute}) {
		t.Errorf("Min = %+v", got)
	}
	if got := user.Over(Limits{USD: 50}); got != (Limits{Tokens: 1000, USD: 50}) {
		t.Errorf("Over = %+v", got)
	}
	if l := FromEvent(Limits{Time: 90 * time.Second, Tokens: 7}.Event()); l != (Limits{Time: 90 * time.Second, Tokens: 7}) {
		t.Errorf("round trip %+v", l)
	}
}
