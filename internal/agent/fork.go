package agent

import (
	"context"

	"agent/internal/event"
)

// Fork is the first state of a forked run: its lineage and the
// conversation of its parent at the checkpoint it was forked from.
type Fork struct {
	ParentRun        string
	ParentCheckpoint string
	Worktree         *event.WorktreeInfo // the fork's own git worktree; nil: it runs in the parent's workspace
	// Seed rebuilds the conversation (ConversationAt); it is journaled as
	// the fork's own events, so the fork needs nothing of its parent's
	// journal afterwards.
	Seed []event.Payload
}

// StartFork journals the start of a forked run: run_started naming its
// parent run and checkpoint, then the conversation of the checkpoint. It
// sends nothing to the model; AddUserMessage and Run continue it.
func (r *Runner) StartFork(ctx context.Context, st *State, f Fork) error {
	if err := r.record(ctx, st, &event.RunStartedData{
		Workspace: st.Workspace, Model: st.Model, Approval: st.Approval, Provider: r.ProviderName, MaxSteps: r.maxSteps(), Allow: st.Allow, Deny: st.Deny,
		Sandbox: r.ToolEnv.RunSandbox(), Budget: st.Spend.Limits.Event(),
		ParentRun: f.ParentRun, ParentCheckpoint: f.ParentCheckpoint, Worktree: f.Worktree,
	}); err != nil {
		return err
	}
	for _, p := range f.Seed {
		if err := r.record(ctx, st, p); err != nil {
			return err
		}
	}
	return r.flush(ctx, st, true)
}

// RecordCheckpoint journals a checkpoint taken outside a call (a fork into
// the same workspace checkpoints its present state first, so the fork can be
// undone like a rollback).
func (r *Runner) RecordCheckpoint(ctx context.Context, st *State, cp *event.CheckpointData) error {
	if err := r.record(ctx, st, cp); err != nil {
		return err
	}
	return r.flush(ctx, st, true)
}

// ForkNotRun is the result a fork gives a call of its checkpoint's turn that
// had not run at the checkpoint, when others of the turn had.
const ForkNotRun = "[agent] This call did not run: the run was forked from a checkpoint taken before it. Ask for it again if it is still needed."

// ConversationAt returns the events that rebuild, in a new run, the
// conversation a run's journal holds up to seq upto (inclusive): the
// messages the fold keeps there (rewinds applied), as user_message,
// assistant_message, tool_call and tool_result events. A turn whose calls
// had not run at upto is dropped, so the model is asked again; a turn of
// which some calls had run keeps them, and the others get a ForkNotRun
// error. Usage, checkpoints, approvals and the context's compactions are
// not carried over: the fork's spending is its own, and its context builder
// compacts again if it must.
func ConversationAt(evs []event.Event, upto int64) []event.Payload {
	st := &State{}
	for _, ev := range evs {
		if ev.Seq > upto {
			break
		}
		st.Apply(ev)
	}
	msgs, meta := st.Messages, st.Meta
	var missing []ToolCall
	if n := len(msgs); n > 0 && len(st.Open) > 0 {
		// the newest assistant message has calls without results
		last := n - 1
		for last >= 0 && msgs[last].Role != RoleAssistant {
			last--
		}
		if last == n-1 {
			msgs, meta = msgs[:last], meta[:last]
		} else {
			for _, oc := range st.Open {
				missing = append(missing, oc.Call)
			}
		}
	}
	args := map[string]string{} // call id → its arguments
	var out []event.Payload
	for i, m := range msgs {
		switch meta[i].Kind {
		case KindPerson, KindNote:
			out = append(out, &event.UserMessageData{Text: m.Content})
		case KindAssistant:
			refs := make([]event.ToolCallRef, len(m.ToolCalls))
			for j, c := range m.ToolCalls {
				refs[j] = event.ToolCallRef{ID: c.ID, Name: c.Name, Arguments: c.Arguments}
				args[c.ID] = c.Arguments
			}
			out = append(out, &event.AssistantMessageData{Step: meta[i].Step, Text: m.Content, ToolCalls: refs})
		case KindTool:
			out = append(out,
				&event.ToolCallData{CallID: m.ToolCallID, Name: m.Name, Arguments: args[m.ToolCallID], Risk: meta[i].Risk},
				&event.ToolResultData{CallID: m.ToolCallID, Status: meta[i].Status, Output: m.Content, ExitCode: meta[i].ExitCode})
		}
	}
	for _, c := range missing {
		out = append(out,
			&event.ToolCallData{CallID: c.ID, Name: c.Name, Arguments: c.Arguments},
			&event.ToolResultData{CallID: c.ID, Status: event.ResultError, Output: ForkNotRun})
	}
	return out
}
