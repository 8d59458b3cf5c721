package config

import (
	"fmt"
	"sort"
	"strings"

	"agent/internal/hooks"
)

// hookKeys are the keys of a [[hooks]] table.
var hookKeys = []string{"event", "matcher", "command", "timeout"}

// parseHooks reads the [[hooks]] tables of a file: event, matcher, command
// (run with bash -c), timeout (a Go duration, default 10s).
func (l *layer) parseHooks(v any) error {
	if v == nil {
		return nil
	}
	var tables []map[string]any
	switch x := v.(type) {
	case []map[string]any:
		tables = x
	case []any:
		for _, t := range x {
			m, ok := t.(map[string]any)
			if !ok {
				return l.bad("hooks", "must be [[hooks]] tables, each with event, command and optionally matcher and timeout (got a list of %s)", show(t))
			}
			tables = append(tables, m)
		}
	default:
		return l.bad("hooks", "must be [[hooks]] tables (two brackets), each with event, command and optionally matcher and timeout (got %s)", show(v))
	}
	for i, t := range tables {
		key := fmt.Sprintf("hooks[%d]", i+1)
		var unknown []string
		for k := range t {
			if !contains(hookKeys, k) {
				unknown = append(unknown, k)
			}
		}
		if len(unknown) > 0 {
			sort.Strings(unknown)
			return l.bad(key, "unknown key %q (a [[hooks]] table takes %s)", unknown[0], strings.Join(hookKeys, ", "))
		}
		var h hooks.Hook
		s, ok := t["event"].(string)
		if !ok {
			return l.bad(key+".event", "missing or not a string: set event = \"before_tool_call\" (one of %s)", eventNames())
		}
		ev, err := hooks.ParseEvent(s)
		if err != nil {
			return l.bad(key+".event", "%v", err)
		}
		h.Event = ev
		if m, ok := t["matcher"]; ok {
			s, isStr := m.(string)
			if !isStr {
				return l.bad(key+".matcher", "must be a tool name or a glob in quotes, e.g. matcher = \"run_command\" (got %s)", show(m))
			}
			if err := hooks.CheckMatcher(s); err != nil {
				return l.bad(key+".matcher", "%v", err)
			}
			h.Matcher = s
		}
		c, ok := t["command"].(string)
		if !ok || strings.TrimSpace(c) == "" {
			return l.bad(key+".command", "missing or empty: set command = \"~/.config/agent/hooks/check.sh\" (run with bash -c; it reads one JSON object on stdin)")
		}
		h.Command = c
		h.Timeout = hooks.DefaultTimeout
		if tv, ok := t["timeout"]; ok {
			d, err := duration(tv, false)
			if err != nil {
				return l.bad(key+".timeout", "%v, e.g. timeout = \"10s\" (got %s)", err, show(tv))
			}
			h.Timeout = d
		}
		l.hooks = append(l.hooks, h)
	}
	return nil
}

func eventNames() string {
	var out []string
	for _, e := range hooks.Events() {
		out = append(out, string(e))
	}
	return strings.Join(out, ", ")
}

// applyHooksUser takes the user file's hooks.
func (c *Config) applyHooksUser(l *layer) {
	c.Hooks = append(c.Hooks, l.hooks...)
	if len(l.hooks) > 0 {
		c.Origin["hooks"] = FromUser
	}
}

// applyHooksProject ignores a project file's hooks with a warning: a hook
// is a program run on your machine, outside the sandbox, which a cloned
// repository must not be able to add.
func (c *Config) applyHooksProject(l *layer) []string {
	if len(l.hooks) == 0 {
		return nil
	}
	return []string{fmt.Sprintf("config warning: %s: [[hooks]] (%d) ignored: a cloned repository cannot add hooks, which are programs run on your machine outside the sandbox; put them in %s",
		l.path, len(l.hooks), c.userFileHint())}
}
