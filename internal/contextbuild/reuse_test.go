package contextbuild

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
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
		sameHistory(t, b.hist.h, analyze(st, nil))
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
		sameAsAfresh(t, b, st, out, fmt.Sprintf("event %d", i))
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

// sameHistory fails unless got (a history extended build after build) is
// the history read afresh from the state.
func sameHistory(t *testing.T, got, want *history) {
	t.Helper()
	if got.st != want.st || got.current != want.current || !reflect.DeepEqual(got.units, want.units) ||
		!reflect.DeepEqual(got.calls, want.calls) || !reflect.DeepEqual(got.order, want.order) || !reflect.DeepEqual(got.edits, want.edits) {
		t.Fatalf("the extended history differs from the state's:\n got %+v\nwant %+v", *got, *want)
	}
}

// TestHistoryExtendedOnlyWhenTheStateGrew: the builder extends its previous
// history by the new messages, and reads the state afresh when anything it
// read changed: a rewind (messages dropped, others in their places), a new
// message of the person (the current one is no longer a unit), a message
// changed in place.
func TestHistoryExtendedOnlyWhenTheStateGrew(t *testing.T) {
	b := MustNew(t.TempDir(), "gpt-4.1", 64_000, tools.Default())
	ctx := context.Background()
	st := agent.NewState("r", "", "gpt-4.1", "full-auto")
	add := func(p event.Payload) {
		e := event.New(st.RunID, p)
		e.Seq = st.LastSeq + 1
		st.Apply(e)
	}
	n := 0
	round := func(name, args, out string, risk event.Risk) {
		n++
		id := fmt.Sprintf("c%d", n)
		add(&event.ModelRequestData{Step: n})
		add(&event.AssistantMessageData{Step: n, ToolCalls: []event.ToolCallRef{{ID: id, Name: name, Arguments: args}}})
		add(&event.ToolCallData{CallID: id, Name: name, Arguments: args, Risk: risk})
		add(&event.ToolResultData{CallID: id, Status: event.ResultOK, Output: out})
	}
	build := func(what string) {
		t.Helper()
		out, err := b.Build(ctx, st, agent.BuildOptions{Decide: true})
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range out.Events {
			add(p)
		}
		if len(out.Events) > 0 {
			if out, err = b.Build(ctx, st, agent.BuildOptions{}); err != nil {
				t.Fatal(err)
			}
		}
		t.Run(what, func(t *testing.T) {
			sameHistory(t, b.hist.h, analyze(st, nil))
			sameAsAfresh(t, b, st, out, what)
		})
	}
	add(&event.RunStartedData{Workspace: "/w", Model: "gpt-4.1", Approval: "full-auto"})
	add(&event.UserMessageData{Text: "go"})
	round("read_file", `{"path":"a.go"}`, "package a", event.RiskRead)
	build("first")
	round("write_file", `{"path":"a.go","content":"x"}`, "ok", event.RiskWrite)
	build("grown")
	mark := st.LastSeq
	round("read_file", `{"path":"b.go"}`, "package b", event.RiskRead)
	round("read_file", `{"path":"c.go"}`, "package c", event.RiskRead)
	build("grown by two rounds")
	st.RewindTo(mark)
	round("edit_file", `{"path":"b.go","old_string":"b","new_string":"B"}`, "ok", event.RiskWrite)
	round("read_file", `{"path":"d.go"}`, "package d", event.RiskRead)
	round("read_file", `{"path":"e.go"}`, "package e", event.RiskRead)
	build("other rounds where the dropped ones were")
	st.RewindTo(mark)
	build("rewound")
	add(&event.UserMessageData{Text: "and now?"})
	build("a new message of the person")
	round("read_file", `{"path":"f.go"}`, "package f", event.RiskRead)
	build("a round after it")
	st.Messages[len(st.Messages)-2].ToolCalls[0].Arguments = `{"path":"g.go"}`
	build("a call changed in place")
	add(&event.ModelRequestData{Step: 90})
	add(&event.AssistantMessageData{Step: 90, ToolCalls: []event.ToolCallRef{{ID: "p1", Name: "read_file", Arguments: `{"path":"p.go"}`}, {ID: "p2", Name: "read_file", Arguments: `{"path":"q.go"}`}}})
	add(&event.ToolResultData{CallID: "p1", Status: event.ResultOK, Output: "package p"})
	build("a round with one of its two results")
	add(&event.ToolResultData{CallID: "p2", Status: event.ResultOK, Output: "package q"})
	build("the other result joins the round")
}

// sameAsAfresh fails unless out (what Build made with what it kept from
// earlier builds) is the request and report a new builder like b renders
// from st: a new history, a new measure, no unit, count or hash kept.
func sameAsAfresh(t *testing.T, b *Builder, st *agent.State, out *agent.Built, what string) {
	t.Helper()
	fb := MustNew(b.opt.Workspace, b.opt.Model, b.opt.Window, tools.Default())
	fresh, err := fb.Build(context.Background(), st, agent.BuildOptions{})
	if err != nil {
		t.Fatal(err)
	}
	req, rep := fresh.Request, fresh.Report
	if a, b := mustJSON(t, out.Request), mustJSON(t, req); a != b {
		t.Fatalf("%s: the request differs from one rendered afresh:\n%s\n%s", what, a, b)
	}
	if a, b := mustJSON(t, out.Report), mustJSON(t, rep); a != b {
		t.Fatalf("%s: the report differs from one rendered afresh:\n%s\n%s", what, a, b)
	}
}

// TestReusedCallIDs: local models number their calls afresh each turn
// (call_0 every time); a later call with an earlier one's id changes what
// the earlier round shows, so the units rendered by earlier builds are not
// reused: every request is the one rendered afresh, with and without
// compactions.
func TestReusedCallIDs(t *testing.T) {
	for _, window := range []int{4096, 64_000} {
		t.Run(fmt.Sprint(window), func(t *testing.T) { reusedCallIDs(t, window) })
	}
}

func reusedCallIDs(t *testing.T, window int) {
	b := MustNew(t.TempDir(), "gpt-4.1", window, tools.Default())
	ctx := context.Background()
	st := agent.NewState("r", "", "gpt-4.1", "full-auto")
	add := func(p event.Payload) {
		e := event.New(st.RunID, p)
		e.Seq = st.LastSeq + 1
		st.Apply(e)
	}
	add(&event.RunStartedData{Workspace: "/w", Model: "gpt-4.1", Approval: "full-auto"})
	add(&event.UserMessageData{Text: "go"})
	for step := 1; step <= 40; step++ {
		out, err := b.Build(ctx, st, agent.BuildOptions{Decide: true})
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range out.Events {
			add(p)
		}
		if len(out.Events) > 0 {
			if out, err = b.Build(ctx, st, agent.BuildOptions{}); err != nil {
				t.Fatal(err)
			}
		}
		sameAsAfresh(t, b, st, out, fmt.Sprintf("step %d", step))
		path := fmt.Sprintf("f%d.go", step%5)
		args := fmt.Sprintf(`{"path":%q}`, path)
		add(&event.ModelRequestData{Step: step})
		add(&event.AssistantMessageData{Step: step, ToolCalls: []event.ToolCallRef{{ID: "call_0", Name: "read_file", Arguments: args}}})
		add(&event.ToolCallData{CallID: "call_0", Name: "read_file", Arguments: args, Risk: event.RiskRead})
		if step%7 != 0 { // now and then a call without a result
			add(&event.ToolResultData{CallID: "call_0", Status: event.ResultOK, Output: strings.Repeat(path+" line\n", 60)})
		}
	}
	if !b.hist.h.dupIDs {
		t.Fatal("the history did not see the reused ids")
	}
}

// filesByMaps is history.files as it was written before (a map per fact
// and a seen set), the reference for the one-lookup version.
func filesByMaps(h *history, through int64) fileFacts {
	st := h.st
	ff := fileFacts{read: map[string]int{}, edited: map[string][]int{}, created: map[string]int{}}
	seen := map[string]bool{}
	for _, id := range h.order {
		ci := h.calls[id]
		if ci.result < 0 || ci.path == "" {
			continue
		}
		meta := st.Meta[ci.result]
		if meta.Seq > through || meta.Status != event.ResultOK {
			continue
		}
		switch {
		case ci.name == "read_file":
			ff.read[ci.path]++
		case meta.Risk == event.RiskWrite:
			if ci.name == "write_file" && !seen[ci.path] {
				ff.created[ci.path] = ci.step
			} else {
				ff.edited[ci.path] = append(ff.edited[ci.path], ci.step)
			}
		}
		seen[ci.path] = true
	}
	return ff
}

// TestFilesFacts: the file facts at every seq of a generated history (reads,
// writes, edits, failures, paths written again) are those of the map
// version.
func TestFilesFacts(t *testing.T) {
	h, err := histgen.Generate(histgen.Options{Seed: 3, Tokens: 40_000})
	if err != nil {
		t.Fatal(err)
	}
	st := agent.Fold(h.RunID, h.Events)
	hist := analyze(st, nil)
	created, edited := 0, 0
	for through := int64(0); through <= st.LastSeq+1; through++ {
		got, want := hist.files(through), filesByMaps(hist, through)
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("through %d: files\n got %+v\nwant %+v", through, got, want)
		}
		created, edited = len(want.created), len(want.edited)
	}
	if created == 0 || edited == 0 {
		t.Fatalf("the history creates %d files and edits %d: it does not exercise the facts", created, edited)
	}
}
