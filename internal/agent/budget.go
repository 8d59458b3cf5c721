package agent

import (
	"context"
	"time"

	"agent/internal/budget"
	"agent/internal/event"
)

// checkBudget holds a request to the run's budget before it is sent: its
// counted input (the builder's count) plus the answer reserve must fit
// what is left. A request that would cross it is not sent; the error is a
// *budget.Exhausted and the run pauses (budget_exhausted).
func (r *Runner) checkBudget(st *State, rep event.ContextReport) error {
	return st.Spend.Check(r.Prices, budget.Request{Model: st.Model, Input: rep.TotalTokens, Reserve: rep.Reserve}, time.Now())
}

// SetBudget journals a new budget of the run (resume --budget-*, a person
// raising it in the TUI) when it differs from the one in force.
func (r *Runner) SetBudget(ctx context.Context, st *State, l budget.Limits, src event.Source) error {
	if l == st.Spend.Limits {
		return nil
	}
	d := &event.BudgetChangedData{From: st.Spend.Limits.Event(), Source: src}
	if b := l.Event(); b != nil {
		d.To = *b
	}
	if err := r.record(ctx, st, d); err != nil {
		return err
	}
	return r.flush(ctx, st, false)
}
