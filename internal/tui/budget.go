package tui

import (
	"fmt"
	"strings"

	tea "charm.land/bubbletea/v2"

	"agent/internal/budget"
	"agent/internal/event"
	"agent/internal/pricing"
	"agent/internal/protocol"
)

// budgetWarnAt is the share of a budget at which the person is warned.
const budgetWarnAt = 0.8

// applySpend folds an event into the session's and the run's spend.
func (t *transcriptState) applySpend(ev event.Event) {
	if _, ok := ev.Data.(*event.RunStartedData); ok {
		t.runSpend, t.budgetWarned = budget.Tally{}, false
	}
	if d, ok := ev.Data.(*event.BudgetChangedData); ok {
		t.budgetWarned = false
		t.notice("budget set: %s", budgetWords(d.To))
	}
	t.spend.Apply(ev)
	t.runSpend.Apply(ev)
}

// sessionCost is the session's cost for the status bar; -1 when a model
// that spent tokens has no price (the bar then shows tokens only).
func (m *model) sessionCost() float64 {
	if len(m.tr.spend.ByModel) == 0 {
		return -1 // nothing spent yet: no "$0.00" before the first answer
	}
	usd, ok := m.tr.spend.Cost(m.svc.Prices())
	if !ok {
		return -1
	}
	return usd
}

// costWords is the cost for /status: " · cost $0.0123", or why there is none.
func (m *model) costWords() string {
	s := ""
	if c := m.sessionCost(); c >= 0 {
		s = " · cost " + pricing.FormatUSD(c)
	} else if len(m.tr.spend.ByModel) > 0 {
		s = " · cost unknown (no price for the model: set [models.\"NAME\"] price_input/price_output)"
	}
	if b, _ := m.budgetMeter(); b != "" {
		s += " · " + b
	}
	return s
}

// budgetShare is the largest share of the run's budget spent, with the
// limit it is of ("" without a budget).
func (m *model) budgetShare() (float64, string) {
	t := &m.tr.runSpend
	l := t.Limits
	best, what := -1.0, ""
	if l.Tokens > 0 {
		best, what = float64(t.Tokens())/float64(l.Tokens), fmt.Sprintf("%s tokens", compact(l.Tokens))
	}
	if l.USD > 0 {
		if usd, ok := t.Cost(m.svc.Prices()); ok {
			if f := usd / l.USD; f > best {
				best, what = f, pricing.FormatUSD(l.USD)
			}
		}
	}
	if l.Time > 0 {
		if f := float64(t.Elapsed(m.now())) / float64(l.Time); f > best {
			best, what = f, l.Time.String()
		}
	}
	return best, what
}

// budgetMeter is the status bar's budget field and its level (0 fine,
// 1 past 80 %, 2 reached).
func (m *model) budgetMeter() (string, int) {
	f, what := m.budgetShare()
	if what == "" {
		return "", 0
	}
	switch {
	case m.tr.status == event.StatusBudgetExhausted:
		return "budget reached: " + what, 2
	case f >= budgetWarnAt:
		return fmt.Sprintf("budget %d%% of %s", int(f*100), what), 1
	}
	return fmt.Sprintf("budget %d%% of %s", int(f*100+0.5), what), 0
}

// watchBudget warns once when the run passes 80 % of its budget.
func (m *model) watchBudget() {
	if m.tr.budgetWarned {
		return
	}
	if f, what := m.budgetShare(); what != "" && f >= budgetWarnAt && f < 1 {
		m.tr.budgetWarned = true
		m.tr.warn("budget: %d%% of the run's %s budget is spent; the run pauses before a request would cross it", int(f*100), what)
	}
}

// budgetReached says that the run paused at its budget and how to go on.
func (m *model) budgetReached(out protocol.Outcome) {
	msg := "the run reached its budget"
	if e, ok := budget.IsExhausted(out.Err); ok {
		msg = e.Error()
	}
	m.tr.warn("paused: %s. Raise it with /budget %s VALUE and the run goes on, or type a new request after raising it; nothing is lost",
		msg, budgetKind(out.Err))
}

func budgetKind(err error) string {
	if e, ok := budget.IsExhausted(err); ok {
		return e.Kind
	}
	return "tokens|usd|time"
}

// budgetCommand is /budget: without arguments the run's budget and spend;
// "/budget usd 10" (or tokens N, time 30m) replaces that limit, journaled
// as budget_changed, and a run paused at its budget goes on.
func (m *model) budgetCommand(args string) tea.Cmd {
	f := strings.Fields(args)
	if len(f) == 0 {
		b, _ := m.budgetMeter()
		if b == "" {
			b = "no budget (set one with /budget tokens N, usd X or time 30m, or --budget-* flags)"
		}
		m.tr.notice("%s · spent %d tokens%s", b, m.tr.runSpend.Tokens(), m.costWords())
		return nil
	}
	if len(f) != 2 {
		m.flash = "usage: /budget tokens N | usd X | time DURATION"
		return nil
	}
	var l budget.Limits
	var err error
	switch f[0] {
	case "tokens":
		l.Tokens, err = budget.ParseTokens(f[1])
	case "usd", "$":
		l.USD, err = budget.ParseUSD(f[1])
	case "time":
		l.Time, err = budget.ParseTime(f[1])
	default:
		err = fmt.Errorf("%q is not tokens, usd or time", f[0])
	}
	if err != nil {
		m.flash = "/budget: " + err.Error()
		return nil
	}
	if m.run == nil {
		m.flash = "no run yet: start one with --budget-* flags, or raise its budget once it runs"
		return nil
	}
	if m.phase != phaseIdle {
		m.flash = "a run is in progress: raise its budget when it pauses (Esc interrupts it)"
		return nil
	}
	// journaled off the program's goroutine (the event comes back through
	// it); the transcript says so when budget_changed arrives
	r, ctx, lim := m.run, m.ctx, m.run.Spend().Limits.Over(l)
	resume := m.tr.status == event.StatusBudgetExhausted
	if resume {
		m.phase = phaseRunning
	}
	return func() tea.Msg {
		if err := r.SetBudget(ctx, lim); err != nil {
			if resume {
				return driveDoneMsg{out: protocol.Outcome{Status: event.StatusFailed, Err: err}}
			}
			return warnMsg{text: "/budget: " + err.Error()}
		}
		if resume {
			return driveDoneMsg{out: r.Drive(ctx)}
		}
		return nil
	}
}

// budgetWords is a budget in words: "400k tokens, $5.00, 30m0s".
func budgetWords(b event.Budget) string {
	l := budget.FromEvent(&b)
	var parts []string
	if l.Tokens > 0 {
		parts = append(parts, compact(l.Tokens)+" tokens")
	}
	if l.USD > 0 {
		parts = append(parts, pricing.FormatUSD(l.USD))
	}
	if l.Time > 0 {
		parts = append(parts, l.Time.String())
	}
	if len(parts) == 0 {
		return "none"
	}
	return strings.Join(parts, ", ")
}

// compact is a count in short form: 950, 400k, 1.5M.
func compact(n int64) string {
	switch {
	case n >= 1_000_000 && n%100_000 == 0:
		return strings.TrimSuffix(fmt.Sprintf("%.1f", float64(n)/1e6), ".0") + "M"
	case n >= 1000 && n%1000 == 0:
		return fmt.Sprintf("%dk", n/1000)
	}
	return fmt.Sprint(n)
}
