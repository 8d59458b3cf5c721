// Package budget owns what a run may spend and what it has spent: the
// budget in force (run_started's, then each budget_changed), the
// provider-reported tokens of its requests by model (and of its finished
// subagent children, from their task results), its active wall time, the
// check made before each model request (would sending it cross the
// budget?) and a child's share of what is left (Share). It folds journal events and prices tokens with internal/pricing;
// it never sends, stores or renders anything.
package budget

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"agent/internal/event"
	"agent/internal/pricing"
)

// Limits are parsed budget figures; a zero field is no limit of that kind.
type Limits struct {
	Tokens int64
	USD    float64
	Time   time.Duration
}

// IsZero reports whether l sets no limit.
func (l Limits) IsZero() bool { return l.Tokens == 0 && l.USD == 0 && l.Time == 0 }

// Event is l in the journal's form (nil when l sets nothing).
func (l Limits) Event() *event.Budget {
	if l.IsZero() {
		return nil
	}
	b := &event.Budget{Tokens: l.Tokens, USD: l.USD}
	if l.Time > 0 {
		b.Time = l.Time.String()
	}
	return b
}

// FromEvent parses a journaled budget (nil: none). A time that does not
// parse is no time limit.
func FromEvent(b *event.Budget) Limits {
	if b == nil {
		return Limits{}
	}
	l := Limits{Tokens: b.Tokens, USD: b.USD}
	if d, err := time.ParseDuration(b.Time); err == nil && d > 0 {
		l.Time = d
	}
	return l
}

// Over returns l with each limit that o sets replacing l's.
func (l Limits) Over(o Limits) Limits {
	if o.Tokens != 0 {
		l.Tokens = o.Tokens
	}
	if o.USD != 0 {
		l.USD = o.USD
	}
	if o.Time != 0 {
		l.Time = o.Time
	}
	return l
}

// Min returns, per kind, the lower of l's and o's limits (a zero is no
// limit, so the other one stands): how a project file may only lower a
// budget.
func (l Limits) Min(o Limits) Limits {
	lo := func(a, b int64) int64 {
		if a == 0 || (b != 0 && b < a) {
			return b
		}
		return a
	}
	if o.USD != 0 && (l.USD == 0 || o.USD < l.USD) {
		l.USD = o.USD
	}
	l.Tokens = lo(l.Tokens, o.Tokens)
	l.Time = time.Duration(lo(int64(l.Time), int64(o.Time)))
	return l
}

// ParseTokens parses a token budget: a positive whole number (underscores
// and a k or M suffix allowed: 400000, 400_000, 400k, 2M).
func ParseTokens(s string) (int64, error) {
	t := strings.ReplaceAll(strings.TrimSpace(s), "_", "")
	mult := int64(1)
	switch {
	case strings.HasSuffix(t, "k"), strings.HasSuffix(t, "K"):
		mult, t = 1000, t[:len(t)-1]
	case strings.HasSuffix(t, "M"), strings.HasSuffix(t, "m"):
		mult, t = 1_000_000, t[:len(t)-1]
	}
	n, err := strconv.ParseInt(t, 10, 64)
	if err != nil || n <= 0 || n > math.MaxInt64/mult {
		return 0, fmt.Errorf("%q is not a token count: write a positive whole number, e.g. 400000 or 400k", s)
	}
	return n * mult, nil
}

// ParseUSD parses a dollar budget: a positive number ("5", "0.50", "$5").
func ParseUSD(s string) (float64, error) {
	t := strings.TrimPrefix(strings.TrimSpace(s), "$")
	f, err := strconv.ParseFloat(t, 64)
	if err != nil || math.IsNaN(f) || math.IsInf(f, 0) || f <= 0 {
		return 0, fmt.Errorf("%q is not an amount of dollars: write a positive number, e.g. 5 or 0.50", s)
	}
	return f, nil
}

// ParseTime parses a wall-time budget: a positive Go duration ("30m", "2h").
func ParseTime(s string) (time.Duration, error) {
	d, err := time.ParseDuration(strings.TrimSpace(s))
	if err != nil || d <= 0 {
		return 0, fmt.Errorf("%q is not a duration: write a positive Go duration, e.g. 30m or 2h (units s, m, h)", s)
	}
	return d, nil
}

// Request is what the next model request would spend, as the context
// builder counted it.
type Request struct {
	Model   string
	Input   int // the builder's count of the request
	Reserve int // the answer reserve
}

// Exhausted is why a request was not sent: the limit it would cross and
// the figures. Its message names them and the way to go on.
type Exhausted struct {
	Kind  string // "tokens", "usd" or "time"
	Limit Limits
	// Spent so far, and what the request would add (its counted input and
	// the answer reserve, in tokens; their estimated cost in USD).
	SpentTokens int64
	SpentUSD    float64
	Elapsed     time.Duration
	Need        Request
	NeedUSD     float64
	// Unpriced names a model without a price under a USD limit.
	Unpriced string
}

func (e *Exhausted) Error() string {
	switch e.Kind {
	case "usd":
		if e.Unpriced != "" {
			return fmt.Sprintf("usd budget of %s cannot be kept: model %s has no price; set price_input and price_output under [models.%q] in the user config, or use --budget-tokens",
				pricing.FormatUSD(e.Limit.USD), e.Unpriced, e.Unpriced)
		}
		return fmt.Sprintf("usd budget reached: %s spent of %s; the next request would add about %s (%d input + %d reserved answer tokens)",
			pricing.FormatUSD(e.SpentUSD), pricing.FormatUSD(e.Limit.USD), pricing.FormatUSD(e.NeedUSD), e.Need.Input, e.Need.Reserve)
	case "time":
		return fmt.Sprintf("time budget reached: %s of %s used", e.Elapsed.Round(time.Second), e.Limit.Time)
	}
	return fmt.Sprintf("token budget reached: %d tokens spent of %d; the next request needs %d more (%d input + %d reserved for the answer)",
		e.SpentTokens, e.Limit.Tokens, e.Need.Input+e.Need.Reserve, e.Need.Input, e.Need.Reserve)
}

// Flag is the resume flag that raises the limit e hit.
func (e *Exhausted) Flag() string {
	switch e.Kind {
	case "usd":
		return "--budget-usd"
	case "time":
		return "--budget-time"
	}
	return "--budget-tokens"
}

// IsExhausted reports whether err is (or wraps) an *Exhausted.
func IsExhausted(err error) (*Exhausted, bool) {
	var e *Exhausted
	ok := errors.As(err, &e)
	return e, ok
}
