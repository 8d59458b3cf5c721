package budget

import (
	"testing"
	"time"

	"agent/internal/event"
	"agent/internal/pricing"
)

// BenchmarkCheck is the budget check made before each model request, on a
// run of 1,000 requests with every kind of limit set: the spend is folded
// as events are journaled, so a check prices the spent tokens by model and
// the request's estimate.
func BenchmarkCheck(b *testing.B) {
	var tl Tally
	tl.Apply(ev(0, &event.RunStartedData{Model: "gpt-4.1", Budget: &event.Budget{Tokens: 1 << 40, USD: 1e9, Time: "1000h"}}))
	for i := range 1000 {
		tl.Apply(ev(i, &event.ModelRequestData{Step: i + 1}))
		tl.Apply(ev(i, answer(5000, 200)))
	}
	prices, now := pricing.New(nil), t0.Add(time.Hour)
	req := Request{Model: "gpt-4.1-2025-04-14", Input: 12000, Reserve: 8192}
	b.ResetTimer()
	for range b.N {
		if err := tl.Check(prices, req, now); err != nil {
			b.Fatal(err)
		}
		_ = tl.Spent(prices)
	}
}
