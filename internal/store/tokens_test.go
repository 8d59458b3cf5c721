package store

import (
	"context"
	"math"
	"path/filepath"
	"testing"

	"agent/internal/event"
)

// The runs row's token sums saturate instead of wrapping to a negative count.
func TestRunTokensSaturate(t *testing.T) {
	ctx := context.Background()
	st, err := Open(ctx, filepath.Join(t.TempDir(), "state"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	id := "20260101T000000-aaaaaa"
	if err := st.CreateRun(ctx, Run{ID: id, Workspace: "/tmp/ws", Model: "m", Approval: "ask", Prompt: "p"}); err != nil {
		t.Fatal(err)
	}
	for _, d := range []event.Payload{
		&event.RunStartedData{Workspace: "/tmp/ws", Model: "m", Approval: "ask"},
		&event.AssistantMessageData{Step: 1, Text: "a", Tokens: &event.TokenCount{Input: math.MaxInt - 10, Output: 1}},
		&event.AssistantMessageData{Step: 2, Text: "b", Tokens: &event.TokenCount{Input: math.MaxInt - 10, Output: 1}},
	} {
		e := event.New(id, d)
		if err := st.Append(ctx, &e); err != nil {
			t.Fatal(err)
		}
	}
	// One append of two events: the delta itself saturates.
	a := event.New(id, &event.AssistantMessageData{Step: 3, Tokens: &event.TokenCount{Input: math.MaxInt}})
	b := event.New(id, &event.AssistantMessageData{Step: 4, Tokens: &event.TokenCount{Input: math.MaxInt}})
	if err := st.Append(ctx, &a, &b); err != nil {
		t.Fatal(err)
	}
	r, err := st.GetRun(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	if r.TokensIn != math.MaxInt || r.TokensOut != 2 {
		t.Fatalf("tokens in %d, out %d: want in saturated at %d, out 2", r.TokensIn, r.TokensOut, math.MaxInt)
	}
}
