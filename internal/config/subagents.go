package config

import (
	"fmt"
	"sort"
)

// Defaults of the [subagents] section.
const (
	DefaultMaxParallel = 3
	DefaultMaxDepth    = 1
	maxMaxParallel     = 32
	maxMaxDepth        = 5
)

// Subagents is the [subagents] section: how many children of one turn run
// at once, how deep a tree of children may grow (1: children cannot start
// children) and the share of the parent's budget each child may spend (0:
// an equal share of what is left).
type Subagents struct {
	MaxParallel int
	MaxDepth    int
	BudgetShare float64
}

// DefaultSubagentsConfig is the section when no file sets it.
func DefaultSubagentsConfig() Subagents {
	return Subagents{MaxParallel: DefaultMaxParallel, MaxDepth: DefaultMaxDepth}
}

// subagentsLayer is what one file sets of [subagents].
type subagentsLayer struct {
	maxParallel, maxDepth *int
	budgetShare           *float64
}

// fillSubagents reads the [subagents] table of one file.
func (l *layer) fillSubagents(v any) error {
	if v == nil {
		return nil
	}
	t, ok := v.(map[string]any)
	if !ok {
		return l.bad("subagents", "must be a table: write [subagents] on a line of its own, then its keys")
	}
	keys := make([]string, 0, len(t))
	for k := range t {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		val := t[k]
		key := "subagents." + k
		switch k {
		case "max_parallel", "max_depth":
			n, ok := val.(int64)
			hi := int64(maxMaxParallel)
			if k == "max_depth" {
				hi = maxMaxDepth
			}
			if !ok || n < 1 || n > hi {
				return l.bad(key, "must be a whole number from 1 to %d, e.g. %s = %d (got %s)", hi, k, map[string]int{"max_parallel": DefaultMaxParallel, "max_depth": DefaultMaxDepth}[k], show(val))
			}
			x := int(n)
			if k == "max_parallel" {
				l.subagents.maxParallel = &x
			} else {
				l.subagents.maxDepth = &x
			}
		case "budget_share":
			var f float64
			switch x := val.(type) {
			case float64:
				f = x
			case int64:
				f = float64(x)
			default:
				f = -1
			}
			if f <= 0 || f > 1 {
				return l.bad(key, "must be a fraction of the parent's budget above 0 and at most 1, e.g. budget_share = 0.5 (got %s)", show(val))
			}
			l.subagents.budgetShare = &f
		default:
			return &Error{File: l.path, Key: key, Msg: fmt.Sprintf("unknown key %q (known keys of [subagents]: max_parallel, max_depth, budget_share)", key)}
		}
	}
	return nil
}

// applySubagents merges one file's [subagents] into c. A project file may
// only lower the limits (a cloned repository must not make the agent
// spend more), with a warning for what it cannot raise.
func (c *Config) applySubagents(l *layer, project bool) []string {
	var warns []string
	from := FromUser
	if project {
		from = FromProject
	}
	lower := func(key string, cur *int, v *int) {
		if v == nil {
			return
		}
		if project && *v > *cur {
			warns = append(warns, fmt.Sprintf("ignored %s = %d in %s: a project file may only lower it (now %d); set it in %s",
				key, *v, l.path, *cur, c.userFileHint()))
			return
		}
		*cur, c.Origin[key] = *v, from
	}
	lower("subagents.max_parallel", &c.Subagents.MaxParallel, l.subagents.maxParallel)
	lower("subagents.max_depth", &c.Subagents.MaxDepth, l.subagents.maxDepth)
	if v := l.subagents.budgetShare; v != nil {
		if project && c.Subagents.BudgetShare != 0 && *v > c.Subagents.BudgetShare {
			warns = append(warns, fmt.Sprintf("ignored subagents.budget_share = %g in %s: a project file may only lower it", *v, l.path))
		} else {
			c.Subagents.BudgetShare, c.Origin["subagents.budget_share"] = *v, from
		}
	}
	return warns
}
