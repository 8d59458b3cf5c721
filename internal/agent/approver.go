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
}

// Granter is implemented by approvers that keep "allow for this run"
// grants: it returns the rule that covers calls like req, and its expiry.
type Granter interface {
	GrantFor(req protocol.ApprovalRequest) (rule string, expires time.Time)
}

// Interactive is implemented by approvers that may ask a person: the loop
// commits what led to a question before asking it.
type Interactive interface {
	Interactive() bool
}

// Approver decides whether a call that is not read-only may run. It must
// honour ctx cancellation while it waits for a person.
type Approver interface {
	Approve(ctx context.Context, req protocol.ApprovalRequest) (ApprovalDecision, error)
}

// Escalator is implemented by approvers that know calls asking to run
// outside the OS sandbox: a person's allow of such a call has scope
// ScopeEscalate (never a run grant), also when given with resume --approve.
type Escalator interface {
	Escalates(req protocol.ApprovalRequest) bool
}
