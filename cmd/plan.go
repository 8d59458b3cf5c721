package cmd

import (
	"context"
	"fmt"
	"io"

	"agent/internal/app"
	"agent/internal/event"
	"agent/internal/protocol"
	"agent/internal/termtext"
)

// planID is what --approve and --deny take for the plan a run under
// --approval plan paused at, in place of a call id.
const planID = "plan"

// printPlanPause says that a run paused at its plan, shows the plan and how
// to decide it.
func printPlanPause(w io.Writer, runID, plan string) {
	fmt.Fprintf(w, "paused: plan mode; the plan waits for your approval (nothing was written or run):\n")
	fmt.Fprint(w, gutter(termtext.Visible(plan)))
	fmt.Fprintf(w, "approve with: agent resume %s --approve plan [--approval auto-edit]   (goes on in that mode; default ask)\n", runID)
	fmt.Fprintf(w, "or keep planning: agent resume %s --deny plan --note \"what to change\"\n", runID)
}

// decidePlan applies a decision on the plan a run paused at (--approve
// plan, --deny plan [--note], or a --message, which is a note). done: the
// plan was decided. A run paused at its plan without a decision is a usage
// error that says how to decide it; a plan decision on a run that is not
// paused at one is too.
func decidePlan(ctx context.Context, run *app.Run, set *app.Settings, req resumeRequest) (done bool, err error) {
	d, asked := req.opt[planID]
	if !run.AwaitingPlan() {
		if asked {
			return false, usageErr("run %s is not paused at a plan: --approve/--deny plan decide a run that --approval plan paused", run.ID())
		}
		return false, nil
	}
	switch {
	case asked && d.Verdict == protocol.Allow:
		mode := set.Approval // --approval, else the run's (plan): ask
		if mode == event.ApprovalPlan {
			mode = event.ApprovalAsk
		}
		return true, run.ApprovePlan(ctx, mode)
	case asked:
		note := d.Note
		if note == "" {
			note = req.message
		}
		return true, run.RejectPlan(ctx, note)
	case req.message != "":
		return true, run.RejectPlan(ctx, req.message)
	}
	return false, usageErr("run %s is paused at its plan: approve it with agent resume %s --approve plan [--approval MODE] (default ask), or keep planning with --deny plan --note TEXT",
		run.ID(), run.ID())
}
