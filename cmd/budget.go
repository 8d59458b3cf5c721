package cmd

import (
	"fmt"

	"github.com/spf13/cobra"

	"agent/internal/budget"
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
