package agent

import (
	"context"

	"agent/internal/event"
)

// AfterCallHook sees a call's result before it is journaled and may add a
// note for the model (the person's after_tool_call hooks).
type AfterCallHook interface {
	AfterToolCall(ctx context.Context, c AfterCall) (note string)
}

// AfterCall is a call that ran and its result; Arguments and Output are
// redacted.
type AfterCall struct {
	RunID, CallID, Tool, Arguments string
	Status                         event.ResultStatus
	Output                         string
}

// afterCall returns output with the after-call hooks' note, if any, added
// for the model (the note is redacted with the result).
func (r *Runner) afterCall(ctx context.Context, st *State, c ToolCall, status event.ResultStatus, output string) string {
	if r.AfterCall == nil {
		return output
	}
	note := r.AfterCall.AfterToolCall(ctx, AfterCall{RunID: st.RunID, CallID: c.ID, Tool: c.Name, Arguments: c.Arguments,
		Status: status, Output: r.redact(output)})
	if note == "" {
		return output
	}
	return output + "\n\n[note from the user's after_tool_call hook] " + note
}
