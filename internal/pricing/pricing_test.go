package pricing

import (
	"math"
	"testing"

	"agent/internal/event"
)

func TestBuiltinNamesAndVariants(t *testing.T) {
	for _, c := range []struct {
		model string
		in    float64
		ok    bool
	}{
		{"gpt-4.1", 2, true},
		{"GPT-4.1", 2, true},
		{"gpt-4.1-2025-04-14", 2, true},
		{"gpt-4.1-mini", 0.40, true},
		{"gpt-4.1-mini-2025-04-14", 0.40, true},
		{"openai/gpt-4o", 2.50, true},
		{"gpt-4o-mini", 0.15, true},
		{"gpt-5", 1.25, true},
		{"gpt-5-mini", 0.25, true},
		{"o3", 2, true},
		{"o4-mini", 1.10, true},
		{"claude-sonnet-4-5-20250929", 3, true},
		{"claude-sonnet-4-20250514", 3, true},
		{"claude-sonnet-4-0", 3, true},
		{"claude-opus-4-1-20250805", 15, true},
		{"claude-opus-4-5", 5, true},
		{"claude-haiku-4-5-20251001", 1, true},
		// an unknown sibling is not priced as its prefix
		{"claude-opus-4-9", 0, false},
		{"gpt-4.1-turbo-ultra", 0, false},
		{"o3x", 0, false},
		{"fake-model", 0, false},
		{"", 0, false},
	} {
		p, ok := Builtin(c.model)
		if ok != c.ok || p.Input != c.in {
			t.Errorf("Builtin(%q) = %v, %v; want input %v, %v", c.model, p.Input, ok, c.in, c.ok)
		}
	}
}

func TestEveryBuiltinPriceIsSane(t *testing.T) {
	for _, name := range Known() {
		p, _ := Builtin(name)
		if p.Input <= 0 || p.Output < p.Input || p.CacheRead <= 0 || p.CacheRead > p.Input || p.CacheWrite < p.Input {
			t.Errorf("%s: implausible price %+v", name, p)
		}
	}
}

func TestCostPricesCacheAtItsRates(t *testing.T) {
	p := Price{Input: 3, Output: 15, CacheRead: 0.3, CacheWrite: 3.75}
	// 1M input of which 400k read from cache and 100k written: 500k at 3,
	// 400k at 0.3, 100k at 3.75; 200k output at 15
	got := p.Cost(event.TokenCount{Input: 1_000_000, CacheRead: 400_000, CacheWrite: 100_000, Output: 200_000})
	want := 1.5 + 0.12 + 0.375 + 3
	if math.Abs(got-want) > 1e-9 {
		t.Fatalf("cost %v, want %v", got, want)
	}
	// cache counts larger than the input (a confused provider) never make
	// a negative cost
	if c := p.Cost(event.TokenCount{Input: 10, CacheRead: 100}); c < 0 {
		t.Fatalf("negative cost %v", c)
	}
}

func TestOverrides(t *testing.T) {
	f := func(v float64) *float64 { return &v }
	w := 1000
	tb := New(map[string]Override{
		"gpt-4.1":    {Input: f(1)},                             // overrides one field of a listed model
		"Fake-Model": {Input: f(100), Output: f(1), Window: &w}, // an unlisted model, both prices
		"half-model": {Input: f(5)},                             // unlisted without an output price: still unpriced
	})
	if p, ok := tb.Lookup("gpt-4.1"); !ok || p.Input != 1 || p.Output != 8 {
		t.Errorf("gpt-4.1 override: %+v %v", p, ok)
	}
	if p, ok := tb.Lookup("fake-model"); !ok || p.Input != 100 || p.CacheRead != 100 || p.CacheWrite != 100 {
		t.Errorf("fake-model: %+v %v (unset cache prices are the input's)", p, ok)
	}
	if _, ok := tb.Lookup("half-model"); ok {
		t.Error("half-model has a price without an output price")
	}
	if tb.Window("fake-model") != 1000 || tb.Window("gpt-4.1") != 0 {
		t.Error("windows")
	}
	c, ok := tb.Cost("fake-model", event.TokenCount{Input: 100000, Output: 1000})
	if !ok || math.Abs(c-10.001) > 1e-9 {
		t.Errorf("cost %v %v, want 10.001", c, ok)
	}
	var nilTable *Table
	if _, ok := nilTable.Lookup("gpt-4o"); !ok {
		t.Error("a nil table is the built-in list")
	}
}

func TestFormatUSD(t *testing.T) {
	for v, want := range map[float64]string{0: "$0.00", 0.0003: "$0.0003", 0.0123: "$0.012", 1.25: "$1.25", 40.004: "$40.00"} {
		if got := FormatUSD(v); got != want {
			t.Errorf("FormatUSD(%v) = %q, want %q", v, got, want)
		}
	}
}
