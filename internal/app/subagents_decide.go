package app

import (
	"context"
	"fmt"

	"agent/internal/agent"
	"agent/internal/protocol"
)

// decideChild takes a person's decision on a call of one of the run's
// children (a task call still open, whose child paused awaiting approval):
// call ids are unique across a tree, so `agent resume PARENT --approve
// CALL_ID` names a child's call as well as the parent's own. The decision
// is journaled by the child's own resume, when its parent's task call
// continues it. ok false: no child awaits that call.
func (r *Run) decideChild(ctx context.Context, callID string, d protocol.Decision) (bool, error) {
	for _, oc := range r.state.Open {
		ts, ok := r.state.Tasks[oc.Call.ID]
		if !ok {
			continue
		}
		evs, err := r.s.store.Events(ctx, ts.ChildRun, 0)
		if err != nil {
			return false, err
		}
		st := agent.Fold(ts.ChildRun, evs)
		if st.CheckPending(callID) == nil {
			r.s.subs.decide(ts.ChildRun, callID, d)
			return true, nil
		}
	}
	return false, nil
}

// ChildPending lists the calls of the run's children that await a person,
// as "CALL_ID (task DESCRIPTION)", for a paused parent's message.
func (r *Run) ChildPending(ctx context.Context) []string {
	var out []string
	for _, oc := range r.state.Open {
		ts, ok := r.state.Tasks[oc.Call.ID]
		if !ok {
			continue
		}
		evs, err := r.s.store.Events(ctx, ts.ChildRun, 0)
		if err != nil {
			continue
		}
		for _, id := range agent.Fold(ts.ChildRun, evs).PendingCalls() {
			out = append(out, fmt.Sprintf("%s (task %q)", id, ts.Description))
		}
	}
	return out
}

// checkNotChild refuses to drive a subagent on its own: its tools, its
// workspace and its result belong to its parent's task call, so only the
// parent's resume continues it.
func checkNotChild(st *agent.State) error {
	if st.ParentRun == "" || st.ParentCall == "" {
		return nil
	}
	return usage("run %s is a subagent of run %s (task call %s): continue it with agent resume %s, which resumes its unfinished subagents",
		st.RunID, st.ParentRun, st.ParentCall, st.ParentRun)
}
