package agent

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"agent/internal/event"
	"agent/internal/protocol"
	"agent/internal/tools"
)

// Resume actions of the contract.
const (
	ActionRerun            = event.ActionRerun
	ActionNotRerun         = event.ActionNotRerun
	ActionAwaitingApproval = event.ActionAwaitingApproval
)

// ResumeOptions are a person's decisions on calls the run paused on, given
// before it is driven again (`agent resume --approve/--deny`, or any
// frontend's decision on a paused run), by call id.
type ResumeOptions struct {
	Decisions map[string]protocol.Decision
}

// ResumeError is a resume request that does not fit the run (exit 2).
type ResumeError struct{ Msg string }

func (e *ResumeError) Error() string { return e.Msg }

// CheckPending reports a call that is not awaiting a person's approval in
// the run (a *ResumeError naming the calls that are).
func (st *State) CheckPending(callID string) error {
	pending := st.PendingCalls()
	if !contains(pending, callID) {
		return &ResumeError{Msg: fmt.Sprintf("call %s is not awaiting approval in run %s (awaiting: %s)", callID, st.RunID, listOrNone(pending))}
	}
	return nil
}

// PendingCalls returns the ids of open calls awaiting a person's approval.
func (st *State) PendingCalls() []string {
	var ids []string
	for _, oc := range st.Open {
		if oc.Approval != nil && oc.Approval.Pending {
			ids = append(ids, oc.Call.ID)
		}
	}
	return ids
}

// Resume journals a resume event that says what happens to every call that
// was interrupted, records the person's decisions, and prepares st so that
// Run continues exactly where the run stopped:
//   - a call denied before is never run;
//   - a call awaiting approval stays so unless opt decides it;
//   - a read-only call is run again;
//   - a file tool that may have started is redone from its before-checkpoint;
//   - a run_command that may have started is never run again: the model is
//     told its outcome is unknown, with the files changed since it started;
//     whatever is left of its processes (and of the run's earlier commands)
//     is ended first, and the resume event says so.
func (r *Runner) Resume(ctx context.Context, st *State, opt ResumeOptions) error {
	decided := map[string]ApprovalDecision{}
	for id, d := range opt.Decisions {
		if err := st.CheckPending(id); err != nil {
			return err
		}
		oc := st.findOpen(id)
		dec, err := r.PersonDecision(protocol.ApprovalRequest{RunID: st.RunID, Step: st.Step, CallID: id,
			Tool: oc.Call.Name, Arguments: oc.Call.Arguments, Risk: oc.Risk}, d)
		if err != nil {
			return err
		}
		decided[id] = dec
	}
	type plan struct {
		oc      *OpenCall
		action  event.ResumeAction
		unknown bool // a command that may have run: answer "outcome unknown"
	}
	var plans []plan
	var report []event.InterruptedCall
	for _, oc := range st.Open {
		if !oc.Journaled {
			continue // never started: the loop runs it as usual
		}
		a := oc.Approval
		action, unknown := ActionRerun, false
		dec, isDecided := decided[oc.Call.ID]
		switch {
		case a != nil && a.Pending && isDecided && dec.Verdict == protocol.Allow:
		case a != nil && a.Pending && isDecided:
			action = ActionNotRerun
		case a != nil && a.Pending:
			action = ActionAwaitingApproval
		case a != nil && a.Decision == event.Deny:
			action = ActionNotRerun
		case oc.Risk == event.RiskExec && oc.BeforeCP != "",
			oc.Risk == event.RiskRead && tools.Remote(oc.Call.Name): // an MCP call journaled is one that may have been sent
			action, unknown = ActionNotRerun, true
		}
		plans = append(plans, plan{oc, action, unknown})
		report = append(report, event.InterruptedCall{CallID: oc.Call.ID, Name: oc.Call.Name, Action: action})
	}
	if report == nil {
		report = []event.InterruptedCall{}
	}
	// Nothing a crash left running may change files behind the journal: end
	// it before any checkpoint is taken, and say what was found.
	var leftovers []event.ProcessReport
	ended := map[string]event.ProcessReport{}
	for _, pr := range r.endProcesses(ctx, st) {
		ended[pr.CallID] = pr
	}
	for i, p := range plans { // plans[i] is report[i]
		if pr, ok := ended[p.oc.Call.ID]; ok {
			report[i].Processes = &pr
			delete(ended, p.oc.Call.ID)
		} else if p.oc.Started != nil {
			report[i].Processes = &event.ProcessReport{CallID: p.oc.Call.ID, PGID: p.oc.Started.PGID, Action: event.ProcessNoneLeft}
		}
	}
	for _, c := range st.Commands { // in the order the commands ran
		if pr, ok := ended[c.CallID]; ok {
			leftovers = append(leftovers, pr)
			delete(ended, c.CallID)
		}
	}
	for _, pr := range ended { // carried the run's marker, call unknown
		leftovers = append(leftovers, pr)
	}
	if err := r.record(ctx, st, &event.ResumeData{FromSeq: st.LastSeq, Interrupted: report, Leftovers: leftovers}); err != nil {
		return err
	}
	for _, p := range plans {
		oc := p.oc
		switch {
		case decided[oc.Call.ID].Verdict != "":
			dec := decided[oc.Call.ID]
			if err := r.record(ctx, st, &event.ApprovalData{CallID: oc.Call.ID, Decision: dec.Verdict.Event(), Scope: dec.Scope,
				Source: dec.Source, Note: r.redact(dec.Note), Reason: dec.Reason, ArgsHash: ArgsHash(oc.Call.Name, oc.Call.Arguments),
				Grant: dec.Grant, GrantExpires: dec.GrantExpires}); err != nil {
				return err
			}
		case p.unknown:
			if err := r.unknownOutcome(ctx, st, oc); err != nil {
				return err
			}
		case p.action == ActionRerun && oc.Risk == event.RiskWrite:
			if err := r.prepareRedo(ctx, oc); err != nil {
				return err
			}
		}
	}
	return r.flush(ctx, st, false)
}

// prepareRedo puts an interrupted file write's path back as it was at its
// before-checkpoint and removes what a killed atomic write left behind, so
// the call can run again from the same state.
func (r *Runner) prepareRedo(ctx context.Context, oc *OpenCall) error {
	tool, ok := r.Tools.Get(oc.Call.Name)
	if !ok {
		return nil
	}
	paths := r.touched(tool, oc.Call)
	for _, p := range paths {
		if err := tools.RemoveStaleTemps(r.ToolEnv.Workspace, p); err != nil {
			return Fail(ClassRuntime, fmt.Errorf("redo %s: %w", oc.Call.ID, err))
		}
	}
	if oc.BeforeCP == "" || r.Checkpointer == nil {
		return nil
	}
	if err := r.Checkpointer.RestorePaths(ctx, oc.BeforeCP, paths); err != nil {
		return Fail(ClassRuntime, fmt.Errorf("redo %s from checkpoint %s: %w", oc.Call.ID, oc.BeforeCP, err))
	}
	return nil
}

// unknownOutcome answers an interrupted command without running it again.
func (r *Runner) unknownOutcome(ctx context.Context, st *State, oc *OpenCall) error {
	what := "command"
	if tools.Remote(oc.Call.Name) {
		what = "MCP tool call"
	}
	msg := "outcome unknown: the agent stopped while this " + what + " was running, and it was not run again. " +
		"Check its effects before deciding whether to run it again."
	if r.Checkpointer != nil && oc.BeforeCP != "" { // a read-only MCP call has no checkpoint
		id, _, err := r.Checkpointer.Checkpoint(ctx, st.RunID, oc.Call.ID, event.CheckpointAfter, st.Step, st.LastSeq, nil)
		if err != nil {
			return Fail(ClassRuntime, err)
		}
		// Compare with the call's own before-checkpoint: the process may have
		// taken (but not journaled) an after-checkpoint before it died.
		files, err := r.Checkpointer.Changed(ctx, oc.BeforeCP, id)
		if err != nil {
			return Fail(ClassRuntime, err)
		}
		if err := r.record(ctx, st, &event.CheckpointData{CheckpointID: id, CallID: oc.Call.ID, Kind: event.CheckpointAfter, Step: st.Step, Files: files}); err != nil {
			return err
		}
		if len(files) == 0 {
			msg += "\nNo file changed since it started."
		} else {
			sort.Strings(files)
			msg += "\nFiles changed since it started: " + strings.Join(files, ", ")
		}
	}
	return r.record(ctx, st, &event.ToolResultData{CallID: oc.Call.ID, Status: event.ResultInterrupted, Output: msg})
}

// endProcesses ends what is left of the run's commands.
func (r *Runner) endProcesses(ctx context.Context, st *State) []event.ProcessReport {
	if r.Processes == nil || !startedAProcess(st.Commands) {
		return nil // a command run in-process (pid 0) leaves no process behind
	}
	reps := r.Processes.End(ctx, st.RunID, st.Commands)
	for i := range reps {
		for j := range reps[i].Processes {
			reps[i].Processes[j].Command = r.redact(reps[i].Processes[j].Command)
		}
	}
	return reps
}

// startedAProcess reports whether any of the run's commands ran as a
// process (the ones of builtins run in-process are journaled with pid 0).
func startedAProcess(cmds []event.CommandStartedData) bool {
	for _, c := range cmds {
		if c.PID != 0 || c.PGID != 0 {
			return true
		}
	}
	return false
}

// callPaths returns the workspace path a file tool's arguments name.
func callPaths(c ToolCall) []string {
	var a struct {
		Path string `json:"path"`
	}
	if json.Unmarshal([]byte(c.Arguments), &a) != nil || a.Path == "" {
		return nil
	}
	return []string{a.Path}
}

func contains(ss []string, s string) bool {
	for _, x := range ss {
		if x == s {
			return true
		}
	}
	return false
}

func listOrNone(ss []string) string {
	if len(ss) == 0 {
		return "none"
	}
	return strings.Join(ss, ", ")
}
