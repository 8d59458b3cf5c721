package otlp_test

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
	"time"

	"agent/internal/event"
	"agent/internal/otlp"
)

// journal numbers payloads as the store would: gapless seq, a second apart.
func journal(runID string, payloads ...event.Payload) []event.Event {
	t0 := time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)
	evs := make([]event.Event, len(payloads))
	for i, p := range payloads {
		evs[i] = event.Event{Type: p.EventType(), RunID: runID, Seq: int64(i + 1), Time: t0.Add(time.Duration(i) * time.Second), Data: p}
	}
	return evs
}

const prompt = "fix the greeting, my password is hunter2-prompt"

func oneRun() []event.Event {
	exit1 := 1
	return journal("run-a",
		&event.RunStartedData{Workspace: "/w", Model: "gpt-x", Approval: "auto-edit"},
		&event.UserMessageData{Text: prompt},
		&event.ModelRequestData{Step: 1, Context: event.ContextReport{Budget: 1000, TotalTokens: 300}},
		&event.AssistantMessageData{Step: 1, Text: "I will edit main.go", ToolCalls: []event.ToolCallRef{
			{ID: "c1", Name: "edit_file", Arguments: `{"path":"main.go","old_string":"Hello","new_string":"Hello, world"}`},
			{ID: "c2", Name: "run_command", Arguments: `{"command":"go test ./..."}`}}, Tokens: &event.TokenCount{Input: 120, Output: 30}},
		&event.ToolCallData{CallID: "c1", Name: "edit_file", Arguments: `{"path":"main.go","old_string":"Hello","new_string":"Hello, world"}`, Risk: event.RiskWrite},
		&event.ApprovalData{CallID: "c1", Decision: event.Allow, Scope: event.ScopeOnce, Source: event.SourceMode},
		&event.CheckpointData{CheckpointID: "cp1", CallID: "c1", Kind: event.CheckpointBefore, Files: []string{"main.go"}},
		&event.CheckpointData{CheckpointID: "cp2", CallID: "c1", Kind: event.CheckpointAfter, Files: []string{"main.go"}},
		&event.ToolResultData{CallID: "c1", Status: event.ResultOK, Output: "edited main.go: the file body"},
		&event.CheckpointData{CheckpointID: "cp9", CallID: "c1", Kind: event.CheckpointAfter, Files: []string{"late.go"}},
		&event.ToolCallData{CallID: "c2", Name: "run_command", Arguments: `{"command":"go test ./..."}`, Risk: event.RiskExec},
		&event.ApprovalData{CallID: "c2", Decision: event.Allow, Scope: event.ScopeRun, Source: event.SourceUser, Rule: "run_command(go test *)"},
		&event.CommandStartedData{CallID: "c2", PID: 4242},
		&event.ToolResultData{CallID: "c2", Status: event.ResultError, Output: "FAIL output text", ExitCode: &exit1},
		&event.ModelRequestData{Step: 2},
		&event.AssistantMessageData{Step: 2, Text: "done: the final answer", Tokens: &event.TokenCount{Input: 200, Output: 5}},
		&event.RollbackData{CheckpointID: "cp1", Files: []string{"main.go"}, Before: "cp3"},
		&event.RunFinishedData{Status: event.StatusCompleted, Steps: 2, ToolCalls: 2, Tokens: event.TokenCount{Input: 320, Output: 35}, Answer: "done: the final answer"},
	)
}

func byName(spans []otlp.Span) map[string][]otlp.Span {
	m := map[string][]otlp.Span{}
	for _, s := range spans {
		m[s.Name] = append(m[s.Name], s)
	}
	return m
}

func uniqueIDs(t *testing.T, spans []otlp.Span) {
	t.Helper()
	seen := map[otlp.SpanID]string{}
	for _, s := range spans {
		if other, ok := seen[s.ID]; ok {
			t.Errorf("%s and %s have the same span id %x", other, s.Name, s.ID)
		}
		seen[s.ID] = s.Name
	}
}

func attr(s otlp.Span, k string) string {
	v, ok := s.Attr(k)
	if !ok {
		return "<none>"
	}
	return v.Str()
}

func eventNames(s otlp.Span) string {
	var n []string
	for _, e := range s.Events {
		n = append(n, e.Name)
	}
	return strings.Join(n, ",")
}

func TestTraceOfARun(t *testing.T) {
	spans := otlp.Trace(otlp.TraceOptions{RunID: "run-a"}, oneRun())
	if len(spans) != 5 {
		t.Fatalf("%d spans: %v", len(spans), byName(spans))
	}
	uniqueIDs(t, spans)
	m := byName(spans)
	root := m["invoke_agent agent"]
	chats := m["chat gpt-x"]
	edit, cmd := m["execute_tool edit_file"], m["execute_tool run_command"]
	if len(root) != 1 || len(chats) != 2 || len(edit) != 1 || len(cmd) != 1 {
		t.Fatalf("span names: %v", m)
	}
	r := root[0]
	if r.Parent != (otlp.SpanID{}) || r.Trace != otlp.TraceIDOf("run-a") {
		t.Errorf("root parent %x trace %x", r.Parent, r.Trace)
	}
	for _, s := range spans {
		if s.Trace != r.Trace {
			t.Errorf("%s: another trace", s.Name)
		}
		if s.ID != r.ID && s.Parent != r.ID {
			t.Errorf("%s: parent %x, want the run's span %x", s.Name, s.Parent, r.ID)
		}
		if s.End.Before(s.Start) {
			t.Errorf("%s ends before it starts", s.Name)
		}
	}
	for k, want := range map[string]string{"gen_ai.operation.name": "invoke_agent", "gen_ai.request.model": "gpt-x",
		"gen_ai.provider.name": "openai", "gen_ai.conversation.id": "run-a", "agent.run.status": "completed",
		"agent.approval": "auto-edit"} {
		if got := attr(r, k); got != want {
			t.Errorf("root %s = %q, want %q", k, got, want)
		}
	}
	c := chats[0]
	if c.Kind != otlp.KindClient || attr(c, "gen_ai.operation.name") != "chat" || attr(c, "gen_ai.request.model") != "gpt-x" ||
		!c.Start.Equal(oneRun()[2].Time) || !c.End.Equal(oneRun()[3].Time) {
		t.Errorf("chat span %+v", c)
	}
	for k, want := range map[string]int64{"gen_ai.usage.input_tokens": 120, "gen_ai.usage.output_tokens": 30, "agent.step": 1} {
		if v, _ := c.Attr(k); fmt.Sprint(v) != fmt.Sprint(otlp.Int(k, want).Value) {
			t.Errorf("chat %s = %v, want %d", k, v, want)
		}
	}
	e := edit[0]
	if attr(e, "gen_ai.tool.name") != "edit_file" || attr(e, "gen_ai.tool.call.id") != "c1" || attr(e, "agent.tool.status") != "ok" ||
		attr(e, "agent.tool.risk") != "write" || eventNames(e) != "approval,checkpoint,checkpoint" || e.Status != otlp.StatusUnset {
		t.Errorf("edit span %+v", e)
	}
	x := cmd[0]
	if x.Status != otlp.StatusError || eventNames(x) != "approval,command_started" || attr(x, "error.type") != "tool_error" {
		t.Errorf("command span %+v", x)
	}
	// a checkpoint of a call that has its result is an event of the run
	if eventNames(r) != "checkpoint,rollback" {
		t.Errorf("root events %s", eventNames(r))
	}
	// metadata only: no prompt, answer, arguments or output anywhere
	body := otlp.Encode(otlp.Resource{}, otlp.Scope{Name: "s"}, spans, nil)
	for _, text := range []string{"hunter2", "final answer", "I will edit", "Hello, world", "go test ./...", "file body", "FAIL output"} {
		if bytes.Contains(body, []byte(text)) {
			t.Errorf("content off, but %q is in the trace", text)
		}
	}
	for _, k := range []string{"gen_ai.input.messages", "gen_ai.output.messages", "gen_ai.tool.call.arguments", "gen_ai.tool.call.result"} {
		for _, s := range spans {
			if _, ok := s.Attr(k); ok {
				t.Errorf("content off, but %s has %s", s.Name, k)
			}
		}
	}
}

func TestTraceWithContent(t *testing.T) {
	spans := otlp.Trace(otlp.TraceOptions{RunID: "run-a", Content: true}, oneRun())
	m := byName(spans)
	c := m["chat gpt-x"][0]
	if got := attr(c, "gen_ai.input.messages"); got != `[{"role":"user","parts":[{"type":"text","content":"`+prompt+`"}]}]` {
		t.Errorf("input messages %s", got)
	}
	if got := attr(c, "gen_ai.output.messages"); !strings.Contains(got, `"content":"I will edit main.go"`) ||
		!strings.Contains(got, `{"type":"tool_call","id":"c2","name":"run_command","arguments":{"command":"go test ./..."}}`) {
		t.Errorf("output messages %s", got)
	}
	if _, ok := m["chat gpt-x"][1].Attr("gen_ai.input.messages"); ok {
		t.Error("the second request repeats the prompt")
	}
	x := m["execute_tool run_command"][0]
	if attr(x, "gen_ai.tool.call.arguments") != `{"command":"go test ./..."}` || attr(x, "gen_ai.tool.call.result") != "FAIL output text" {
		t.Errorf("tool content %+v", x.Attrs)
	}
	red := func(s string) string { return strings.ReplaceAll(s, "hunter2", "[REDACTED:password:1]") }
	if body := otlp.Encode(otlp.Resource{}, otlp.Scope{}, spans, red); bytes.Contains(body, []byte("hunter2")) {
		t.Error("content is not redacted on the wire")
	}
}

// A run paused for approval and resumed: the resumed stretch is a child of
// the run's span, and the call whose result comes in it gets its span there.
func TestTraceResume(t *testing.T) {
	evs := journal("run-r",
		&event.RunStartedData{Model: "gpt-x", Approval: "ask"},
		&event.UserMessageData{Text: "go"},
		&event.ModelRequestData{Step: 1},
		&event.AssistantMessageData{Step: 1, ToolCalls: []event.ToolCallRef{{ID: "c1", Name: "run_command", Arguments: `{}`}, {ID: "c2", Name: "read_file"}}},
		&event.ToolCallData{CallID: "c1", Name: "run_command", Arguments: `{}`, Risk: event.RiskExec},
		&event.RunFinishedData{Status: event.StatusAwaitingApproval, Steps: 1},
		&event.ResumeData{FromSeq: 6, Interrupted: []event.InterruptedCall{{CallID: "c1", Name: "run_command", Action: event.ActionAwaitingApproval},
			{CallID: "c2", Name: "read_file", Action: event.ActionRerun}}},
		&event.ApprovalData{CallID: "c1", Decision: event.Allow, Scope: event.ScopeOnce, Source: event.SourceUser},
		&event.ToolResultData{CallID: "c1", Status: event.ResultOK, Output: "ok"},
		&event.ToolResultData{CallID: "c2", Status: event.ResultOK, Output: "text"},
		&event.ModelRequestData{Step: 2},
		&event.AssistantMessageData{Step: 2, Text: "done"},
		&event.RunFinishedData{Status: event.StatusCompleted, Steps: 2},
	)
	spans := otlp.Trace(otlp.TraceOptions{RunID: "run-r"}, evs)
	m := byName(spans)
	roots, tools := m["invoke_agent agent"], m["execute_tool run_command"]
	uniqueIDs(t, spans)
	if len(roots) != 2 || len(tools) != 2 || len(m["chat gpt-x"]) != 2 || len(m["execute_tool read_file"]) != 1 {
		t.Fatalf("spans %v", m)
	}
	first, second := roots[0], roots[1]
	if first.Parent != (otlp.SpanID{}) || second.Parent != first.ID || attr(first, "agent.run.status") != "awaiting_approval" ||
		attr(second, "agent.run.status") != "completed" || attr(second, "gen_ai.request.model") != "gpt-x" || eventNames(second) != "resume" {
		t.Errorf("stretches: %+v\n%+v", first, second)
	}
	if tools[0].Parent != first.ID || attr(tools[0], "agent.tool.status") != "no_result_awaiting_approval" ||
		tools[1].Parent != second.ID || attr(tools[1], "agent.tool.status") != "ok" || eventNames(tools[1]) != "approval" {
		t.Errorf("tool spans: %+v\n%+v", tools[0], tools[1])
	}

	// live, in two processes, the spans are the same: one builder per
	// process, the second seeing only the resumed stretch
	var live []otlp.Span
	b := otlp.NewBuilder(otlp.TraceOptions{RunID: "run-r"})
	for _, ev := range evs[:6] {
		live = append(live, b.Add(ev)...)
	}
	b = otlp.NewBuilder(otlp.TraceOptions{RunID: "run-r", Model: "gpt-x"})
	for _, ev := range evs[6:] {
		live = append(live, b.Add(ev)...)
	}
	if len(live) != len(spans) {
		t.Fatalf("live: %d spans, whole journal: %d", len(live), len(spans))
	}
	for i := range live {
		if live[i].ID != spans[i].ID || live[i].Parent != spans[i].Parent || live[i].Name != spans[i].Name {
			t.Errorf("span %d: live %s %x<-%x, journal %s %x<-%x", i, live[i].Name, live[i].ID, live[i].Parent, spans[i].Name, spans[i].ID, spans[i].Parent)
		}
	}
}

func TestTraceModelErrorAndCutJournal(t *testing.T) {
	evs := journal("run-e",
		&event.RunStartedData{Model: "m"},
		&event.ModelRequestData{Step: 1},
		&event.ErrorData{Class: event.ClassModel, Message: "the model endpoint answered 500"},
		&event.RunFinishedData{Status: event.StatusFailed, Steps: 1, Failure: &event.FailureInfo{Class: event.ClassModel}},
	)
	m := byName(otlp.Trace(otlp.TraceOptions{RunID: "run-e"}, evs))
	c, r := m["chat m"][0], m["invoke_agent agent"][0]
	if c.Status != otlp.StatusError || c.Message != "the model endpoint answered 500" || attr(c, "error.type") != "model" || eventNames(c) != "exception" {
		t.Errorf("chat %+v", c)
	}
	if r.Status != otlp.StatusError || attr(r, "agent.run.status") != "failed" {
		t.Errorf("root %+v", r)
	}

	// a journal cut short (a crash): what is open ends at its last event
	cut := journal("run-c",
		&event.RunStartedData{Model: "m"},
		&event.ModelRequestData{Step: 1},
		&event.AssistantMessageData{Step: 1, ToolCalls: []event.ToolCallRef{{ID: "c1", Name: "read_file"}}},
		&event.ToolCallData{CallID: "c1", Name: "read_file", Risk: event.RiskRead},
	)
	spans := otlp.Trace(otlp.TraceOptions{RunID: "run-c"}, cut)
	m = byName(spans)
	if len(spans) != 3 || attr(m["invoke_agent agent"][0], "agent.run.status") != "unfinished" ||
		attr(m["execute_tool read_file"][0], "agent.tool.status") != "no_result_unfinished" ||
		!m["invoke_agent agent"][0].End.Equal(cut[3].Time) {
		t.Errorf("cut journal: %v", m)
	}
}
