package evals

import (
	"encoding/json"
	"slices"
	"testing"

	"agent/internal/event"
)

func TestLineDiff(t *testing.T) {
	cases := []struct {
		name, a, b string
		want       int
	}{
		{"same", "a\nb\n", "a\nb\n", 0},
		{"one line changed", "a\nb\nc\n", "a\nB\nc\n", 2},
		{"one added", "a\nc\n", "a\nb\nc\n", 1},
		{"one removed", "a\nb\nc\n", "a\nc\n", 1},
		{"new file", "", "a\nb\n", 2},
		{"deleted file", "a\nb\nc\n", "", 3},
		{"final newline only", "a\nb", "a\nb\n", 1},
		{"moved line", "a\nb\nc\nd\n", "b\nc\nd\na\n", 2},
		{"crlf kept vs changed", "a\r\nb\r\n", "a\nb\n", 4},
		{"interleaved", "1\n2\n3\n4\n5\n", "1\nx\n3\ny\n5\n", 4},
	}
	for _, c := range cases {
		if got := lineDiff([]byte(c.a), []byte(c.b)); got != c.want {
			t.Errorf("%s: lineDiff = %d, want %d", c.name, got, c.want)
		}
	}
	before := map[string][]byte{"a": []byte("1\n2\n"), "gone": []byte("x\n")}
	after := map[string][]byte{"a": []byte("1\n3\n"), "new": []byte("y\nz\n")}
	if got := diffLines(before, after); got != 2+1+2 {
		t.Errorf("diffLines = %d, want 5 (a changed 2, gone 1, new 2)", got)
	}
}

// Diff minimality: the smallest change the expectations need over the
// change made; a task that changes more than needed scores lower.
func TestDiffMinimality(t *testing.T) {
	s := func(v string) *string { return &v }
	fixture := map[string][]byte{
		"greet.go": []byte("package greet\n\nfunc Hello() string { return \"Hello\" }\n"),
		"old.go":   []byte("package greet\n// old\n"),
	}
	files := []FileExpect{
		{Path: "greet.go", Contains: s(`return "Hello, world"`)}, // one line replaced: 2
		{Path: "VERSION", Exact: s("1.2.0\n")},                   // new file of one line: 1
		{Path: "old.go", Absent: true},                           // two lines gone: 2
	}
	minimal, ok := minimalLines(fixture, files)
	if !ok || minimal != 5 {
		t.Fatalf("minimalLines = %d, %v; want 5, true", minimal, ok)
	}
	tight := map[string][]byte{
		"greet.go": []byte("package greet\n\nfunc Hello() string { return \"Hello, world\" }\n"),
		"VERSION":  []byte("1.2.0\n"),
	}
	if m := minimality(minimal, ok, diffLines(fixture, tight)); m == nil || *m != 1 {
		t.Errorf("the minimal change scores %v, want 1", m)
	}
	sloppy := map[string][]byte{
		"greet.go": []byte("package greet\n\n// Hello greets.\nfunc Hello() string {\n\treturn \"Hello, world\"\n}\n"),
		"VERSION":  []byte("1.2.0\n"),
		"notes.md": []byte("a\nb\nc\nd\ne\n"),
	}
	actual := diffLines(fixture, sloppy)
	m := minimality(minimal, ok, actual)
	if m == nil || *m >= 0.5 {
		t.Errorf("a change of %d lines for %d needed scores %v, want under 0.5", actual, minimal, m)
	}
	if m := minimality(3, false, 10); m != nil {
		t.Errorf("without exact/contains files minimality = %v, want nil", *m)
	}
	if m := minimality(3, true, 0); m != nil {
		t.Errorf("with nothing changed minimality = %v, want nil", *m)
	}
	already := map[string][]byte{"a.txt": []byte("keep x\n")}
	if n, _ := minimalLines(already, []FileExpect{{Path: "a.txt", Contains: s("keep")}}); n != 0 {
		t.Errorf("a contains the fixture already holds needs %d lines, want 0", n)
	}
}

// ev builds a journal event from its fields.
func ev(typ event.Type, fields map[string]any) traceEvent {
	fields["type"] = string(typ)
	b, _ := json.Marshal(fields)
	var e traceEvent
	if err := json.Unmarshal(b, &e); err != nil {
		panic(err)
	}
	return e
}

func TestRepeatedErrors(t *testing.T) {
	evs := []traceEvent{
		ev(event.ToolCall, map[string]any{"call_id": "1", "name": "edit_file", "arguments": `{"path":"a","old_string":"x"}`}),
		ev(event.ToolResult, map[string]any{"call_id": "1", "status": "error"}),
		ev(event.ToolCall, map[string]any{"call_id": "2", "name": "edit_file", "arguments": `{"old_string": "x", "path": "a"}`}), // same call, keys reordered
		ev(event.ToolResult, map[string]any{"call_id": "2", "status": "error"}),
		ev(event.ToolCall, map[string]any{"call_id": "3", "name": "edit_file", "arguments": `{"path":"a","old_string":"y"}`}),
		ev(event.ToolResult, map[string]any{"call_id": "3", "status": "error"}),
		ev(event.ToolCall, map[string]any{"call_id": "4", "name": "edit_file", "arguments": `{"path":"a","old_string":"x"}`}),
		ev(event.ToolResult, map[string]any{"call_id": "4", "status": "ok"}), // the same call succeeding is no error
	}
	if got := repeatedErrors(evs); got != 2 {
		t.Errorf("repeatedErrors = %d, want 2", got)
	}
	if got := repeatedErrors(evs[4:]); got != 1 {
		t.Errorf("repeatedErrors of distinct calls = %d, want 1", got)
	}
}

// Evidence cited: the paths the final answer names that the run read
// (read_file, grep hits); a path named but never read is not evidence.
func TestEvidenceCited(t *testing.T) {
	evs := []traceEvent{
		ev(event.ToolCall, map[string]any{"call_id": "1", "name": "read_file", "arguments": `{"path":"./greet.go"}`}),
		ev(event.ToolResult, map[string]any{"call_id": "1", "status": "ok", "output": "package greet"}),
		ev(event.ToolCall, map[string]any{"call_id": "2", "name": "grep", "arguments": `{"pattern":"Hello"}`}),
		ev(event.ToolResult, map[string]any{"call_id": "2", "status": "ok", "output": "cmd/main.go:12:\tHello()\ninternal/x.go:3: Hello\n"}),
		ev(event.ToolCall, map[string]any{"call_id": "3", "name": "read_file", "arguments": `{"path":"unused.go"}`}),
	}
	answer := "Fixed greet.go; cmd/main.go calls it; see also README.md."
	if got := evidenceCited(evs, answer); !slices.Equal(got, []string{"cmd/main.go", "greet.go"}) {
		t.Errorf("evidenceCited = %v", got)
	}
	if got := evidenceCited(evs, "done"); got == nil || len(got) != 0 {
		t.Errorf("an answer citing nothing: %v, want []", got)
	}
}

func TestStoppedAfterDenial(t *testing.T) {
	denial := ev(event.Approval, map[string]any{"call_id": "1", "decision": "deny", "source": "user"})
	finished := func(status string) traceEvent { return ev(event.RunFinished, map[string]any{"status": status}) }
	cases := []struct {
		name string
		evs  []traceEvent
		want *bool
	}{
		{"no denial", []traceEvent{finished("completed")}, nil},
		{"a rule's denial does not count", []traceEvent{ev(event.Approval, map[string]any{"call_id": "1", "decision": "deny", "source": "rule"}), finished("completed")}, nil},
		{"a denial with a note goes on", []traceEvent{ev(event.Approval, map[string]any{"call_id": "1", "decision": "deny", "source": "user", "note": "other way"}), finished("completed")}, nil},
		{"stopped", []traceEvent{denial, finished("stopped")}, ptr(true)},
		{"went on", []traceEvent{denial, ev(event.ToolCall, map[string]any{"call_id": "2", "name": "run_command"}), finished("stopped")}, ptr(false)},
		{"completed", []traceEvent{denial, finished("completed")}, ptr(false)},
	}
	for _, c := range cases {
		got := stoppedAfterDenial(c.evs, outcomeOf(c.evs))
		if (got == nil) != (c.want == nil) || (got != nil && *got != *c.want) {
			t.Errorf("%s: stoppedAfterDenial = %v, want %v", c.name, deref(got), deref(c.want))
		}
	}
}

func ptr[T any](v T) *T { return &v }

func deref(b *bool) any {
	if b == nil {
		return nil
	}
	return *b
}

// The class comes from run_finished.failure when the diagnosis is there,
// else from the error event of that stretch; a later stretch's outcome wins.
func TestOutcomeClass(t *testing.T) {
	errEv := ev(event.Error, map[string]any{"class": "model", "message": "HTTP 500"})
	withFailure := ev(event.RunFinished, map[string]any{"status": "failed", "steps": 3, "tool_calls": 2,
		"tokens": map[string]int{"input": 10, "output": 5}, "failure": map[string]any{"class": "tool", "seq": 9, "reason": "the same edit failed 3 times"}})
	o := outcomeOf([]traceEvent{errEv, withFailure})
	if o.class != event.ClassTool || o.reason != "the same edit failed 3 times" || o.steps != 3 || o.toolCalls != 2 || o.tokens.Input != 10 {
		t.Errorf("with a failure field: %+v", o)
	}
	o = outcomeOf([]traceEvent{errEv, ev(event.RunFinished, map[string]any{"status": "failed"})})
	if o.class != event.ClassModel || o.reason != "HTTP 500" {
		t.Errorf("from the error event: %+v", o)
	}
	o = outcomeOf([]traceEvent{errEv, ev(event.RunFinished, map[string]any{"status": "failed"}),
		ev(event.AssistantMessage, map[string]any{"text": "all good"}), ev(event.RunFinished, map[string]any{"status": "completed"})})
	if o.status != event.StatusCompleted || o.class != "" || o.answer != "all good" {
		t.Errorf("after a resume that completed: %+v", o)
	}
}

func TestSummarize(t *testing.T) {
	rs := []Result{
		{Passed: true, Steps: 2, ToolCalls: 1, Tokens: Tokens{10, 2}, DiffMinimality: ptr(1.0), RollbackOK: ptr(true), RepeatedErrors: 1},
		{Passed: false, Steps: 3, Class: "tool", DiffMinimality: ptr(0.5), StoppedAfterDenial: ptr(false), RepeatedErrors: 3},
		{Passed: true, Class: "permission", StoppedAfterDenial: ptr(true), EvidenceCited: []string{"a", "b"}},
	}
	s := Summarize(rs)
	if s.Tasks != 3 || s.Passed != 2 || s.SuccessRate != 0.6667 || s.Steps != 5 || s.Tokens.Input != 10 || s.RepeatedErrors != 3 || s.EvidenceCited != 2 {
		t.Errorf("summary = %+v", s)
	}
	if *s.DiffMinimality != 0.75 || *s.StoppedAfterDenial != 0.5 || *s.RollbackOK != 1 || s.ByClass["tool"] != 1 || s.ByClass["permission"] != 1 {
		t.Errorf("summary means = %v %v %v %v", *s.DiffMinimality, *s.StoppedAfterDenial, *s.RollbackOK, s.ByClass)
	}
	if s.CostUSD != nil {
		t.Errorf("a replay has no cost: %v", *s.CostUSD)
	}
}

func TestCost(t *testing.T) {
	if c := Cost("gpt-4.1-mini", Tokens{1_000_000, 1_000_000}); c == nil || *c != 2.0 {
		t.Errorf("gpt-4.1-mini cost = %v, want 2.00", c)
	}
	if c := Cost("openai/gpt-4.1", Tokens{500_000, 0}); c == nil || *c != 1.0 {
		t.Errorf("a routed gpt-4.1 cost = %v, want 1.00", c)
	}
	if c := Cost("qwen2.5-coder", Tokens{100, 100}); c != nil {
		t.Errorf("an unknown model has no cost, got %v", *c)
	}
	if c := Cost("gpt-4.1", Tokens{}); c != nil {
		t.Errorf("no usage reported: no cost, got %v", *c)
	}
}
