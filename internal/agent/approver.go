package agent

import (
	"context"

	"agent/internal/event"
)

// ApprovalRequest carries everything a prompt shows a person.
type ApprovalRequest struct {
	CallID    string
	Tool      string
	Arguments string
	Risk      event.Risk
	// Diff is the change a file tool would make (empty for commands).
	Diff string
}

// Approval decisions and scopes.
const (
	Allow     = "allow"
	Deny      = "deny"
	ScopeOnce = "once"
	ScopeRun  = "run"
)

// Decision sources.
const (
	SourceUser = "user"
	SourceRule = "rule"
	SourceMode = "mode"
)

// ApprovalDecision answers an ApprovalRequest.
type ApprovalDecision struct {
	Decision string // Allow or Deny
	Scope    string // ScopeOnce or ScopeRun
	Source   string // SourceUser, SourceRule, SourceMode
	Rule     string // the rule that decided, if any
	Note     string // a person's note to the model
	Reason   string // why, for the tool error the model gets on a denial
	// Pending: nobody can decide now (headless); the run pauses.
	Pending bool
	// Diff is the change a file tool would make, when the approver computed it.
	Diff string
}

// Granter is implemented by approvers that keep "allow for this run" grants.
type Granter interface {
	Grant(ctx context.Context, req ApprovalRequest) error
}

// Approver decides whether a call that is not read-only may run. It must
// honour ctx cancellation while it waits for a person.
type Approver interface {
	Approve(ctx context.Context, req ApprovalRequest) (ApprovalDecision, error)
}
