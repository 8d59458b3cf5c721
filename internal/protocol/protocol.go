// Package protocol owns what crosses between the runtime and a frontend
// (the TUI, the headless CLI, an editor over ACP): the approval a person is
// asked for and the Decision that answers it, the Outcome of driving a run,
// the live pieces of a streaming turn (text, calls, a running command's
// output, a retry's backoff), the Update a subscriber sees, the session's
// orientation (SessionInfo), and the view types a frontend renders (runs,
// checkpoints, grants, the context report's wording).
//
// It imports only internal/event: every frontend may import it, and it must
// not know how runs are driven, stored or shown.
package protocol

import (
	"fmt"
	"time"

	"agent/internal/event"
)

// ApprovalRequest is a call that needs a person: everything a prompt shows.
// Every text in it has passed redaction; it is still untrusted (the model's
// or the workspace's).
type ApprovalRequest struct {
	// RunID is the run the call belongs to.
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
	// Escalation: the call asks to run outside the OS sandbox; an allow
	// covers this one call, never the run.
	Escalation bool
	// Grant is the rule "allow for this run" would grant, and GrantExpires
	// when it would end (empty for an escalation).
	Grant        string
	GrantExpires time.Time
	// Mode is the run's approval mode when the call came up ("": the
	// mode the run's policy was made with).
	Mode event.ApprovalMode
	// Subagent is the description of the child run (a task call's) whose
	// call this is, and ChildRun its id; empty for the run's own calls.
	// A child's call is decided on its parent (RunID is the parent's).
	Subagent, ChildRun string
}

// Verdict is a decision's answer. Pending is not an answer: nobody has
// decided yet (a headless run pauses on it).
type Verdict string

const (
	Allow   Verdict = "allow"
	Deny    Verdict = "deny"
	Pending Verdict = "pending"
)

// Event is the verdict as the journal records it ("" for Pending, which is
// never journaled as an approval).
func (v Verdict) Event() event.Decision {
	switch v {
	case Allow:
		return event.Allow
	case Deny:
		return event.Deny
	}
	return ""
}

// Decision is a person's answer to an ApprovalRequest, whichever frontend
// gave it.
type Decision struct {
	Verdict Verdict
	// Scope is what an Allow covers: event.ScopeOnce (the default) or
	// event.ScopeRun (a scoped, expiring, revocable run grant). A Deny is
	// always once.
	Scope event.Scope
	// Note is a person's words to the model with a Deny. A denial with a
	// note lets the run go on (the other calls of the turn that would ask
	// are denied with it); a denial without a note ends the turn.
	Note string
	// Rule, with an Allow of scope run, is the rule the person chose for
	// the grant in place of the one offered (ApprovalRequest.Grant), e.g.
	// run_command(go test *): it must cover this call. "" : the offered one.
	Rule string
}

// AllowOnce allows this call.
func AllowOnce() Decision { return Decision{Verdict: Allow, Scope: event.ScopeOnce} }

// AllowRun allows this call and calls like it for the run.
func AllowRun() Decision { return Decision{Verdict: Allow, Scope: event.ScopeRun} }

// DenyCall denies this call; note, if set, goes to the model.
func DenyCall(note string) Decision {
	return Decision{Verdict: Deny, Scope: event.ScopeOnce, Note: note}
}

// Check reports a decision that is not an answer, or not a valid one.
func (d Decision) Check() error {
	switch d.Verdict {
	case Allow:
		if d.Note != "" {
			return fmt.Errorf("a note goes with a denial, not an allow")
		}
		if d.Scope != "" && d.Scope != event.ScopeOnce && d.Scope != event.ScopeRun {
			return fmt.Errorf("scope %q: use once or run", d.Scope)
		}
		if d.Rule != "" && d.Scope != event.ScopeRun {
			return fmt.Errorf("a rule goes with an allow for the run (scope run), not scope %q", d.Scope)
		}
	case Deny:
		if d.Rule != "" {
			return fmt.Errorf("a rule goes with an allow for the run, not a denial")
		}
		if d.Scope != "" && d.Scope != event.ScopeOnce {
			return fmt.Errorf("a denial covers this call only (scope once, not %s)", d.Scope)
		}
	case Pending:
		return fmt.Errorf("pending is not a decision: allow or deny the call")
	default:
		return fmt.Errorf("verdict %q: use allow or deny", d.Verdict)
	}
	return nil
}

// Outcome is how a run (or a stretch of it) ended.
type Outcome struct {
	Status event.Status
	Answer string
	Err    error
	// Pending holds the approval a person must give (status awaiting_approval).
	Pending *ApprovalRequest
	// Plan is the plan a person must approve (status awaiting_approval
	// under the plan approval mode, Pending nil): the model's answer and
	// its newest update_plan steps.
	Plan string
}

// CallDelta is a piece of a streaming tool call: its name and id when it
// starts, fragments of its (redacted) arguments, and Done at its end.
type CallDelta struct {
	Step  int // the step whose answer carries the call
	Index int
	ID    string
	Name  string
	Text  string
	Done  bool
}

// UpdateKind says what an Update carries.
type UpdateKind uint8

const (
	// UpdateEvent: an event of the run, committed to the journal.
	UpdateEvent UpdateKind = iota + 1
	// UpdateText: a piece of the assistant's text as it streams (redacted).
	UpdateText
	// UpdateCall: a piece of a tool call as it streams (redacted).
	UpdateCall
	// UpdateApproval: a call waits for a person; a frontend answers it with
	// the run's Decide. What led to it is in the journal first.
	UpdateApproval
	// UpdateOutput: the latest output of a command while it runs (redacted,
	// bounded; never journaled: the tool_result has the output).
	UpdateOutput
	// UpdateRetry: the model adapter waits before trying a failed request
	// again.
	UpdateRetry
	// UpdateChild: an event of a child run (a task call's subagent); RunID
	// is the run the frontend drives, Event.RunID the child's.
	UpdateChild
)

// Update is what a subscriber sees of the runs of a session.
type Update struct {
	Kind     UpdateKind
	RunID    string           // every kind
	Event    event.Event      // UpdateEvent, UpdateChild
	Text     string           // UpdateText
	Call     CallDelta        // UpdateCall
	Approval *ApprovalRequest // UpdateApproval
	Output   *CommandOutput   // UpdateOutput
	Retry    *RetryNotice     // UpdateRetry
}
