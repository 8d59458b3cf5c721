package acp

import (
	"context"
	"encoding/json"
	"strconv"

	sdk "github.com/coder/acp-go-sdk"

	"agent/internal/protocol"
)

// The options of session/request_permission, by id.
const (
	optAllowOnce    = "allow_once"
	optAllowAlways  = "allow_always"
	optRejectOnce   = "reject_once"
	optRejectAlways = "reject_always"
)

// ask puts a call that needs a person to the editor and answers it with
// Run.Decide: the same journaled decision (source user) a TUI gives.
// "Allow always" is our run grant (scoped to the run, expiring, revocable);
// "reject always" denies the call and adds a deny rule for the run in this
// process. A cancelled request (the editor's session/cancel) interrupts the
// run: nothing is decided, a resume asks again.
func (ss *session) ask(req protocol.ApprovalRequest) {
	ctx := ss.srv.ctx
	ss.mu.Lock()
	r := ss.run
	ss.mu.Unlock()
	if r == nil || r.ID() != req.RunID {
		return
	}
	opts := []sdk.PermissionOption{{Kind: sdk.PermissionOptionKindAllowOnce, Name: "Allow once", OptionId: optAllowOnce}}
	if req.Grant != "" && !req.Escalation {
		opts = append(opts, sdk.PermissionOption{Kind: sdk.PermissionOptionKindAllowAlways, Name: "Allow for this run: " + req.Grant, OptionId: optAllowAlways})
	}
	opts = append(opts, sdk.PermissionOption{Kind: sdk.PermissionOptionKindRejectOnce, Name: "Reject", OptionId: optRejectOnce})
	if req.Grant != "" && !req.Escalation {
		opts = append(opts, sdk.PermissionOption{Kind: sdk.PermissionOptionKindRejectAlways, Name: "Reject for this run: " + req.Grant, OptionId: optRejectAlways})
	}
	tc := sdk.ToolCallUpdate{ToolCallId: sdk.ToolCallId(req.CallID), Status: sdk.Ptr(sdk.ToolCallStatusPending)}
	var a callArgs
	_ = json.Unmarshal([]byte(req.Arguments), &a)
	ttl := title(req.Tool, a)
	if req.Escalation {
		ttl = "outside the sandbox: " + ttl
	}
	if req.Subagent != "" {
		ttl = "subagent " + strconv.Quote(req.Subagent) + ": " + ttl
	}
	tc.Title = &ttl
	kind := toolKind(req.Tool)
	tc.Kind = &kind
	tc.RawInput = json.RawMessage(rawOr(req.Arguments))
	if p := ss.tr.absIn(req.ChildRun, a.Path); p != "" {
		tc.Locations = []sdk.ToolCallLocation{{Path: p}}
		if c, ok := argsDiff(p, req.Tool, a); ok {
			tc.Content = append(tc.Content, c)
		}
	}
	if req.Reason != "" {
		tc.Content = append(tc.Content, sdk.ToolContent(sdk.TextBlock(req.Reason)))
	}
	resp, err := ss.srv.conn.RequestPermission(ctx, sdk.RequestPermissionRequest{SessionId: sdk.SessionId(ss.id), ToolCall: tc, Options: opts})
	if err != nil {
		if ctx.Err() == nil {
			ss.srv.log.Warn("session/request_permission failed; the run is interrupted and asks again when continued", "call", req.CallID, "error", err)
		}
		r.Interrupt()
		return
	}
	if resp.Outcome.Selected == nil {
		r.Interrupt() // cancelled: the editor's session/cancel
		return
	}
	var d protocol.Decision
	switch string(resp.Outcome.Selected.OptionId) {
	case optAllowOnce:
		d = protocol.AllowOnce()
	case optAllowAlways:
		d = protocol.AllowRun()
	case optRejectOnce:
		d = protocol.DenyCall("")
	case optRejectAlways:
		ss.mu.Lock()
		ss.denyRules = append(ss.denyRules, req.Grant)
		err := r.SetPolicy(ss.mode, ss.denyRules)
		ss.mu.Unlock()
		if err != nil {
			ss.srv.log.Warn("reject always: the deny rule was not added; this call is denied", "rule", req.Grant, "error", err)
		}
		d = protocol.DenyCall("")
	default:
		ss.srv.log.Warn("session/request_permission: unknown option; the run is interrupted", "option", resp.Outcome.Selected.OptionId)
		r.Interrupt()
		return
	}
	if err := r.Decide(context.WithoutCancel(ctx), req.CallID, d); err != nil {
		ss.srv.log.Warn("the decision was not taken", "call", req.CallID, "error", err)
	}
}
