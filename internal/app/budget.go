package app

import (
	"context"

	"agent/internal/budget"
	"agent/internal/config"
	"agent/internal/event"
	"agent/internal/pricing"
)

// checkBudget refuses a USD budget the session cannot keep: its model has
// no price.
func (s *Service) checkBudget() error {
	if s.set.Budget.USD == 0 {
		return nil
	}
	if _, ok := s.set.Prices.Lookup(s.set.Model); !ok {
		return usage("--budget-usd needs the price of model %s, which the built-in list does not have: set price_input and price_output under [models.%q] in the user config, or use --budget-tokens",
			s.set.Model, s.set.Model)
	}
	return nil
}

// Spend is what the run may spend and has spent, folded from its journal.
// Read it only while the run is not being driven.
func (r *Run) Spend() budget.Tally { return r.state.Spend }

// SetBudget replaces the run's budget (a person raising it in the TUI;
// journaled as budget_changed). The next Drive is held to it.
func (r *Run) SetBudget(ctx context.Context, l budget.Limits) error {
	r.mu.Lock()
	driving := r.cancel != nil
	r.mu.Unlock()
	if driving {
		return usage("run %s is being driven: change its budget when it pauses", r.id)
	}
	return r.s.runner.SetBudget(ctx, r.state, l, event.SourceUser)
}

// spendTypes are the events a run's spend folds.
var spendTypes = []event.Type{event.RunStarted, event.ModelChanged, event.BudgetChanged, event.ModelRequest,
	event.AssistantMessage, event.Resume, event.RunFinished}

// Spend folds what a run may spend and has spent from its journal.
func (h *Home) Spend(ctx context.Context, runID string) (budget.Tally, error) {
	evs, err := h.st.EventsOfTypes(ctx, runID, spendTypes...)
	if err != nil {
		return budget.Tally{}, err
	}
	var t budget.Tally
	for _, ev := range evs {
		t.Apply(ev)
	}
	return t, nil
}

// Prices is the price table of the user config (built in, with its
// [models."NAME"] overrides); a bad user file is a *UsageError.
func Prices() (*pricing.Table, error) {
	p, err := config.UserPrices(nil)
	if err != nil {
		return nil, &UsageError{Err: err}
	}
	return p, nil
}

// Prices is the session's price table.
func (s *Service) Prices() *pricing.Table { return s.set.Prices }
