package contextbuild

import (
	"context"
	"encoding/json"
	"testing"

	"agent/internal/agent"
	"agent/internal/contextbuild/histgen"
	"agent/internal/event"
	"agent/internal/tools"
)

// TestReusedMeasureRendersTheSameRequest: Build renders with the measure
// decide made and with the units that measure rendered; the request and the
// report must be those of a render that measures and renders every unit
// afresh. The history is replayed event by event through compactions
// (masked, superseded, cut and folded units), the builder's events
// journaled as the loop does.
func TestReusedMeasureRendersTheSameRequest(t *testing.T) {
	h, err := histgen.Generate(histgen.Options{Seed: 7, Tokens: 60_000})
	if err != nil {
		t.Fatal(err)
	}
	b := MustNew(t.TempDir(), "gpt-4.1", 12_000, tools.Default())
	ctx := context.Background()
	st := agent.NewState(h.RunID, "", "", "")
	compared, compacted := 0, 0
	for i, ev := range h.Events {
		st.Apply(ev)
		if ev.Type != event.ModelRequest && i != len(h.Events)-1 {
			continue
		}
		out, err := b.Build(ctx, st, agent.BuildOptions{Decide: true})
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range out.Events {
			if p.EventType() == event.Compaction {
				compacted++
			}
			e := event.New(st.RunID, p)
			e.Seq = st.LastSeq + 1
			st.Apply(e)
		}
		if len(out.Events) > 0 {
			continue // the loop builds again; so does the next model request
		}
		// afresh: a new measure whose units are never reused
		hh := analyze(st, nil)
		v := currentView(st)
		m := b.newMeasure(hh, v)
		for k := range m.units {
			m.units[k].items = nil
		}
		req, rep, err := b.render(hh, v, m)
		if err != nil {
			t.Fatal(err)
		}
		if a, b := mustJSON(t, out.Request), mustJSON(t, req); a != b {
			t.Fatalf("event %d: the request differs from one rendered afresh:\n%s\n%s", i, a, b)
		}
		if a, b := mustJSON(t, out.Report), mustJSON(t, rep); a != b {
			t.Fatalf("event %d: the report differs from one rendered afresh:\n%s\n%s", i, a, b)
		}
		compared++
	}
	t.Logf("compared %d requests, %d compactions", compared, compacted)
	if compared < 20 || compacted == 0 {
		t.Fatalf("compared %d requests through %d compactions: the history does not exercise the reuse", compared, compacted)
	}
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestStateMsgTokensFollowsTheMessage: the per-index count is the count of
// the message at that index now, whatever was counted there before: a
// message replaced (a rewind), a call's arguments changed in place, calls
// added.
func TestStateMsgTokensFollowsTheMessage(t *testing.T) {
	b := MustNew(t.TempDir(), "gpt-4.1", 32_000, tools.Default())
	if err := b.prepare(); err != nil {
		t.Fatal(err)
	}
	st := agent.NewState("r", "", "", "")
	st.Messages = []agent.Message{
		{Role: agent.RoleUser, Content: "hello there"},
		{Role: agent.RoleAssistant, ToolCalls: []agent.ToolCall{{ID: "c1", Name: "read_file", Arguments: `{"path":"a.go"}`}}},
	}
	check := func(what string) {
		t.Helper()
		for i, m := range st.Messages {
			if got, want := b.stateMsgTokens(st, i), b.msgTokens(m); got != want {
				t.Fatalf("%s: message %d counts %d, want %d", what, i, got, want)
			}
		}
	}
	check("first count")
	check("memoised")
	st.Messages[0] = agent.Message{Role: agent.RoleUser, Content: "a different and much longer message than before"}
	check("replaced")
	st.Messages[1].ToolCalls[0].Arguments = `{"path":"a/much/longer/path/than/before.go"}`
	check("arguments changed in place")
	st.Messages[1].ToolCalls = append(st.Messages[1].ToolCalls, agent.ToolCall{ID: "c2", Name: "grep", Arguments: `{"pattern":"x"}`})
	check("a call added")
	st.Messages = append(st.Messages, agent.Message{Role: agent.RoleTool, ToolCallID: "c1", Content: "package a"})
	check("a message added")
}
