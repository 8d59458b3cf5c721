package agent

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"

	"agent/internal/event"
	"agent/internal/protocol"
	"agent/internal/tools"
)

// Subagents runs the child runs of task calls (internal/app owns them:
// their journals, worktrees, tools and approvals) and applies a worker's
// changes. The loop journals which child belongs to which call
// (task_started) before the child starts, so a resume continues that
// child and never starts a second one.
type Subagents interface {
	// Prepare makes what a new child of the call needs before it starts (its
	// run id; for a worker, its git worktree) and says so in the
	// task_started the loop journals, with the child's share of the
	// parent's budget (siblings: the task calls of this turn). An error is
	// the call's tool error.
	Prepare(ctx context.Context, parent *State, callID string, args tools.TaskArgs, siblings int) (event.TaskStartedData, error)
	// Run starts the child of a journaled task_started, or continues it
	// (after a crash or a pause), or only reads its result when it has
	// finished, and returns what the parent's model gets.
	Run(ctx context.Context, parent *State, ts event.TaskStartedData, args tools.TaskArgs) TaskResult
	// Diff is the change a worker's task would bring into the parent's
	// workspace, for the approval prompt.
	Diff(ctx context.Context, parent *State, ts event.TaskStartedData) (string, error)
	// Apply brings a finished worker's changes into the parent's
	// workspace, file by file; a conflict is reported, never silent.
	Apply(ctx context.Context, parent *State, ts event.TaskStartedData) (tools.Result, error)
}

// TaskResult is how a child run ended, for its parent.
type TaskResult struct {
	Status event.ResultStatus // ok or error (the child failed); interrupted: no result yet
	Output string
	// Pending: the child waits for a person (the parent pauses, headless).
	Pending *protocol.ApprovalRequest
	// Usage is what the child (and its own children) spent, by model: it
	// counts in the parent's spend once the result is journaled.
	Usage map[string]event.TokenCount
}

// runTasks runs the task calls at the head of st.Open: each is journaled
// with its child (task_started, fsynced) one after the other, then the
// children run in parallel (the Subagents bound how many at once), and
// their results are journaled in call order. A child that was interrupted
// or waits for a person leaves its call open: the parent ends interrupted
// or awaiting approval, and a resume continues the same child.
func (r *Runner) runTasks(ctx context.Context, st *State) (protocol.Outcome, bool) {
	var batch []*OpenCall
	for _, oc := range st.Open {
		if oc.Call.Name != tools.TaskName {
			break
		}
		batch = append(batch, oc)
	}
	type job struct {
		oc   *OpenCall
		ts   event.TaskStartedData
		args tools.TaskArgs
		res  TaskResult
	}
	var jobs []*job
	for _, oc := range batch {
		c := oc.Call
		if !oc.Journaled {
			if err := r.record(ctx, st, &event.ToolCallData{CallID: c.ID, Name: c.Name, Arguments: c.Arguments, Risk: r.riskOf(c.Name)}); err != nil {
				return protocol.Outcome{Status: event.StatusFailed, Err: err}, true
			}
		}
		_, raw, verr := r.Tools.Validate(c.Name, c.Arguments)
		var args tools.TaskArgs
		if verr == nil {
			args, verr = tools.DecodeTaskArgs(raw)
		}
		if verr != nil {
			if out, stop := r.failedCall(ctx, st, c, verr.Error()); stop {
				return out, true
			}
			continue
		}
		ts, ok := st.Tasks[c.ID]
		if !ok {
			var err error
			ts, err = r.Subagents.Prepare(ctx, st, c.ID, args, len(batch))
			if err != nil {
				if ctx.Err() != nil {
					return protocol.Outcome{Status: event.StatusInterrupted, Err: ctx.Err()}, true
				}
				if out, stop := r.failedCall(ctx, st, c, err.Error()); stop {
					return out, true
				}
				continue
			}
			ts.CallID = c.ID
			if err := r.record(ctx, st, &ts); err != nil {
				return protocol.Outcome{Status: event.StatusFailed, Err: err}, true
			}
		}
		jobs = append(jobs, &job{oc: oc, ts: ts, args: args})
	}
	// Every child is named in the journal, durably, before any starts.
	if err := r.flush(ctx, st, true); err != nil {
		return protocol.Outcome{Status: event.StatusFailed, Err: err}, true
	}
	var wg sync.WaitGroup
	for _, j := range jobs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			j.res = r.Subagents.Run(ctx, st, j.ts, j.args)
		}()
	}
	wg.Wait()
	var pending *protocol.ApprovalRequest
	interrupted := false
	for _, j := range jobs {
		switch {
		case j.res.Pending != nil:
			if pending == nil {
				pending = j.res.Pending
			}
		case j.res.Status == event.ResultInterrupted || j.res.Status == "":
			interrupted = true
		default:
			res := &event.ToolResultData{CallID: j.oc.Call.ID, Status: j.res.Status, Output: r.redact(j.res.Output), ChildUsage: j.res.Usage}
			if err := r.record(context.WithoutCancel(ctx), st, res); err != nil {
				return protocol.Outcome{Status: event.StatusFailed, Err: err}, true
			}
		}
	}
	if err := r.flush(context.WithoutCancel(ctx), st, false); err != nil {
		return protocol.Outcome{Status: event.StatusFailed, Err: err}, true
	}
	switch {
	case ctx.Err() != nil || interrupted:
		err := ctx.Err()
		if err == nil {
			err = context.Canceled
		}
		return protocol.Outcome{Status: event.StatusInterrupted, Err: err}, true
	case pending != nil:
		return protocol.Outcome{Status: event.StatusAwaitingApproval, Pending: pending}, true
	}
	return protocol.Outcome{}, false
}

// taskOf returns the worker task an apply_task_changes call names.
func (r *Runner) taskOf(st *State, args json.RawMessage) (event.TaskStartedData, error) {
	a, err := tools.DecodeApplyTaskArgs(args)
	if err != nil {
		return event.TaskStartedData{}, err
	}
	ts, ok := st.Tasks[a.CallID]
	if !ok {
		return ts, fmt.Errorf("no task call %q in this run: give the id of a task call of kind worker", a.CallID)
	}
	if ts.Kind != event.TaskWorker {
		return ts, fmt.Errorf("task call %s is of kind %s: only a worker's changes can be applied", a.CallID, ts.Kind)
	}
	return ts, nil
}

// applyTask runs an apply_task_changes call.
func (r *Runner) applyTask(ctx context.Context, st *State, args json.RawMessage) (tools.Result, error) {
	ts, err := r.taskOf(st, args)
	if err != nil {
		return tools.Result{}, err
	}
	return r.Subagents.Apply(ctx, st, ts)
}

// applyPreview is the diff an approval prompt of apply_task_changes shows.
func (r *Runner) applyPreview(ctx context.Context, st *State, args json.RawMessage) string {
	ts, err := r.taskOf(st, args)
	if err != nil {
		return "(no preview: " + err.Error() + ")"
	}
	d, err := r.Subagents.Diff(ctx, st, ts)
	if err != nil {
		return "(no preview: " + err.Error() + ")"
	}
	return d
}
