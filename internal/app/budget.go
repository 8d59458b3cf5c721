package app

import (
	"context"

	"agent/internal/budget"
	"agent/internal/event"
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
