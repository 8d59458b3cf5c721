package agent

import (
	"context"
	"time"

	"agent/internal/event"
)

// ApprovalRequest carries everything a prompt shows a person.
type ApprovalRequest struct {
	// RunID is the run the call belongs to, so one approver serves every run.
	RunID string
	// Step is the model turn whose answer holds the call.
	Step      int
	CallID    string
	Tool      string
	Arguments string
	Risk      event.Risk
	// Diff is the change a file tool would make (empty for commands).
	Diff string
	// Reason says why a person is asked (the policy's reason), once known.
	Reason string
}

// Approval decisions, scopes and sources (the event package's types).
const (
	Allow      = event.Allow
	Deny       = event.Deny
	ScopeOnce  = event.ScopeOnce
	ScopeRun   = event.ScopeRun
	SourceUser = event.SourceUser
	SourceRule = event.SourceRule
	SourceMode = event.SourceMode
)

// ApprovalDecision answers an ApprovalRequest.
type ApprovalDecision struct {
	Decision event.Decision
	Scope    event.Scope
	Source   event.Source
	Rule     string // the rule that decided, if any
	Note     string // a person's note to the model
	Reason   string // why, for the tool error the model gets on a denial
	// Pending: nobody can decide now (headless); the run pauses.
	Pending bool
	// Diff is the change a file tool would make, when the approver computed it.
	Diff string
	// Grant is the rule an allow with ScopeRun grants, and until when; the
	// loop journals it with the approval, and the journal records the grant
	// in the same transaction.
	Grant        string
	GrantExpires time.Time
}

// Granter is implemented by approvers that keep "allow for this run"
// grants: it returns the rule that covers calls like req, and its expiry.
type Granter interface {
	GrantFor(req ApprovalRequest) (rule string, expires time.Time)
}

// Interactive is implemented by approvers that may ask a person: the loop
// commits what led to a question before asking it.
type Interactive interface {
	Interactive() bool
}

// Approver decides whether a call that is not read-only may run. It must
// honour ctx cancellation while it waits for a person.
type Approver interface {
	Approve(ctx context.Context, req ApprovalRequest) (ApprovalDecision, error)
}

// Escalator is implemented by approvers that know calls asking to run
// outside the OS sandbox: a person's allow of such a call has scope
// ScopeEscalate (never a run grant), also when given with resume --approve.
type Escalator interface {
	Escalates(req ApprovalRequest) bool
}
