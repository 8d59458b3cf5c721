// Package approval owns the Approver the loop asks before every call: it
// applies the approval policy (mode and shell-aware rules) and the run's
// time-limited "allow for this run" grants, and reports a call a person
// must decide as pending (with the diff and the reason a prompt shows). It
// never waits: a person's answer comes back as a command (app's
// Run.Decide), and the loop interprets it (agent.Runner.PersonDecision).
//
// It must not run tools or write the journal: the loop journals every
// decision it returns before the call runs.
package approval

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"agent/internal/agent"
	"agent/internal/event"
	"agent/internal/policy"
	"agent/internal/protocol"
	"agent/internal/tools"
)

// Grants reads a run's "allow for this run" grants. They are written with
// the approval event that grants them (ApprovalDecision.Grant), by the
// journal, in the same transaction.
type Grants interface {
	// ActiveGrants returns the rule texts granted for runID that have not
	// expired at now.
	ActiveGrants(ctx context.Context, runID string, now time.Time) ([]string, error)
}

// Approver decides calls; the run is the request's, so one approver serves
// every run of a process.
type Approver struct {
	// Policy is the policy of every run, unless PolicyFor gives a run's own
	// (its mode and rules as it started).
	Policy    *policy.Policy
	PolicyFor func(runID string) *policy.Policy
	Grants    Grants // nil: no run grants
	TTL       time.Duration
	Tools     *tools.Registry
	ToolEnv   *tools.Env
	Now       func() time.Time
}

func (a *Approver) now() time.Time {
	if a.Now != nil {
		return a.Now()
	}
	return time.Now()
}

// policy is the run's policy.
func (a *Approver) policy(runID string) *policy.Policy {
	if a.PolicyFor != nil {
		if p := a.PolicyFor(runID); p != nil {
			return p
		}
	}
	return a.Policy
}

// withMode is pol under the run's current approval mode (a switch in the
// session: shift+tab, /mode, an approved plan), its rules unchanged.
func withMode(pol *policy.Policy, mode event.ApprovalMode) *policy.Policy {
	if pol == nil || mode == "" {
		return pol
	}
	m, err := policy.ParseMode(string(mode))
	if err != nil || m == pol.Mode {
		return pol
	}
	q := *pol
	q.Mode = m
	return &q
}

// Approve implements agent.Approver.
func (a *Approver) Approve(ctx context.Context, req protocol.ApprovalRequest) (agent.ApprovalDecision, error) {
	pol := withMode(a.policy(req.RunID), req.Mode)
	if pol == nil {
		return agent.ApprovalDecision{}, fmt.Errorf("no approval policy for run %s", req.RunID)
	}
	call := policy.MakeCall(req.Tool, req.Risk, json.RawMessage(req.Arguments), pol.Workspace)
	d := pol.Decide(call)
	if a.Escalates(req) {
		return a.escalate(d)
	}
	switch d.Action {
	case policy.Allow:
		return agent.ApprovalDecision{Decision: protocol.Decision{Verdict: protocol.Allow, Scope: event.ScopeOnce}, Source: event.Source(d.Source), Rule: d.Rule, Reason: d.Reason}, nil
	case policy.Deny:
		return agent.ApprovalDecision{Decision: protocol.Decision{Verdict: protocol.Deny, Scope: event.ScopeOnce}, Source: event.Source(d.Source), Rule: d.Rule, Reason: d.Reason}, nil
	}
	if rule, ok, err := a.granted(ctx, pol, req, call); err != nil {
		return agent.ApprovalDecision{}, err
	} else if ok {
		return agent.ApprovalDecision{Decision: protocol.Decision{Verdict: protocol.Allow, Scope: event.ScopeRun}, Source: event.SourceUser, Rule: rule,
			Reason: "allowed for this run by an earlier decision"}, nil
	}
	return agent.ApprovalDecision{Decision: protocol.Decision{Verdict: protocol.Pending}, Reason: d.Reason, Diff: a.preview(ctx, req)}, nil
}

// Escalates reports whether req asks to run a command outside the active
// OS sandbox: only a person can allow that, for that one call (scope
// escalate).
func (a *Approver) Escalates(req protocol.ApprovalRequest) bool {
	return a.ToolEnv.OutsideSandboxRequested(req.Tool, json.RawMessage(req.Arguments))
}

// escalate decides a call that asks to leave the sandbox: a deny rule
// still denies it, and so does a mode that denies the call (read-only);
// otherwise a person decides, under every mode (full-auto and auto-edit
// too: the sandbox is what makes them safe, so leaving it is never the
// mode's to allow), never an allow rule or a run grant, and an allow
// covers this call only (agent's person.go makes it scope escalate).
// Headless, the run pauses for the person.
func (a *Approver) escalate(d policy.Decision) (agent.ApprovalDecision, error) {
	if d.Action == policy.Deny {
		return agent.ApprovalDecision{Decision: protocol.Decision{Verdict: protocol.Deny, Scope: event.ScopeOnce}, Source: event.Source(d.Source), Rule: d.Rule, Reason: d.Reason}, nil
	}
	mode := a.ToolEnv.Sandbox.Info().Mode
	reason := fmt.Sprintf("the model asks to run this command OUTSIDE the OS sandbox (%s): it could write anywhere you can and reach the network; "+
		"an allow covers this one call", mode)
	return agent.ApprovalDecision{Decision: protocol.Decision{Verdict: protocol.Pending}, Reason: reason}, nil
}

// GrantFor returns the "allow for this run" grant covering calls like req,
// and when it expires; the loop journals it with the approval.
func (a *Approver) GrantFor(req protocol.ApprovalRequest) (string, time.Time) {
	ttl := a.TTL
	if ttl <= 0 {
		ttl = time.Hour
	}
	return GrantRule(req.Tool, json.RawMessage(req.Arguments)), a.now().Add(ttl)
}

// CheckGrant implements agent.GrantChecker: rule, chosen by a person for
// "allow for this run", must parse and cover the call req asks about (a
// deny rule still wins over it, as over every grant).
func (a *Approver) CheckGrant(req protocol.ApprovalRequest, rule string) error {
	pol := a.policy(req.RunID)
	if pol == nil {
		return fmt.Errorf("no approval policy for run %s", req.RunID)
	}
	p, err := policy.New(policy.ModeAsk, []string{rule}, nil, pol.Workspace)
	if err != nil {
		return fmt.Errorf("rule %q: %w (write it as TOOL(GLOB), e.g. run_command(go test *))", rule, err)
	}
	call := policy.MakeCall(req.Tool, req.Risk, json.RawMessage(req.Arguments), pol.Workspace)
	if d := p.Decide(call); d.Action != policy.Allow || d.Source != policy.SourceRule {
		return fmt.Errorf("rule %q does not cover this call (%s): it would not allow it, so it cannot be its grant", rule, GrantRule(req.Tool, json.RawMessage(req.Arguments)))
	}
	return nil
}

// GrantRule is the rule a run grant stores: the tool and its exact main
// argument (glob characters escaped), so it covers the same call again.
func GrantRule(tool string, args json.RawMessage) string {
	arg := policy.MainArg(tool, args)
	if arg == "" {
		return tool
	}
	esc := strings.NewReplacer(`\`, `\\`, `*`, `\*`, `?`, `\?`, `[`, `\[`).Replace(arg)
	return fmt.Sprintf("%s(%s)", tool, esc)
}

func (a *Approver) granted(ctx context.Context, pol *policy.Policy, req protocol.ApprovalRequest, call policy.Call) (string, bool, error) {
	if a.Grants == nil || req.RunID == "" {
		return "", false, nil
	}
	rules, err := a.Grants.ActiveGrants(ctx, req.RunID, a.now())
	if err != nil || len(rules) == 0 {
		return "", false, err
	}
	// The person allowed exactly this call for the run: the same tool and
	// main argument (a command line with a redirection too, which no allow
	// rule could cover).
	want := GrantRule(req.Tool, json.RawMessage(req.Arguments))
	for _, r := range rules {
		if r == want {
			return r, true, nil
		}
	}
	p, err := policy.New(policy.ModeAsk, rules, nil, pol.Workspace)
	if err != nil {
		return "", false, nil // a grant that no longer parses grants nothing
	}
	if d := p.Decide(call); d.Action == policy.Allow && d.Source == policy.SourceRule {
		return d.Rule, true, nil
	}
	return "", false, nil
}

// preview renders the change a file tool would make.
func (a *Approver) preview(ctx context.Context, req protocol.ApprovalRequest) string {
	if a.Tools == nil {
		return ""
	}
	t, ok := a.Tools.Get(req.Tool)
	if !ok {
		return ""
	}
	pv, ok := t.(tools.Previewer)
	if !ok {
		return ""
	}
	out, err := pv.Preview(ctx, a.ToolEnv, json.RawMessage(req.Arguments))
	if err != nil {
		return "(no preview: " + err.Error() + ")"
	}
	return out
}
