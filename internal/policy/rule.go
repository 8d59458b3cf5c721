package policy

import (
	"errors"
	"fmt"
	"path"
	"sort"
	"strings"

	"agent/internal/event"
)

// Tool names of the contract, with the risk each carries.
var toolRisks = map[string]event.Risk{
	"read_file":   event.RiskRead,
	"list_dir":    event.RiskRead,
	"glob":        event.RiskRead,
	"grep":        event.RiskRead,
	"update_plan": event.RiskRead,
	"write_file":  event.RiskWrite,
	"edit_file":   event.RiskWrite,
	"run_command": event.RiskExec,
}

// mcpTool reports whether tool names a tool of an MCP server,
// mcp__SERVER__TOOL (its risk is the configuration's, not the policy's).
func mcpTool(tool string) bool {
	rest, ok := strings.CutPrefix(tool, "mcp__")
	server, name, ok2 := strings.Cut(rest, "__")
	if !ok || !ok2 || server == "" || name == "" || len(tool) > 64 {
		return false
	}
	for _, c := range []byte(tool) {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-') {
			return false
		}
	}
	return true
}

// ToolRisk returns the risk of a known tool, and false for an unknown one.
func ToolRisk(tool string) (event.Risk, bool) {
	r, ok := toolRisks[tool]
	return r, ok
}

func toolNames() []string {
	out := make([]string, 0, len(toolRisks))
	for t := range toolRisks {
		out = append(out, t)
	}
	sort.Strings(out)
	return out
}

// Names other agents use, to point a user at ours.
var toolHints = map[string]string{
	"bash": "run_command", "shell": "run_command", "exec": "run_command", "command": "run_command",
	"read": "read_file", "write": "write_file", "edit": "edit_file", "multiedit": "edit_file",
	"ls": "list_dir", "todowrite": "update_plan",
}

// Rule is one allow or deny rule: a tool name ("*" for every tool) and an
// optional glob on the call's main argument (the command for run_command, the
// path for file tools). Build one with ParseRule.
type Rule struct {
	Tool    string // tool name, or "*"
	Pattern string // the glob as written; "" means any argument

	cmd  cmdPattern   // run_command
	path *pathPattern // every other tool
}

// String returns the rule as a user writes it: "run_command(go test *)".
func (r Rule) String() string {
	if r.Pattern == "" {
		return r.Tool
	}
	return r.Tool + "(" + r.Pattern + ")"
}

// RuleError is returned by ParseRule.
type RuleError struct {
	Rule string // the text given
	Msg  string // what is wrong and how to fix it
}

func (e *RuleError) Error() string { return fmt.Sprintf("invalid rule %q: %s", e.Rule, e.Msg) }

var errUnclosedClass = errors.New("unclosed '[' in pattern (write \\[ for a literal bracket)")

// ParseRule parses `TOOL` or `TOOL(GLOB)`. TOOL is one of the tool names or
// "*". For run_command the glob is a command pattern (`*` matches anything,
// spaces included; a trailing " *" or Claude-Code-style ":*" also matches the
// bare command). For the other tools it is a path pattern relative to the
// workspace (`*` within a segment, `**` across directories; a pattern without
// "/" matches a file or directory of that name at any depth; one starting
// with "/" or "~/" matches absolute or home paths).
func ParseRule(s string) (Rule, error) {
	text := strings.TrimSpace(s)
	bad := func(format string, a ...any) (Rule, error) {
		return Rule{}, &RuleError{Rule: s, Msg: fmt.Sprintf(format, a...)}
	}
	if text == "" {
		return bad("empty rule; write TOOL or TOOL(GLOB), e.g. run_command(go test *)")
	}
	for i := 0; i < len(text); i++ {
		if c := text[i]; c < 0x20 && c != '\t' || c == 0x7f {
			return bad("control character at byte %d", i)
		}
	}
	tool, pat := text, ""
	if i := strings.IndexByte(text, '('); i >= 0 {
		if !strings.HasSuffix(text, ")") {
			return bad("missing closing ')'; write TOOL(GLOB), e.g. run_command(go test *)")
		}
		tool, pat = strings.TrimSpace(text[:i]), strings.TrimSpace(text[i+1:len(text)-1])
		if pat == "" {
			return bad("empty pattern; write %q alone to mean any argument", tool)
		}
	} else if strings.ContainsAny(text, ") ") {
		return bad("expected TOOL or TOOL(GLOB), e.g. run_command(go test *)")
	}
	if mcpTool(tool) { // mcp__SERVER__TOOL: the whole tool, it has no main argument
		if pat != "" {
			return bad("an MCP tool's rule takes no pattern; write %q alone", tool)
		}
		return Rule{Tool: tool}, nil
	}
	if _, ok := toolRisks[tool]; !ok && tool != "*" {
		msg := fmt.Sprintf("unknown tool %q (valid: %s, or * for every tool)", tool, strings.Join(toolNames(), ", "))
		if h, ok := toolHints[strings.ToLower(tool)]; ok {
			msg += fmt.Sprintf("; did you mean %s(...)?", h)
		}
		return bad("%s", msg)
	}
	r := Rule{Tool: tool, Pattern: pat}
	if pat == "" {
		return r, nil
	}
	if tool == "run_command" {
		if strings.HasSuffix(pat, ":*") { // Claude Code's prefix form
			pat = strings.TrimSuffix(pat, ":*") + " *"
		}
		r.cmd = compileCmdPattern(pat)
		return r, nil
	}
	pp, err := compilePathPattern(pat)
	if err != nil {
		return bad("%v", err)
	}
	r.path = pp
	return r, nil
}

// ParseRules parses each rule; the error names the first bad one.
func ParseRules(ss []string) ([]Rule, error) {
	out := make([]Rule, 0, len(ss))
	for _, s := range ss {
		r, err := ParseRule(s)
		if err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	return out, nil
}

func compilePathPattern(pat string) (*pathPattern, error) {
	pp := &pathPattern{}
	p := pat
	anchored := strings.Contains(strings.TrimRight(p, "/"), "/")
	switch {
	case p == "~" || strings.HasPrefix(p, "~/"):
		pp.rooted = true
	case strings.HasPrefix(p, "/"):
		pp.rooted = true
		p = strings.TrimLeft(p, "/")
	}
	p = path.Clean(p)
	if p == "." || p == "" {
		p = "**"
	}
	if !pp.rooted && strings.HasPrefix(p, "/") {
		p = strings.TrimLeft(p, "/")
	}
	for _, seg := range strings.Split(p, "/") {
		if seg == ".." {
			return nil, errors.New(`".." is not allowed: path patterns are relative to the workspace (use "/abs/path" for an absolute one)`)
		}
		if seg == "**" {
			pp.segs = append(pp.segs, nil)
			continue
		}
		toks, err := compileSeg(seg)
		if err != nil {
			return nil, err
		}
		pp.segs = append(pp.segs, toks)
	}
	pp.anywhere = !pp.rooted && !anchored && len(pp.segs) == 1 && pp.segs[0] != nil
	for _, seg := range pp.segs {
		run := []byte{}
		for i, t := range seg {
			if t.kind == tLit {
				run = append(run, t.c)
			}
			if t.kind != tLit || i == len(seg)-1 {
				if len(run) > len(pp.lit) {
					pp.lit = string(run)
				}
				run = run[:0]
			}
		}
	}
	return pp, nil
}

// pathCand is one path a call or a command word may touch, as segments.
type pathCand struct {
	rel    []string // relative to the workspace (may start with ".."); nil if unknown
	rooted []string // absolute (leading "/" dropped) or home ("~" first); nil if unknown
	tail   bool     // only the literal tail of a word is known: match "anywhere" patterns only
}

func splitSegs(p string) []string {
	if p == "" || p == "." {
		return []string{}
	}
	return strings.Split(p, "/")
}

// candFor turns a path as written (relative to the workspace, absolute, or
// "~/...") into match candidates. ws is the absolute workspace root or "".
func candFor(p, ws string) pathCand {
	var c pathCand
	switch {
	case p == "~" || strings.HasPrefix(p, "~/"):
		c.rooted = splitSegs(path.Clean(p))
	case strings.HasPrefix(p, "/"):
		abs := path.Clean(p)
		c.rooted = splitSegs(strings.TrimPrefix(abs, "/"))
		if ws != "" {
			if abs == ws {
				c.rel = []string{}
			} else if rest, ok := strings.CutPrefix(abs, strings.TrimSuffix(ws, "/")+"/"); ok {
				c.rel = splitSegs(rest)
			}
		}
	default:
		rel := path.Clean(p)
		c.rel = splitSegs(rel)
		if ws != "" {
			c.rooted = splitSegs(strings.TrimPrefix(path.Join(ws, rel), "/"))
		}
	}
	return c
}

// cannotName: a quick test that a plain word (no holes) cannot name a path
// the (relative) pattern matches, because it lacks the pattern's literal run.
func (pp *pathPattern) cannotName(w string) bool {
	return !pp.rooted && pp.lit != "" && !hasHole(w) && !strings.Contains(w, pp.lit)
}

// matchCand reports whether a path pattern names the candidate.
func (pp *pathPattern) matchCand(c pathCand) bool {
	if c.tail {
		return pp.anywhere && pp.match(c.rel)
	}
	if pp.rooted {
		return c.rooted != nil && pp.match(c.rooted)
	}
	if c.rel != nil {
		return pp.match(c.rel)
	}
	return pp.anywhere && c.rooted != nil && pp.match(c.rooted)
}

// wordCands turns one shell word (with holes) into path candidates: the word
// itself, the value of "--opt=value" and "key=value" forms, the file of "@file". Words whose
// value is only known at run time yield their literal tail after the last
// "/" ("$HOME/x/.env" -> ".env"), matched against "anywhere" patterns only.
func wordCands(w, ws string, out []pathCand) []pathCand {
	if w == "" {
		return out
	}
	if w[0] == '-' {
		i := strings.IndexByte(w, '=')
		if i < 0 {
			return out
		}
		w = w[i+1:]
	} else if i := strings.IndexByte(w, '='); i > 0 && !strings.Contains(w[:i], "/") {
		out = wordCands(w[i+1:], ws, out)
	} else if w[0] == '@' { // curl -d @file
		out = wordCands(w[1:], ws, out)
	}
	if w == "" {
		return out
	}
	if k := strings.LastIndexByte(w, dynByte); k >= 0 {
		rest := w[k+1:]
		j := strings.IndexByte(rest, '/')
		if j < 0 || j == len(rest)-1 {
			return out
		}
		return append(out, pathCand{rel: splitSegs(path.Clean(rest[j+1:])), tail: true})
	}
	return append(out, candFor(w, ws))
}
