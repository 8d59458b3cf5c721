// Package pricing owns what model tokens cost: a table of list prices of
// current OpenAI and Anthropic models (USD per million tokens: input,
// output, cache read, cache write), the user's overrides of it
// ([models."NAME"] in the user config), and the arithmetic that turns a
// request's provider-reported usage into dollars.
//
// It knows nothing of runs, journals or budgets: callers fold usage and ask
// for its cost. A model the table does not know has no price (ok false),
// and callers show tokens only.
package pricing

import (
	"fmt"

	"agent/internal/lazyre"
	"strings"

	"agent/internal/event"
)

// Price is what a model charges, in USD per million tokens.
type Price struct {
	Input  float64 // uncached input
	Output float64
	// CacheRead and CacheWrite are the prices of input read from and
	// written to the provider's prompt cache.
	CacheRead  float64
	CacheWrite float64
}

// Cost is the USD cost of one usage at p. Usage's Input includes its cache
// reads and writes (event.TokenCount); they are priced at their own rates.
func (p Price) Cost(u event.TokenCount) float64 {
	uncached := max(u.Input-u.CacheRead-u.CacheWrite, 0)
	return (float64(uncached)*p.Input + float64(u.CacheRead)*p.CacheRead +
		float64(u.CacheWrite)*p.CacheWrite + float64(u.Output)*p.Output) / 1e6
}

// Override is a user's [models."NAME"] entry: nil fields keep the table's
// value (or, for a model the table does not know, make it unpriced unless
// input and output are both set; unset cache prices are then the input's).
type Override struct {
	Window                               *int
	Input, Output, CacheRead, CacheWrite *float64
}

// Table is the built-in price list with a user's overrides. The zero value
// is not usable; use New.
type Table struct {
	over map[string]Override // by model name, lower case
}

// New returns the built-in table with overrides by model name (matched
// exactly, case-insensitively, before the built-in list).
func New(over map[string]Override) *Table {
	t := &Table{over: map[string]Override{}}
	for k, v := range over {
		t.over[strings.ToLower(k)] = v
	}
	return t
}

// Lookup returns the price of model: the user's override, else the
// built-in list's (a dated or "-latest" variant of a listed name has its
// price), else ok false.
func (t *Table) Lookup(model string) (Price, bool) {
	base, known := Builtin(model)
	if t == nil {
		return base, known
	}
	o, has := t.over[strings.ToLower(model)]
	if !has {
		return base, known
	}
	if !known {
		if o.Input == nil || o.Output == nil {
			return Price{}, false
		}
		base = Price{CacheRead: *o.Input, CacheWrite: *o.Input}
	}
	set := func(dst *float64, v *float64) {
		if v != nil {
			*dst = *v
		}
	}
	set(&base.Input, o.Input)
	set(&base.Output, o.Output)
	set(&base.CacheRead, o.CacheRead)
	set(&base.CacheWrite, o.CacheWrite)
	return base, true
}

// Window is the context window the user set for model ([models."NAME"]
// window), or 0.
func (t *Table) Window(model string) int {
	if t == nil {
		return 0
	}
	if o, ok := t.over[strings.ToLower(model)]; ok && o.Window != nil {
		return *o.Window
	}
	return 0
}

// Cost is the USD cost of u on model; ok false when the model has no price.
func (t *Table) Cost(model string, u event.TokenCount) (float64, bool) {
	p, ok := t.Lookup(model)
	if !ok {
		return 0, false
	}
	return p.Cost(u), true
}

// variant is what may follow a listed name and still be that model: a
// release date (OpenAI's -2025-04-14, Anthropic's -20250514 or @20250514),
// -latest, or Anthropic's -0 alias (claude-sonnet-4-0).
var variant = lazyre.New(`^([-@](\d{8}|\d{4}-\d{2}-\d{2}|latest)|-0)$`)

// Builtin returns the list price of model from the built-in table.
func Builtin(model string) (Price, bool) {
	m := strings.ToLower(strings.TrimSpace(model))
	if i := strings.LastIndexByte(m, '/'); i >= 0 {
		m = m[i+1:] // "openai/gpt-4o" on a router
	}
	if p, ok := builtin[m]; ok {
		return p, true
	}
	best := ""
	for name := range builtin {
		if len(name) > len(best) && strings.HasPrefix(m, name) && variant.MatchString(m[len(name):]) {
			best = name
		}
	}
	if best == "" {
		return Price{}, false
	}
	return builtin[best], true
}

// Known lists the built-in model names (for docs and tests).
func Known() []string {
	out := make([]string, 0, len(builtin))
	for k := range builtin {
		out = append(out, k)
	}
	return out
}

// FormatUSD is dollars with the precision a small amount needs: $0.0003,
// $0.012, $1.25.
func FormatUSD(c float64) string {
	switch {
	case c == 0:
		return "$0.00"
	case c < 0.01:
		return fmt.Sprintf("$%.4f", c)
	case c < 1:
		return fmt.Sprintf("$%.3f", c)
	}
	return fmt.Sprintf("$%.2f", c)
}
