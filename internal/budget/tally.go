package budget

import (
	"time"

	"agent/internal/event"
	"agent/internal/pricing"
)

// Tally is what a run's journal says it may spend and has spent. Apply
// folds its events in order; the zero value is an empty run.
type Tally struct {
	// Limits is the budget in force: run_started's, then each
	// budget_changed's.
	Limits Limits
	// ByModel is the provider-reported usage of the run's requests by the
	// model that answered them, and of its finished children's (a task
	// result's child_usage).
	ByModel map[string]event.TokenCount
	// Requests counts the model requests journaled.
	Requests int
	// Estimated counts the requests whose answer reported no usable usage:
	// each counts as its counted input (the builder's count), so that a
	// provider without usage cannot run past a budget.
	Estimated int

	model, reqModel string
	counted         int           // the newest request's counted input
	active          time.Duration // closed stretches of the run
	stretch, last   time.Time     // the open stretch's start (zero: none), the newest event's time
}

// Apply folds one event.
func (t *Tally) Apply(ev event.Event) {
	if t.stretch.IsZero() && !ev.Time.IsZero() {
		t.stretch = ev.Time
	}
	switch d := ev.Data.(type) {
	case *event.RunStartedData:
		t.model = d.Model
		t.Limits = FromEvent(d.Budget)
	case *event.ModelChangedData:
		t.model = d.To
	case *event.BudgetChangedData:
		t.Limits = FromEvent(&d.To)
	case *event.ModelRequestData:
		t.Requests++
		t.reqModel = t.model
		if d.Model != "" {
			t.reqModel = d.Model
		}
		t.counted = d.Context.TotalTokens
	case *event.AssistantMessageData:
		u := d.Tokens
		if u == nil {
			if t.counted <= 0 {
				break
			}
			u = &event.TokenCount{Input: t.counted}
			t.Estimated++
		}
		if t.ByModel == nil {
			t.ByModel = map[string]event.TokenCount{}
		}
		m := t.reqModel
		if m == "" {
			m = t.model
		}
		c := t.ByModel[m]
		c.Add(*u)
		t.ByModel[m] = c
		t.counted = 0
	case *event.ToolResultData:
		t.addChild(d.ChildUsage)
	case *event.ResumeData:
		// a process died in the open stretch: it ended at the last event
		// before this one, and a new stretch starts now
		if !t.last.IsZero() && !t.stretch.IsZero() && t.last.After(t.stretch) {
			t.active += t.last.Sub(t.stretch)
		}
		t.stretch = ev.Time
	case *event.RunFinishedData:
		if !t.stretch.IsZero() && ev.Time.After(t.stretch) {
			t.active += ev.Time.Sub(t.stretch)
		}
		t.stretch = time.Time{}
	}
	if !ev.Time.IsZero() {
		t.last = ev.Time
	}
}

// Tokens is the input + output tokens spent.
func (t *Tally) Tokens() int64 {
	var n int64
	for _, c := range t.ByModel {
		n += int64(c.Input) + int64(c.Output)
	}
	return n
}

// Usage is the summed usage over every model.
func (t *Tally) Usage() event.TokenCount {
	var u event.TokenCount
	for _, c := range t.ByModel {
		u.Add(c)
	}
	return u
}

// Cost is the USD spent; ok false when a model that spent tokens has no
// price (then only tokens are known).
func (t *Tally) Cost(p *pricing.Table) (float64, bool) {
	var usd float64
	for m, c := range t.ByModel {
		v, ok := p.Cost(m, c)
		if !ok {
			if c.Input == 0 && c.Output == 0 {
				continue
			}
			return 0, false
		}
		usd += v
	}
	return usd, true
}

// Elapsed is the run's active wall time at now: its stretches from its
// first event (or a resume) to its run_finished, and the open one.
func (t *Tally) Elapsed(now time.Time) time.Duration {
	d := t.active
	if !t.stretch.IsZero() && now.After(t.stretch) {
		d += now.Sub(t.stretch)
	}
	return d
}

// Spent is the journal's form of what was spent (model_request.spent).
func (t *Tally) Spent(p *pricing.Table) *event.Spent {
	s := &event.Spent{Tokens: t.Tokens()}
	if usd, ok := t.Cost(p); ok {
		s.USD = &usd
	}
	return s
}

// Check returns an *Exhausted when sending req at now would cross the
// budget: spent tokens + its counted input + the answer reserve over the
// token limit; the spent cost + its estimated cost (input at the input
// price, the reserve at the output price) over the USD limit; or the time
// used up. A USD limit with a model that has no price is exhausted too:
// the limit cannot be kept.
func (t *Tally) Check(p *pricing.Table, req Request, now time.Time) error {
	l := t.Limits
	if l.IsZero() {
		return nil
	}
	ex := func(kind string) *Exhausted {
		return &Exhausted{Kind: kind, Limit: l, SpentTokens: t.Tokens(), Elapsed: t.Elapsed(now), Need: req}
	}
	if l.Time > 0 && t.Elapsed(now) >= l.Time {
		return ex("time")
	}
	if l.Tokens > 0 && t.Tokens()+int64(req.Input)+int64(req.Reserve) > l.Tokens {
		return ex("tokens")
	}
	if l.USD > 0 {
		spent, ok := t.Cost(p)
		price, priced := p.Lookup(req.Model)
		if !ok || !priced {
			e := ex("usd")
			e.Unpriced = req.Model
			return e
		}
		need := price.Cost(event.TokenCount{Input: req.Input, Output: req.Reserve})
		if spent+need > l.USD {
			e := ex("usd")
			e.SpentUSD, e.NeedUSD = spent, need
			return e
		}
	}
	return nil
}
