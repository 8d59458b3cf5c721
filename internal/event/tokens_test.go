package event

import (
	"math"
	"testing"
)

func TestTokenCountsSaturate(t *testing.T) {
	var c TokenCount
	c.Add(TokenCount{Input: math.MaxInt - 10, Output: 5})
	c.Add(TokenCount{Input: 100, Output: -7})
	if c.Input != math.MaxInt || c.Output != 5 {
		t.Fatalf("got %+v, want input saturated at MaxInt and a negative output ignored", c)
	}
	if SatAdd(1, 2) != 3 || SatAdd(math.MaxInt, math.MaxInt) != math.MaxInt {
		t.Fatal("SatAdd")
	}
	for _, bad := range []TokenCount{{Input: -1}, {Output: MaxRequestTokens + 1}, {CacheRead: math.MaxInt}, {CacheWrite: -5}} {
		if bad.Plausible() {
			t.Errorf("%+v taken as plausible", bad)
		}
	}
	if !(TokenCount{Input: 200_000, Output: 8_000, CacheRead: 150_000}).Plausible() {
		t.Error("an ordinary usage taken as implausible")
	}
}
