package cmd

import (
	"fmt"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"agent/internal/app"
	"agent/internal/budget"
	"agent/internal/event"
	"agent/internal/pricing"
	"agent/internal/protocol"
)

// budgetFlags are --budget-tokens, --budget-usd and --budget-time.
type budgetFlags struct{ tokens, usd, time string }

func (b *budgetFlags) register(c *cobra.Command) {
	fl := c.Flags()
	fl.StringVar(&b.tokens, "budget-tokens", "", "stop before a model request would take the run past N tokens (input + output), e.g. 400000 or 400k; exit 4, resume with a higher budget")
	fl.StringVar(&b.usd, "budget-usd", "", "stop before a model request would take the run's cost past X dollars (from the price table), e.g. 5 or 0.50; exit 4")
	fl.StringVar(&b.time, "budget-time", "", "stop before a model request once the run has run this long, e.g. 30m; exit 4")
}

// limits parses the flags (zero fields: not given); a bad value is a usage
// error naming the flag.
func (b *budgetFlags) limits() (budget.Limits, error) {
	var l budget.Limits
	var err error
	if b.tokens != "" {
		if l.Tokens, err = budget.ParseTokens(b.tokens); err != nil {
			return l, usageErr("--budget-tokens: %v", err)
		}
	}
	if b.usd != "" {
		if l.USD, err = budget.ParseUSD(b.usd); err != nil {
			return l, usageErr("--budget-usd: %v", err)
		}
	}
	if b.time != "" {
		if l.Time, err = budget.ParseTime(b.time); err != nil {
			return l, usageErr("--budget-time: %v", err)
		}
	}
	return l, nil
}

// budgetPause prints the line of a run that reached its budget: the limit,
// the figures and how to go on.
func (s *session) budgetPause(out protocol.Outcome) {
	msg, flag := "budget reached", "--budget-tokens"
	if e, ok := budget.IsExhausted(out.Err); ok {
		msg, flag = e.Error(), e.Flag()
	}
	fmt.Fprintf(s.stderr, "paused: %s\ncontinue with a higher budget: agent resume %s %s VALUE\n", msg, s.runID, flag)
}

// runCosts prices each run's tokens with the user's price table (nil: a
// model it used has no price).
func runCosts(cmd *cobra.Command, h *app.Home, runs []protocol.RunInfo) ([]*float64, error) {
	prices := userPrices()
	out := make([]*float64, len(runs))
	for i, r := range runs {
		t, err := h.Spend(cmd.Context(), r.ID)
		if err != nil {
			return nil, withCode(ExitFailed, err)
		}
		if usd, ok := t.Cost(prices); ok {
			out[i] = &usd
		}
	}
	return out, nil
}

// userPrices is the user's price table; a user file that does not load is
// warned about and the built-in list used (listing runs must not need a
// good config).
func userPrices() *pricing.Table {
	p, err := app.Prices()
	if err != nil {
		warn(os.Stderr, fmt.Sprintf("costs use the built-in price list: %v", err))
		return pricing.New(nil)
	}
	return p
}

// costText is a cost for a table ("-" when unknown).
func costText(c *float64) string {
	if c == nil {
		return "-"
	}
	return pricing.FormatUSD(*c)
}

// spendLine is a run's spend in words: its tokens, its cost when every
// model it used has a price, and its budget when it has one.
func spendLine(t budget.Tally, prices *pricing.Table) string {
	u := t.Usage()
	s := fmt.Sprintf("tokens: %d in / %d out", u.Input, u.Output)
	if u.CacheRead > 0 || u.CacheWrite > 0 {
		s += fmt.Sprintf(" (cache read %d, write %d)", u.CacheRead, u.CacheWrite)
	}
	if usd, ok := t.Cost(prices); ok {
		s += "  cost: " + pricing.FormatUSD(usd)
	} else {
		s += "  cost: unknown (a model without a price; set [models.\"NAME\"] price_input/price_output)"
	}
	if b := t.Limits.Event(); b != nil {
		s += "  budget: " + budgetText(b)
	}
	return s
}

// spentWords is a model request's spend so far, for the timeline.
func spentWords(s *event.Spent) string {
	if s == nil || s.Tokens == 0 {
		return ""
	}
	w := fmt.Sprintf("; spent so far %d tokens", s.Tokens)
	if s.USD != nil {
		w += ", " + pricing.FormatUSD(*s.USD)
	}
	return w
}

// budgetText is a journaled budget in words ("none" for nil or empty).
func budgetText(b *event.Budget) string {
	if b == nil || b.IsZero() {
		return "none"
	}
	var parts []string
	if b.Tokens > 0 {
		parts = append(parts, fmt.Sprintf("%d tokens", b.Tokens))
	}
	if b.USD > 0 {
		parts = append(parts, pricing.FormatUSD(b.USD))
	}
	if b.Time != "" {
		parts = append(parts, b.Time)
	}
	return strings.Join(parts, ", ")
}
