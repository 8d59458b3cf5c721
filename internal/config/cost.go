package config

import (
	"fmt"
	"math"
	"os"
	"sort"
	"strings"

	"agent/internal/budget"
	"agent/internal/pricing"
)

// costLayer is what one file says about prices and budgets: its
// [models."NAME"] tables and its [budget].
type costLayer struct {
	models map[string]pricing.Override
	budget budget.Limits
}

// modelKeys are the keys of a [models."NAME"] table.
var modelKeys = []string{"window", "price_input", "price_output", "price_cache_read", "price_cache_write"}

// budgetKeys are the keys of [budget].
var budgetKeys = []string{"tokens", "usd", "time"}

// maxPrice bounds a price per million tokens: more is a typo (a price per
// token written per million, say).
const maxPrice = 100_000

// parseModels reads the [models] table of a file (v is its decoded value).
func (l *layer) parseModels(v any) error {
	if v == nil {
		return nil
	}
	tbl, ok := v.(map[string]any)
	if !ok {
		return l.bad("models", "must be tables of models, e.g. [models.\"gpt-4.1\"] with price_input = 2 on the next line (got %s)", show(v))
	}
	names := make([]string, 0, len(tbl))
	for n := range tbl {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, name := range names {
		key := fmt.Sprintf("models.%q", name)
		if strings.TrimSpace(name) == "" || strings.ContainsAny(name, " \t\n") {
			return l.bad(key, "is not a model name; write [models.\"gpt-4.1\"]")
		}
		m, ok := tbl[name].(map[string]any)
		if !ok {
			return l.bad(key, "must be a table: write [models.%q] on a line of its own, then its keys (%s)", name, strings.Join(modelKeys, ", "))
		}
		var o pricing.Override
		for k, val := range m {
			sub := key + "." + k
			switch k {
			case "window":
				n, ok := val.(int64)
				if !ok || n < minWindow || n > maxWindow {
					return l.bad(sub, "must be a whole number of tokens between %d and %d, e.g. window = 200000 (got %s)", minWindow, maxWindow, show(val))
				}
				w := int(n)
				o.Window = &w
			case "price_input", "price_output", "price_cache_read", "price_cache_write":
				f, ok := number(val)
				if !ok || f < 0 || f > maxPrice {
					return l.bad(sub, "must be a price in USD per million tokens, a number from 0 to %d, e.g. %s = 2.5 (got %s)", maxPrice, k, show(val))
				}
				switch k {
				case "price_input":
					o.Input = &f
				case "price_output":
					o.Output = &f
				case "price_cache_read":
					o.CacheRead = &f
				default:
					o.CacheWrite = &f
				}
			default:
				msg := fmt.Sprintf("unknown key %q (known keys of a model: %s)", k, strings.Join(modelKeys, ", "))
				if s := closest(k, modelKeys); s != "" {
					msg += fmt.Sprintf("; did you mean %q?", s)
				}
				return &Error{File: l.path, Key: sub, Msg: fmt.Sprintf("key %q: %s", sub, msg)}
			}
		}
		if (o.Input == nil) != (o.Output == nil) && !knownPrice(name) {
			return l.bad(key, "model %s is not in the built-in price list: set both price_input and price_output", name)
		}
		if l.cost.models == nil {
			l.cost.models = map[string]pricing.Override{}
		}
		l.cost.models[name] = o
	}
	return nil
}

func knownPrice(model string) bool {
	_, ok := pricing.Builtin(model)
	return ok
}

// parseBudget reads the [budget] table of a file.
func (l *layer) parseBudget(v any) error {
	if v == nil {
		return nil
	}
	tbl, ok := v.(map[string]any)
	if !ok {
		return l.bad("budget", "must be a table: write [budget] on a line of its own, then tokens, usd or time")
	}
	for k, val := range tbl {
		key := "budget." + k
		switch k {
		case "tokens":
			n, ok := val.(int64)
			if !ok || n <= 0 {
				return l.bad(key, "must be a positive whole number of tokens (input + output), e.g. tokens = 2000000 (got %s)", show(val))
			}
			l.cost.budget.Tokens = n
		case "usd":
			f, ok := number(val)
			if !ok || f <= 0 {
				return l.bad(key, "must be a positive number of dollars, e.g. usd = 5 (got %s)", show(val))
			}
			l.cost.budget.USD = f
		case "time":
			d, err := duration(val, false)
			if err != nil {
				return l.bad(key, "%v, e.g. time = \"30m\" (got %s)", err, show(val))
			}
			l.cost.budget.Time = d
		default:
			msg := fmt.Sprintf("unknown key %q (known keys: budget.tokens, budget.usd, budget.time)", key)
			if s := closest(k, budgetKeys); s != "" {
				msg += fmt.Sprintf("; did you mean %q?", "budget."+s)
			}
			return &Error{File: l.path, Key: key, Msg: msg}
		}
	}
	return nil
}

// number is a TOML integer or float as a float64 (NaN and infinities are
// not numbers here).
func number(v any) (float64, bool) {
	var f float64
	switch x := v.(type) {
	case int64:
		f = float64(x)
	case float64:
		f = x
	default:
		return 0, false
	}
	return f, !math.IsNaN(f) && !math.IsInf(f, 0)
}

// closest is the candidate nearest to k, if close.
func closest(k string, cands []string) string {
	best, bestD := "", 3
	for _, c := range cands {
		if d := editDistance(k, c); d < bestD {
			best, bestD = c, d
		}
	}
	return best
}

// applyCostUser takes the user file's models and budget.
func (c *Config) applyCostUser(l *layer) {
	for name, o := range l.cost.models {
		if c.Models == nil {
			c.Models = map[string]pricing.Override{}
		}
		c.Models[name] = o
	}
	if !l.cost.budget.IsZero() {
		c.Budget = l.cost.budget
		c.Origin["budget"] = FromUser
	}
}

// applyCostProject: a project file may lower the budget and set a model's
// window, but not raise a budget or set prices (a cloned repository could
// make its spend look cheaper than it is).
func (c *Config) applyCostProject(l *layer) []string {
	var warns []string
	b, u := l.cost.budget, c.Budget
	if !b.IsZero() {
		if higher := (u.Tokens != 0 && b.Tokens > u.Tokens) || (u.USD != 0 && b.USD > u.USD) || (u.Time != 0 && b.Time > u.Time); higher {
			warns = append(warns, fmt.Sprintf("config warning: %s: [budget] may only lower the budget of %s; its higher limits were ignored", l.path, c.userFileHint()))
		}
		if lowered := u.Min(b); lowered != u {
			c.Budget = lowered
			c.Origin["budget"] = FromProject
		}
	}
	names := make([]string, 0, len(l.cost.models))
	for n := range l.cost.models {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, name := range names {
		o := l.cost.models[name]
		if o.Input != nil || o.Output != nil || o.CacheRead != nil || o.CacheWrite != nil {
			warns = append(warns, fmt.Sprintf("config warning: %s: [models.%q] prices ignored: a cloned repository cannot set what tokens cost; set them in %s",
				l.path, name, c.userFileHint()))
		}
		if o.Window != nil {
			if c.Models == nil {
				c.Models = map[string]pricing.Override{}
			}
			cur := c.Models[name]
			cur.Window = o.Window
			c.Models[name] = cur
		}
	}
	return warns
}

// Prices is the price table: the built-in list with the user file's
// [models."NAME"] overrides.
func (c *Config) Prices() *pricing.Table { return pricing.New(c.Models) }

// UserPrices is the price table with the user file's overrides alone, for
// commands that price runs without a workspace (agent runs, agent trace).
// env nil is os.Getenv.
func UserPrices(env func(string) string) (*pricing.Table, error) {
	if env == nil {
		env = os.Getenv
	}
	p := UserFilePath(env)
	if p == "" {
		return pricing.New(nil), nil
	}
	l, err := readLayer(p)
	if err != nil {
		return nil, err
	}
	return pricing.New(l.cost.models), nil
}
