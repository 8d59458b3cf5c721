package budget

import (
	"math"
	"time"

	"agent/internal/event"
	"agent/internal/pricing"
)

// Share is the budget of one child of a run whose spend is t, started at
// now with siblings-1 others in the same turn: of what is left of each of
// t's limits, the fraction share (0: an equal share among the siblings)
// of its tokens and dollars, and all of its time (children run side by
// side). A kind t does not limit, the child is not limited in either;
// nothing left is the least positive amount, so the child ends at its
// first request. The children's spend counts in the parent's (see
// Apply), so the parent's next request is held to what they left.
func Share(t *Tally, p *pricing.Table, share float64, siblings int, now time.Time) Limits {
	l := t.Limits
	if l.IsZero() {
		return Limits{}
	}
	if share <= 0 || share > 1 {
		if siblings < 1 {
			siblings = 1
		}
		share = 1 / float64(siblings)
	}
	var out Limits
	if l.Tokens > 0 {
		out.Tokens = max(int64(math.Floor(float64(l.Tokens-t.Tokens())*share)), 1)
	}
	if l.USD > 0 {
		spent, _ := t.Cost(p)
		out.USD = max((l.USD-spent)*share, 1e-9)
	}
	if l.Time > 0 {
		out.Time = max(l.Time-t.Elapsed(now), time.Millisecond).Round(time.Millisecond)
	}
	return out
}

// addChild counts a finished child's usage (a task call's result) in the
// parent's spend.
func (t *Tally) addChild(u map[string]event.TokenCount) {
	if len(u) == 0 {
		return
	}
	if t.ByModel == nil {
		t.ByModel = map[string]event.TokenCount{}
	}
	for m, c := range u {
		cur := t.ByModel[m]
		cur.Add(c)
		t.ByModel[m] = cur
	}
}
