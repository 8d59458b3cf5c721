package hooks

import (
	"context"
	"encoding/json"
	"time"

	"agent/internal/agent"
	"agent/internal/event"
	"agent/internal/protocol"
)

// Approver puts the before_tool_call hooks in front of the session's
// approver (Inner: mode, rules, grants). Inner decides first; a call it
// denies stays denied without asking a hook. Otherwise the hooks bound to
// the tool run:
//   - deny (exit 2, "deny", a hook that fails, hangs or answers garbage):
//     denied, source hook, with the reason the model gets;
//   - ask: a person decides (a call Inner allowed asks);
//   - allow: a call Inner would ask a person about runs, source hook; a
//     call that asks to leave the sandbox still asks (only a person may
//     allow that);
//   - no objection: Inner's decision.
//
// Every decision a hook took part in names it (ApprovalDecision.Hook), so
// the loop journals it even for a read: a resumed run does not ask again.
type Approver struct {
	Inner     agent.Approver
	Hooks     *Runner
	Workspace string
}

// Approve implements agent.Approver.
func (a *Approver) Approve(ctx context.Context, req protocol.ApprovalRequest) (agent.ApprovalDecision, error) {
	dec, err := a.Inner.Approve(ctx, req)
	if err != nil || dec.Verdict == protocol.Deny || !a.Hooks.Has(BeforeToolCall, req.Tool) {
		return dec, err
	}
	in := Input{RunID: req.RunID, Workspace: a.Workspace, Tool: req.Tool, CallID: req.CallID, Arguments: rawArgs(req.Arguments)}
	h := a.Hooks.BeforeToolCall(ctx, in)
	if ctx.Err() != nil {
		return agent.ApprovalDecision{}, ctx.Err() // interrupted: nothing decided
	}
	dec.Hook = h.Hooks
	switch h.Verdict {
	case Deny:
		return agent.ApprovalDecision{Decision: protocol.DenyCall(""), Source: event.SourceHook, Reason: h.Reason, Hook: h.Hooks}, nil
	case Ask:
		if dec.Verdict == protocol.Allow {
			return agent.ApprovalDecision{Decision: protocol.Decision{Verdict: protocol.Pending}, Reason: h.Reason, Hook: h.Hooks}, nil
		}
		if h.Reason != "" {
			dec.Reason = h.Reason + "; " + dec.Reason
		}
	case Allow:
		if dec.Verdict == protocol.Pending && !a.Escalates(req) {
			reason := "allowed by the before_tool_call hook"
			if h.Reason != "" {
				reason += ": " + h.Reason
			}
			return agent.ApprovalDecision{Decision: protocol.Decision{Verdict: protocol.Allow, Scope: event.ScopeOnce}, Source: event.SourceHook, Reason: reason, Hook: h.Hooks}, nil
		}
	}
	return dec, nil
}

// Escalates implements agent.Escalator for Inner.
func (a *Approver) Escalates(req protocol.ApprovalRequest) bool {
	e, ok := a.Inner.(agent.Escalator)
	return ok && e.Escalates(req)
}

// GrantFor implements agent.Granter for Inner.
func (a *Approver) GrantFor(req protocol.ApprovalRequest) (string, time.Time) {
	if g, ok := a.Inner.(agent.Granter); ok {
		return g.GrantFor(req)
	}
	return "", time.Time{}
}

// rawArgs is a call's arguments as JSON: the model's text when it is JSON,
// else that text as a JSON string.
func rawArgs(s string) json.RawMessage {
	if json.Valid([]byte(s)) {
		return json.RawMessage(s)
	}
	b, _ := json.Marshal(s)
	return b
}

// AfterToolCall implements agent.AfterCallHook.
func (a *Approver) AfterToolCall(ctx context.Context, c agent.AfterCall) string {
	if !a.Hooks.Has(AfterToolCall, c.Tool) {
		return ""
	}
	out := c.Output
	return a.Hooks.AfterToolCall(ctx, Input{RunID: c.RunID, Workspace: a.Workspace, Tool: c.Tool, CallID: c.CallID,
		Arguments: rawArgs(c.Arguments), Status: string(c.Status), Output: &out})
}
