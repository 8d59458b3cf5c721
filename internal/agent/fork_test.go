package agent

import (
	"testing"

	"agent/internal/event"
)

// foldSeed folds what ConversationAt returns as a fork's journal would.
func foldSeed(seed []event.Payload) *State {
	return Fold("f", evs(append([]event.Payload{&event.RunStartedData{Workspace: "/f", ParentRun: "r", ParentCheckpoint: "cp"}}, seed...)...))
}

// A fork at the before-checkpoint of a turn's only call: the turn is
// dropped (the model is asked again), the earlier turns are kept whole,
// with their calls' risk, and nothing of the parent's usage comes along.
func TestConversationAtDropsTheUnrunTurn(t *testing.T) {
	j := evs(
		&event.RunStartedData{Workspace: "/w"},
		&event.UserMessageData{Text: "go"},
		&event.AssistantMessageData{Step: 1, ToolCalls: []event.ToolCallRef{{ID: "a", Name: "edit_file", Arguments: `{"path":"a"}`}}, Tokens: &event.TokenCount{Input: 100, Output: 10}},
		&event.ToolCallData{CallID: "a", Name: "edit_file", Risk: event.RiskWrite},
		&event.CheckpointData{CheckpointID: "cp1", CallID: "a", Kind: "before"},
		&event.ToolResultData{CallID: "a", Status: "ok", Output: "edited a"},
		&event.AssistantMessageData{Step: 2, ToolCalls: []event.ToolCallRef{{ID: "b", Name: "edit_file", Arguments: `{"path":"b"}`}}},
		&event.ToolCallData{CallID: "b", Name: "edit_file", Risk: event.RiskWrite},
		&event.CheckpointData{CheckpointID: "cp2", CallID: "b", Kind: "before"}, // seq 9
		&event.ToolResultData{CallID: "b", Status: "ok", Output: "edited b"},
	)
	st := foldSeed(ConversationAt(j, 9))
	if len(st.Messages) != 3 || st.Messages[1].ToolCalls[0].ID != "a" || st.Messages[2].Content != "edited a" {
		t.Fatalf("messages = %+v", st.Messages)
	}
	if len(st.Open) != 0 || st.Meta[2].Risk != event.RiskWrite || st.Tokens.Input != 0 || st.Context.Edits != 1 {
		t.Fatalf("open %v, risk %q, tokens %+v, edits %d", st.Open, st.Meta[2].Risk, st.Tokens, st.Context.Edits)
	}
	if len(foldSeed(ConversationAt(j, 10)).Messages) != 5 {
		t.Fatal("a fork after b's result lacks it")
	}
}

// A fork between two calls of one turn keeps the call that ran and tells
// the model the other did not; a rewind before the checkpoint is applied.
func TestConversationAtHalfTurnAndRewind(t *testing.T) {
	j := evs(
		&event.RunStartedData{Workspace: "/w"},
		&event.UserMessageData{Text: "first try"},
		&event.AssistantMessageData{Step: 1, Text: "gone"},
		&event.RollbackData{CheckpointID: "cp0", Conversation: true, ToSeq: 2},
		&event.UserMessageData{Text: "second try"},
		&event.AssistantMessageData{Step: 2, ToolCalls: []event.ToolCallRef{{ID: "a", Name: "read_file"}, {ID: "b", Name: "write_file"}}},
		&event.ToolCallData{CallID: "a", Name: "read_file", Risk: event.RiskRead},
		&event.ToolResultData{CallID: "a", Status: "ok", Output: "content"},
		&event.ToolCallData{CallID: "b", Name: "write_file", Risk: event.RiskWrite},
		&event.CheckpointData{CheckpointID: "cp1", CallID: "b", Kind: "before"}, // seq 10
	)
	st := foldSeed(ConversationAt(j, 10))
	var texts []string
	for _, m := range st.Messages {
		texts = append(texts, string(m.Role)+":"+m.Content)
	}
	if len(st.Messages) != 6 || st.Messages[0].Content != "first try" || st.Messages[2].Content != "second try" {
		t.Fatalf("messages = %q", texts)
	}
	if st.Messages[1].Role != RoleUser { // the rollback's note, kept as words to the model
		t.Fatalf("the rewound answer was kept: %q", texts)
	}
	last := st.Messages[5]
	if last.ToolCallID != "b" || last.Content != ForkNotRun || st.Meta[5].Status != event.ResultError || len(st.Open) != 0 {
		t.Fatalf("the unrun call b: %+v (open %v)", last, st.Open)
	}
}
