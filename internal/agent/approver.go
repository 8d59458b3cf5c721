package agent

import (
	"context"
	"time"

	"agent/internal/event"
	"agent/internal/protocol"
)

// ApprovalDecision is the Approver's answer to a request: the verdict,
// scope and note (protocol.Decision; Verdict protocol.Pending when a person
// must decide), and who decided and why.
type ApprovalDecision struct {
	protocol.Decision
	Source event.Source
	Rule   string // the rule that decided, if any
	Reason string // why, for the tool error the model gets on a denial
	// Diff is the change a file tool would make, when the approver computed it.
	Diff string
	// Grant is the rule an allow with event.ScopeRun grants, and until when; the
	// loop journals it with the approval, and the journal records the grant
	// in the same transaction.
	Grant        string
	GrantExpires time.Time
	// Hook names the before_tool_call hooks that took part (their
	// commands): the decision is journaled even for a read, and durably,
	// so that a resume never asks them again.
	Hook string
}

// Granter is implemented by approvers that keep "allow for this run"
// grants: it returns the rule that covers calls like req, and its expiry.
type Granter interface {
	GrantFor(req protocol.ApprovalRequest) (rule string, expires time.Time)
}

// GrantChecker checks a rule a person chose for "allow for this run" in
// place of the one offered: it must parse and cover the call asked about.
type GrantChecker interface {
	CheckGrant(req protocol.ApprovalRequest, rule string) error
}

// Decider lets a person decide a call while the run waits: a session with
// a frontend that can answer (the TUI, an editor). Await publishes req and
// waits for the answer, which a frontend gives as a command (app's
// Run.Decide), or for ctx to end. ok false: nobody can decide now
// (headless), so the run pauses awaiting approval.
type Decider interface {
	Await(ctx context.Context, req protocol.ApprovalRequest) (d protocol.Decision, ok bool, err error)
}

// Approver decides whether a call that is not read-only may run, by
// policy and grants, without waiting: a call that needs a person is
// Verdict protocol.Pending (the loop asks its Decider, or pauses).
type Approver interface {
	Approve(ctx context.Context, req protocol.ApprovalRequest) (ApprovalDecision, error)
}

// Escalator is implemented by approvers that know calls asking to run
// outside the OS sandbox: a person's allow of such a call has scope
// ScopeEscalate (never a run grant), also when given with resume --approve.
type Escalator interface {
	Escalates(req protocol.ApprovalRequest) bool
}
