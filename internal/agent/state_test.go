package agent

import (
	"strings"
	"testing"

	"agent/internal/event"
)

func evs(data ...event.Payload) []event.Event {
	out := make([]event.Event, len(data))
	for i, d := range data {
		out[i] = event.New("r", d)
		out[i].Seq = int64(i + 1)
	}
	return out
}

// Folding a journal gives the conversation and the calls still open, with
// what is known about each: journaled, approved, started.
func TestFoldOpenCalls(t *testing.T) {
	st := Fold("r", evs(
		&event.RunStartedData{Workspace: "/w", Model: "m", Approval: "ask", Deny: []string{"run_command(rm *)"}},
		&event.UserMessageData{Text: "go"},
		&event.AssistantMessageData{Step: 1, ToolCalls: []event.ToolCallRef{{ID: "a", Name: "read_file"}, {ID: "b", Name: "run_command"}, {ID: "c", Name: "write_file"}}},
		&event.ToolCallData{CallID: "a", Name: "read_file", Risk: event.RiskRead},
		&event.ToolResultData{CallID: "a", Status: "ok", Output: "x"},
		&event.ToolCallData{CallID: "b", Name: "run_command", Risk: event.RiskExec},
		&event.ApprovalData{CallID: "b", Decision: "allow", Scope: "once", Source: "mode"},
		&event.CheckpointData{CheckpointID: "cp1", CallID: "b", Kind: "before"},
	))
	if len(st.Messages) != 3 || st.Messages[2].Role != RoleTool || st.Messages[2].Name != "read_file" {
		t.Fatalf("messages = %+v", st.Messages)
	}
	if len(st.Open) != 2 || st.Open[0].Call.ID != "b" || st.Open[1].Call.ID != "c" {
		t.Fatalf("open = %+v", st.Open)
	}
	b, c := st.Open[0], st.Open[1]
	if !b.Journaled || b.Risk != event.RiskExec || b.Approval == nil || b.Approval.Decision != "allow" || b.BeforeCP != "cp1" {
		t.Errorf("b = %+v", b)
	}
	if c.Journaled || c.Approval != nil {
		t.Errorf("c = %+v", c)
	}
	if st.Deny[0] != "run_command(rm *)" || st.LastSeq != 8 {
		t.Errorf("rules %v, last seq %d", st.Deny, st.LastSeq)
	}
}

// A rollback with the conversation rewinds to the checkpoint's position,
// never leaving half a turn, and tells the model what happened.
func TestRollbackRewindsConversation(t *testing.T) {
	st := Fold("r", evs(
		&event.RunStartedData{Workspace: "/w"},
		&event.UserMessageData{Text: "go"},
		&event.AssistantMessageData{Step: 1, Text: "t1", ToolCalls: []event.ToolCallRef{{ID: "a", Name: "edit_file"}}},
		&event.ToolCallData{CallID: "a", Name: "edit_file", Risk: event.RiskWrite},
		&event.CheckpointData{CheckpointID: "cp1", CallID: "a", Kind: "before"},
		&event.ToolResultData{CallID: "a", Status: "ok"},
		&event.AssistantMessageData{Step: 2, Text: "done"},
		&event.RunFinishedData{Status: "completed", Answer: "done"},
		&event.RollbackData{CheckpointID: "cp1", Files: []string{"main.go"}, Conversation: true, ToSeq: 5},
	))
	if len(st.Messages) != 2 || st.Messages[0].Content != "go" || st.Messages[1].Role != RoleUser {
		t.Fatalf("messages after rewind = %+v", st.Messages)
	}
	if got := st.Messages[1].Content; !strings.Contains(got, "rolled the workspace files back") || !strings.Contains(got, "main.go") {
		t.Errorf("rollback note = %q", got)
	}
	if len(st.Open) != 0 {
		t.Errorf("open calls after rewind: %+v", st.Open)
	}
}

// Streamed tool-call fragments are assembled by index; missing and repeated
// ids are replaced so every call can be answered.
func TestCallAssembler(t *testing.T) {
	a := newCallAssembler(2)
	for _, se := range []StreamEvent{
		{Kind: EvToolCallStart, Index: 1, ID: "x", Name: "glob"},
		{Kind: EvToolCallStart, Index: 0, ID: "x", Name: "read_file"},
		{Kind: EvToolCallDelta, Index: 0, Text: `{"pa`},
		{Kind: EvToolCallDelta, Index: 1, Text: `{"pattern":"*"}`},
		{Kind: EvToolCallDelta, Index: 0, Text: `th":"a"}`},
		{Kind: EvToolCallDelta, Index: 2, Text: `{}`},
	} {
		a.add(se)
	}
	calls := a.calls()
	if len(calls) != 3 {
		t.Fatalf("calls = %+v", calls)
	}
	if calls[0].Name != "read_file" || calls[0].Arguments != `{"path":"a"}` || calls[0].ID != "x" {
		t.Errorf("call 0 = %+v", calls[0])
	}
	if calls[1].ID == "x" || calls[1].Arguments != `{"pattern":"*"}` {
		t.Errorf("call 1 = %+v (a repeated id must be replaced)", calls[1])
	}
	if calls[2].ID == "" || calls[2].Name != "" {
		t.Errorf("call 2 = %+v (no start: no name, but an id)", calls[2])
	}
}
