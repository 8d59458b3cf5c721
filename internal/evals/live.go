package evals

import (
	"agent/internal/event"
	"agent/internal/pricing"
)

// Cost is the price of tokens on model by the built-in price list
// (internal/pricing), or nil when the model is not in it or the provider
// reported no usage: such a task is reported in tokens only.
func Cost(model string, t Tokens) *float64 {
	if t.Input == 0 && t.Output == 0 {
		return nil
	}
	p, ok := pricing.Builtin(model)
	if !ok {
		return nil
	}
	c := roundTo(p.Cost(event.TokenCount{Input: t.Input, Output: t.Output}), 6)
	return &c
}
