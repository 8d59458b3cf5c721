package agent

import (
	"context"
	"fmt"

	"agent/internal/event"
	"agent/internal/protocol"
)

// reasonCancelledByNote is the reason of a call that was not asked about:
// a person denied an earlier call of its turn with a note.
const reasonCancelledByNote = "cancelled: the person denied an earlier call of this turn with a note, which cancels the rest of the turn"

// PersonDecision turns a person's answer to req, from whichever frontend,
// into the approval the loop journals: source user; an allow of a call
// that leaves the OS sandbox covers that call only (scope escalate, never
// a grant); an allow for the run carries the grant and its expiry. It is
// the one place a person's decision is interpreted, live or on resume.
func (r *Runner) PersonDecision(req protocol.ApprovalRequest, d protocol.Decision) (ApprovalDecision, error) {
	if err := d.Check(); err != nil {
		return ApprovalDecision{}, &ResumeError{Msg: fmt.Sprintf("call %s: %v", req.CallID, err)}
	}
	if d.Scope == "" {
		d.Scope = event.ScopeOnce
	}
	dec := ApprovalDecision{Decision: d, Source: event.SourceUser}
	if d.Verdict != protocol.Allow {
		return dec, nil
	}
	if e, ok := r.Approver.(Escalator); ok && e.Escalates(req) {
		dec.Scope = event.ScopeEscalate
		dec.Reason = "allowed to run outside the OS sandbox, this call only"
		return dec, nil
	}
	if d.Scope == event.ScopeRun {
		if g, ok := r.Approver.(Granter); ok {
			dec.Grant, dec.GrantExpires = g.GrantFor(req)
		}
		if d.Rule != "" {
			gc, ok := r.Approver.(GrantChecker)
			if !ok {
				return ApprovalDecision{}, &ResumeError{Msg: fmt.Sprintf("call %s: this session cannot grant a rule of your own; allow for the run without one", req.CallID)}
			}
			if err := gc.CheckGrant(req, d.Rule); err != nil {
				return ApprovalDecision{}, &ResumeError{Msg: fmt.Sprintf("call %s: %v", req.CallID, err)}
			}
			dec.Grant = d.Rule
		}
	}
	return dec, nil
}

// askPerson settles a call the Approver left pending: denied at once when a
// person denied an earlier call of the turn with a note (the rule lives
// here, for every frontend); else the Decider's person decides, once what
// led to the question is on record. ok false: nobody can decide now.
func (r *Runner) askPerson(ctx context.Context, st *State, req *protocol.ApprovalRequest) (ApprovalDecision, bool, error) {
	if st.noteDenied != "" && st.noteDenied != req.CallID {
		return ApprovalDecision{Decision: protocol.DenyCall(""), Source: event.SourceUser, Reason: reasonCancelledByNote}, true, nil
	}
	if r.Decider == nil {
		return ApprovalDecision{}, false, nil
	}
	if e, ok := r.Approver.(Escalator); ok && e.Escalates(*req) {
		req.Escalation = true
	} else if g, ok := r.Approver.(Granter); ok {
		req.Grant, req.GrantExpires = g.GrantFor(*req)
	}
	if err := r.flush(ctx, st, false); err != nil {
		return ApprovalDecision{}, false, err
	}
	d, ok, err := r.Decider.Await(ctx, *req)
	if err != nil || !ok {
		return ApprovalDecision{}, ok, err
	}
	dec, err := r.PersonDecision(*req, d)
	return dec, err == nil, err
}
