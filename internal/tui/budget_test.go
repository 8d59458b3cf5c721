package tui

import (
	"strings"
	"testing"

	"agent/internal/app"
	"agent/internal/budget"
	"agent/internal/event"
)

// A run with a token budget in the TUI: the meter and the cost in the
// status bar, the warning past 80 %, a clear pause before the request that
// would cross it, and /budget raising it so that the run goes on.
func TestBudgetMeterWarnPauseAndRaise(t *testing.T) {
	withBudget := func(s *app.Settings) {
		s.Model = "gpt-4.1"
		s.Budget = budget.Limits{Tokens: 205000}
	}
	first := turnJSON("Looking.", call{"c1", "read_file", args(map[string]any{"path": "a.txt"})})
	first["usage"] = map[string]any{"input": 150000, "output": 50000}
	last := turnJSON("All done (BUDGET-DONE).")
	last["usage"] = map[string]any{"input": 1000, "output": 10}
	h := newHarnessWith(t, withBudget, "ask", map[string]string{"a.txt": "hello\n"}, first, last)
	h.text("read a.txt")
	h.enter()
	h.idle()
	s := h.screen()
	// 200000 of 205000 spent; the next request's input + answer reserve would cross it
	for _, want := range []string{"97% of the run's 205k tokens budget is spent", "paused: token budget reached: 200000 tokens spent of 205000",
		"/budget tokens VALUE", "budget reached: 205k tokens", "$0.700"} {
		if !strings.Contains(s, want) {
			t.Errorf("screen lacks %q:\n%s", want, s)
		}
	}
	var status event.Status
	h.probe(func(m *model) { status = m.tr.status })
	if status != event.StatusBudgetExhausted {
		t.Fatalf("status %s, want budget_exhausted", status)
	}
	h.slashCmd("/budget tokens 1M")
	h.until("the answer after the raise", func(m *model) bool {
		return m.phase == phaseIdle && m.tr.status == event.StatusCompleted
	})
	s = h.screen()
	if !strings.Contains(s, "BUDGET-DONE") || !strings.Contains(s, "budget 20% of 1M tokens") {
		t.Errorf("after /budget tokens 1M the run did not finish under the new meter:\n%s", s)
	}
	changed := 0
	for _, ev := range h.events() {
		if d, ok := ev.Data.(*event.BudgetChangedData); ok {
			changed++
			if d.To.Tokens != 1_000_000 || d.From == nil || d.From.Tokens != 205000 || d.Source != event.SourceUser {
				t.Errorf("budget_changed %+v", d)
			}
		}
	}
	if changed != 1 {
		t.Errorf("%d budget_changed events, want 1", changed)
	}
}
