package policy

import (
	"fmt"
	"strings"

	"agent/internal/event"
)

// Action is what the policy decides for a call.
type Action string

const (
	Allow Action = "allow" // run it
	Deny  Action = "deny"  // do not run it; the model gets a tool error
	Ask   Action = "ask"   // a person decides (headless: the run pauses)
)

// Decision sources, as the approval event spells them.
const (
	SourceRule = "rule"
	SourceMode = "mode"
)

// Decision is the policy's answer for one call.
type Decision struct {
	Action Action
	Source string // SourceRule or SourceMode
	Rule   string // the rule(s) that decided, comma-separated; "" when the mode did
	Reason string // for people: what decided and why
}

// Call is what the policy needs to know about one tool call. MakeCall builds
// one from the model's arguments.
type Call struct {
	Tool string
	Risk event.Risk // "" means the tool's own risk (an unknown tool counts as exec)
	// Path is the main path of a file tool, relative to the workspace and
	// cleaned ("." for the root; "../x" or an absolute path when outside).
	// For glob it is the pattern.
	Path string
	// Command is run_command's command line.
	Command string
	// InsideWorkspace: Path resolves inside the workspace.
	InsideWorkspace bool
}

// Policy is the approval policy of a run: a mode and rules. The zero Mode
// means DefaultMode. A Policy is read-only once built and safe for
// concurrent use.
type Policy struct {
	Mode  Mode
	Allow []Rule
	Deny  []Rule
	// Workspace is the absolute workspace root (optional). With it, absolute
	// paths in commands are matched against workspace-relative rules, and
	// rules starting with "/" against workspace paths.
	Workspace string
}

// New builds a policy from rule texts.
func New(mode Mode, allow, deny []string, workspace string) (*Policy, error) {
	a, err := ParseRules(allow)
	if err != nil {
		return nil, fmt.Errorf("allow rule: %w", err)
	}
	d, err := ParseRules(deny)
	if err != nil {
		return nil, fmt.Errorf("deny rule: %w", err)
	}
	return &Policy{Mode: mode, Allow: a, Deny: d, Workspace: workspace}, nil
}

func (p *Policy) mode() Mode {
	if p == nil || !p.Mode.Valid() {
		return DefaultMode
	}
	return p.Mode
}

// Decide decides one call. Deny rules win over allow rules and over the
// mode; read-only and plan cannot be lifted by an allow rule (plan runs
// reads and update_plan only); full-auto allows what no
// deny rule names; otherwise reads run, auto-edit runs writes inside the
// workspace, and an allow rule that covers the call runs it, else Ask.
func (p *Policy) Decide(c Call) Decision {
	if p == nil {
		p = &Policy{}
	}
	p = p.compiled()
	risk := c.Risk
	if risk == "" {
		var ok bool
		if risk, ok = toolRisks[c.Tool]; !ok {
			risk = event.RiskExec
		}
	}
	if c.Tool == "run_command" {
		return p.decideCommand(c)
	}
	return p.decideTool(c, risk)
}

// compiled returns p, or a copy whose rules built as struct literals (not by
// ParseRule) are compiled. p itself is never modified.
func (p *Policy) compiled() *Policy {
	need := func(rs []Rule) bool {
		for _, r := range rs {
			if r.Pattern != "" && r.path == nil && r.cmd.p == "" {
				return true
			}
		}
		return false
	}
	if !need(p.Allow) && !need(p.Deny) {
		return p
	}
	fix := func(rs []Rule, deny bool) []Rule {
		out := make([]Rule, 0, len(rs))
		for _, r := range rs {
			if r.Pattern != "" && r.path == nil && r.cmd.p == "" {
				c, err := ParseRule(r.String())
				if err != nil {
					if !deny {
						continue // an invalid allow rule allows nothing
					}
					c = Rule{Tool: r.Tool} // an invalid deny rule denies the whole tool
				}
				r = c
			}
			out = append(out, r)
		}
		return out
	}
	q := *p
	q.Allow, q.Deny = fix(p.Allow, false), fix(p.Deny, true)
	return &q
}

// denyApplies: which deny rules apply to a tool. A read_file rule also
// guards grep and list_dir; write_file and edit_file rules guard both.
func denyApplies(rule, tool string) bool {
	if rule == "*" || rule == tool {
		return true
	}
	switch rule {
	case "read_file":
		return tool == "grep" || tool == "list_dir"
	case "write_file", "edit_file":
		return tool == "write_file" || tool == "edit_file"
	}
	return false
}

func (p *Policy) decideTool(c Call, risk event.Risk) Decision {
	cand := candFor(c.Path, p.Workspace)
	for _, r := range p.Deny {
		if denyApplies(r.Tool, c.Tool) && (r.Pattern == "" || r.path.matchCand(cand)) {
			return Decision{Action: Deny, Source: SourceRule, Rule: r.String(),
				Reason: fmt.Sprintf("denied by rule %s: %s %s", r, c.Tool, c.Path)}
		}
	}
	m := p.mode()
	what := c.Tool
	if c.Path != "" {
		what += " " + c.Path
	}
	switch {
	case risk == event.RiskRead:
		return Decision{Action: Allow, Source: SourceMode, Reason: m.String() + " mode: reads run"}
	case m == ModeReadOnly:
		return Decision{Action: Deny, Source: SourceMode, Reason: fmt.Sprintf("read-only mode: %s is a %s and does not run", what, risk)}
	case m == ModePlan:
		return Decision{Action: Deny, Source: SourceMode, Reason: planReason(what + " is a " + string(risk))}
	case m == ModeFullAuto:
		return Decision{Action: Allow, Source: SourceMode, Reason: "full-auto mode: no deny rule names it"}
	case m == ModeAutoEdit && risk == event.RiskWrite && c.InsideWorkspace:
		return Decision{Action: Allow, Source: SourceMode, Reason: "auto-edit mode: writes inside the workspace run"}
	}
	if c.InsideWorkspace || risk != event.RiskWrite {
		for _, r := range p.Allow {
			if (r.Tool == c.Tool || r.Tool == "*") && (r.Pattern == "" || r.path.matchCand(cand)) {
				return Decision{Action: Allow, Source: SourceRule, Rule: r.String(), Reason: "allowed by rule " + r.String()}
			}
		}
	}
	why := fmt.Sprintf("%s mode: %s needs approval", m, what)
	if risk == event.RiskWrite && !c.InsideWorkspace {
		why += " (the path is outside the workspace)"
	}
	return Decision{Action: Ask, Source: SourceMode, Reason: why}
}

// planReason is the denial of a write or a command under plan mode, as the
// model reads it: what is refused, why, and what to do instead.
func planReason(what string) string {
	return "plan mode is on: " + what + " and does not run until the user approves your plan; " +
		"only reads and update_plan run now. Investigate with reads, then give the plan (update_plan and your answer) and end your turn"
}

// PathDenied reports the deny rule, if any, that forbids a tool from reading
// (or writing) a workspace-relative path. Tools that walk directories (grep,
// glob, list_dir) use it to leave out files a rule protects.
func (p *Policy) PathDenied(tool, rel string) (Rule, bool) {
	if p == nil {
		return Rule{}, false
	}
	p = p.compiled()
	cand := candFor(rel, p.Workspace)
	for _, r := range p.Deny {
		if r.Tool != "run_command" && denyApplies(r.Tool, tool) && r.Pattern != "" && r.path.matchCand(cand) {
			return r, true
		}
	}
	return Rule{}, false
}

const maxQuote = 120

// quote renders command text for a reason: backticks, one line, bounded.
func quote(s string) string {
	s = strings.Join(strings.Fields(strings.ReplaceAll(s, "\n", " ↵ ")), " ")
	if len(s) > maxQuote {
		s = s[:maxQuote-3] + "..."
	}
	return "`" + s + "`"
}

// whereVia is where for an entry, saying what runs it if another command
// does: "`touch x` (run by sed's e command, in `sed '1e touch x' f`)".
func whereVia(e entry, whole string) string {
	if e.via == "" {
		return where(e.src, whole)
	}
	return quote(e.src) + " (run by " + e.via + ", in " + quote(whole) + ")"
}

// where: "`rm -rf x` (in `ls; rm -rf x`)" or just "`rm -rf x`".
func where(part, whole string) string {
	if strings.TrimSpace(part) == strings.TrimSpace(whole) {
		return quote(part)
	}
	return quote(part) + " (in " + quote(whole) + ")"
}

func (p *Policy) decideCommand(c Call) Decision {
	an := analyze(c.Command)
	if d, ok := p.denyCommand(c.Command, an); ok {
		return d
	}
	m := p.mode()
	if an.parseErr != nil {
		why := fmt.Sprintf("%s does not parse (%v), so no rule can vouch for it", quote(c.Command), an.parseErr)
		switch {
		case m == ModeReadOnly:
			return Decision{Action: Deny, Source: SourceMode, Reason: "read-only mode: commands do not run"}
		case m == ModePlan:
			return Decision{Action: Deny, Source: SourceMode, Reason: planReason("run_command is a command")}
		case m == ModeFullAuto && len(p.Deny) > 0:
			return Decision{Action: Ask, Source: SourceMode, Reason: "full-auto mode, but " + why + " and the deny rules cannot be checked"}
		case m == ModeFullAuto:
			return Decision{Action: Allow, Source: SourceMode, Reason: "full-auto mode: no deny rule names it"}
		}
		return Decision{Action: Ask, Source: SourceMode, Reason: fmt.Sprintf("%s mode: %s", m, why)}
	}
	switch m {
	case ModeReadOnly:
		return Decision{Action: Deny, Source: SourceMode, Reason: "read-only mode: commands do not run"}
	case ModePlan:
		return Decision{Action: Deny, Source: SourceMode, Reason: planReason("run_command is a command")}
	case ModeFullAuto:
		return Decision{Action: Allow, Source: SourceMode, Reason: "full-auto mode: no deny rule names it"}
	}
	rules, why := p.allowCommand(c.Command, an)
	if why == "" {
		return Decision{Action: Allow, Source: SourceRule, Rule: strings.Join(rules, ", "),
			Reason: "allowed by rule " + strings.Join(rules, ", ")}
	}
	return Decision{Action: Ask, Source: SourceMode, Reason: fmt.Sprintf("%s mode: run_command needs approval: %s", m, why)}
}

func (p *Policy) denyCommand(cmd string, an *analysis) (Decision, bool) {
	deny := func(r Rule, format string, a ...any) (Decision, bool) {
		return Decision{Action: Deny, Source: SourceRule, Rule: r.String(),
			Reason: fmt.Sprintf("denied by rule %s: ", r) + fmt.Sprintf(format, a...)}, true
	}
	raw := normSpace(cmd)
	var pathRules, writeRules []Rule
	for _, r := range p.Deny {
		switch {
		case r.Tool == "run_command" && r.Pattern == "", r.Tool == "*" && r.Pattern == "":
			return deny(r, "%s", quote(cmd))
		case r.Tool == "run_command":
			if r.cmd.matchAll(raw) {
				return deny(r, "%s", quote(cmd))
			}
			if an.parseErr != nil && rawMayMatch(r.cmd, cmd) {
				return deny(r, "%s does not parse and its text may run a command the rule names", quote(cmd))
			}
		case r.Tool == "read_file" && r.Pattern != "":
			pathRules = append(pathRules, r)
		case r.Tool == "*" && r.Pattern != "":
			pathRules = append(pathRules, r)
			writeRules = append(writeRules, r)
		case (r.Tool == "write_file" || r.Tool == "edit_file") && r.Pattern != "":
			writeRules = append(writeRules, r)
		}
	}
	allPath := append(append([]Rule(nil), pathRules...), writeRules...)
	if an.parseErr != nil {
		for _, f := range strings.FieldsFunc(cmd, func(r rune) bool { return strings.ContainsRune(" \t\n;&|()<>`'\"", r) }) {
			for _, r := range allPath {
				if r.path.matchCand(candFor(f, p.Workspace)) {
					return deny(r, "%s names %s", quote(cmd), f)
				}
			}
		}
		return Decision{}, false
	}
	var cands []pathCand
	names := func(rules []Rule, words []string, src string) (Decision, bool) {
		if len(rules) == 0 {
			return Decision{}, false
		}
		for _, w := range words {
			need := false
			for _, r := range rules {
				need = need || !r.path.cannotName(w)
			}
			if !need {
				continue
			}
			cands = wordCands(w, p.Workspace, cands[:0])
			for _, pc := range cands {
				for _, r := range rules {
					if !r.path.cannotName(w) && r.path.matchCand(pc) {
						return deny(r, "%s names %s", where(src, cmd), printable(w))
					}
				}
			}
		}
		return Decision{}, false
	}
	for _, e := range an.entries {
		for _, r := range p.Deny {
			if r.Tool != "run_command" {
				continue
			}
			if e.unknown != "" {
				return deny(r, "%s may run any command: %s", whereVia(e, cmd), e.unknown)
			}
			if r.cmd.line {
				continue
			}
			if r.cmd.matchAny(e.text) {
				return deny(r, "%s", whereVia(e, cmd))
			}
			for _, cand := range e.alt {
				if r.cmd.matchAny(cand) {
					return deny(r, "%s", whereVia(e, cmd))
				}
			}
			if e.scanEnd > 1 {
				if cand, ok := r.cmd.scanMatch(e.words, e.text, e.scanEnd); ok {
					return deny(r, "%s may run %s: the policy cannot tell that %s leaves its arguments unexecuted",
						whereVia(e, cmd), quote(printable(cand)), baseName(e.words[0]))
				}
			}
		}
		if len(e.words) > 1 {
			if d, ok := names(pathRules, e.words[1:], e.src); ok {
				return d, ok
			}
		}
		if d, ok := names(writeRules, e.writes, e.src); ok {
			return d, ok
		}
	}
	for _, rd := range an.reads {
		if d, ok := names(pathRules, []string{rd.target}, rd.src); ok {
			return d, ok
		}
	}
	for _, rd := range an.writes {
		if d, ok := names(allPath, []string{rd.target}, rd.src); ok {
			return d, ok
		}
	}
	return Decision{}, false
}

// normSpace collapses runs of white space to one space and trims the ends,
// without allocating when there is nothing to do.
func normSpace(s string) string {
	prev := true
	for i := 0; i < len(s); i++ {
		c := s[i]
		ws := c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f'
		if ws && (c != ' ' || prev) {
			return strings.Join(strings.Fields(s), " ")
		}
		prev = ws
	}
	if prev && len(s) > 0 {
		return strings.TrimRight(s, " ")
	}
	return s
}

// printable shows a word with its run-time parts as "…".
func printable(w string) string {
	return strings.Map(func(r rune) rune {
		if r == dynByte || r == globByte {
			return '…'
		}
		return r
	}, w)
}

// rawMayMatch: for a command that does not parse, could the rule's pattern
// match the text from some word boundary on?
func rawMayMatch(cp cmdPattern, cmd string) bool {
	open := cmdPattern{p: cp.p + string(rune(starByte))}
	if cp.bare != "" {
		open.bare = cp.bare + " " + string(rune(starByte))
	}
	s := normSpace(cmd)
	lit := cp.p
	if k := strings.IndexByte(lit, starByte); k >= 0 {
		lit = lit[:k]
	}
	if lit == "" { // starts with a star: one try covers every start
		return open.matchAll(s)
	}
	if cp.bare != "" && len(cp.bare) < len(lit) {
		lit = cp.bare
	}
	for i := 0; i < len(s); i++ {
		if i > 0 && !strings.ContainsRune(" ;&|(){}`'\"$<>", rune(s[i-1])) || !strings.HasPrefix(s[i:], lit) {
			continue
		}
		if open.matchAll(s[i:]) || (cp.bare != "" && s[i:] == cp.bare) {
			return true
		}
	}
	return false
}

// allowCommand returns the allow rules that cover every simple command of
// the line, or why they do not.
func (p *Policy) allowCommand(cmd string, an *analysis) (rules []string, why string) {
	if len(an.blockers) > 0 {
		return nil, an.blockers[0]
	}
	if len(an.writes) > 0 {
		w := an.writes[0]
		if w.why != "" {
			return nil, fmt.Sprintf("%s writes %s (%s): a write to a file is never covered by a command allow rule",
				where(w.src, cmd), printable(w.target), w.why)
		}
		return nil, fmt.Sprintf("%s writes %s: a redirection to a file is never covered by a command allow rule",
			where(w.src, cmd), printable(w.target))
	}
	used := make([]bool, len(p.Allow))
	for _, e := range an.entries {
		if e.unknown != "" {
			return nil, fmt.Sprintf("%s cannot be vouched for: %s", whereVia(e, cmd), e.unknown)
		}
		if !e.needAllow {
			continue
		}
		found := false
		for i, r := range p.Allow {
			if r.Tool == "*" && r.Pattern == "" || r.Tool == "run_command" && (r.Pattern == "" || r.cmd.matchAll(e.text)) {
				used[i], found = true, true
				break
			}
		}
		if !found {
			return nil, fmt.Sprintf("%s matches no allow rule", whereVia(e, cmd))
		}
	}
	for i, u := range used {
		if u {
			rules = append(rules, p.Allow[i].String())
		}
	}
	if len(rules) == 0 {
		return nil, "no allow rule covers it"
	}
	return rules, ""
}
