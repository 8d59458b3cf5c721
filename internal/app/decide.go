package app

import (
	"context"
	"sync"

	"agent/internal/agent"
	"agent/internal/protocol"
)

// decisions is the session's agent.Decider: a call that needs a person is
// published as an UpdateApproval, and the loop waits here until a frontend
// answers with Run.Decide (a command, from any goroutine) or the run's
// context ends (an interrupt: nothing is journaled, a resume asks again).
type decisions struct {
	hub   *hub
	mu    sync.Mutex
	waits map[waitKey]chan protocol.Decision
	reqs  map[waitKey]protocol.ApprovalRequest // what each wait asks about
}

type waitKey struct{ run, call string }

// Await implements agent.Decider.
func (d *decisions) Await(ctx context.Context, req protocol.ApprovalRequest) (protocol.Decision, bool, error) {
	k := waitKey{req.RunID, req.CallID}
	ch := make(chan protocol.Decision, 1)
	d.mu.Lock()
	if d.waits == nil {
		d.waits, d.reqs = map[waitKey]chan protocol.Decision{}, map[waitKey]protocol.ApprovalRequest{}
	}
	d.waits[k], d.reqs[k] = ch, req
	d.mu.Unlock()
	defer func() {
		d.mu.Lock()
		delete(d.waits, k)
		delete(d.reqs, k)
		d.mu.Unlock()
	}()
	d.hub.publish(protocol.Update{Kind: protocol.UpdateApproval, RunID: req.RunID, Approval: &req})
	select {
	case dec := <-ch:
		return dec, true, nil
	case <-ctx.Done():
		return protocol.Decision{}, false, ctx.Err()
	}
}

// request is what the loop waiting on the call asks about, if one waits.
func (d *decisions) request(runID, callID string) (protocol.ApprovalRequest, bool) {
	d.mu.Lock()
	defer d.mu.Unlock()
	req, ok := d.reqs[waitKey{runID, callID}]
	return req, ok
}

// deliver hands dec to the loop waiting on the call, if one is; it
// reports whether one was.
func (d *decisions) deliver(runID, callID string, dec protocol.Decision) bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	ch, ok := d.waits[waitKey{runID, callID}]
	if !ok {
		return false
	}
	delete(d.waits, waitKey{runID, callID}) // one answer per question
	ch <- dec
	return true
}

// Decide answers a call of the run that waits for a person, whichever
// frontend asks: while the run is driven and waits on the call (an
// UpdateApproval), the loop goes on with the decision; while the run is
// paused (awaiting_approval), the decision is journaled by the next Resume,
// before the run is driven again. A call that is not awaiting a decision,
// or a decision that is not one (pending, a note with an allow), is a
// *UsageError. A person's denial with a note lets the run go on and denies
// the turn's other calls that would ask; without a note it ends the turn.
func (r *Run) Decide(ctx context.Context, callID string, d protocol.Decision) error {
	if err := d.Check(); err != nil {
		return usage("call %s: %v", callID, err)
	}
	if d.Rule != "" {
		// a rule of the person's own is checked before the loop gets it:
		// one that does not cover the call is refused here, the call still
		// waiting
		req, ok := r.s.decide.request(r.id, callID)
		if !ok {
			return usage("call %s of run %s: a rule of your own can be given while the run waits on the call; allow for the run without one", callID, r.id)
		}
		gc, ok := r.s.runner.Approver.(agent.GrantChecker)
		if !ok {
			return usage("call %s: this session cannot grant a rule of your own", callID)
		}
		if err := gc.CheckGrant(req, d.Rule); err != nil {
			return &UsageError{Err: err}
		}
	}
	if r.s.decide.deliver(r.id, callID, d) {
		return nil
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.cancel != nil {
		return usage("call %s of run %s is not waiting for a decision", callID, r.id)
	}
	if err := r.state.CheckPending(callID); err != nil {
		if ok, cerr := r.decideChild(ctx, callID, d); ok || cerr != nil {
			return cerr
		}
		return &UsageError{Err: err}
	}
	if r.decided == nil {
		r.decided = map[string]protocol.Decision{}
	}
	r.decided[callID] = d
	return nil
}
