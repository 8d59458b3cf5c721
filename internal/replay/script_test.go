package replay

import (
	"errors"
	"io/fs"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func TestLoadExample(t *testing.T) {
	s, err := Load(filepath.Join("testdata", "example.json"))
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Turns) != 5 {
		t.Fatalf("turns = %d, want 5", len(s.Turns))
	}
	if got := s.Turns[3].ToolCalls[0].ID; got != "call_4_1" {
		t.Errorf("default id = %q, want call_4_1", got)
	}
	if got := s.Turns[3].ToolCalls[0].Arguments; got != `{"path": broken` {
		t.Errorf("arguments not kept verbatim: %q", got)
	}
	if s.Turns[1].HTTPStatus != 429 || s.Turns[1].RetryAfter != "0" {
		t.Errorf("fault turn = %+v", s.Turns[1])
	}
}

func TestParseErrors(t *testing.T) {
	tests := []struct {
		name, script, want string
	}{
		{"empty", ``, "empty file"},
		{"syntax", "{\"turns\": [\n  {\"text\": \"a\",}\n]}", "line 2"},
		{"no turns", `{"turns": []}`, "no turns"},
		{"unknown field", `{"turns": [{"txt": "a"}]}`, `unknown field "txt"`},
		{"wrong type", `{"turns": [{"text": 5}]}`, "line 1"},
		{"trailing", `{"turns": [{"text": "a"}]} {}`, "trailing data"},
		{"tool name", `{"turns": [{"tool_calls": [{"arguments": "{}"}]}]}`, "turn 1: tool_calls[0]: name is required"},
		{"dup id", `{"turns": [{"tool_calls": [{"id":"a","name":"x","arguments":""},{"id":"a","name":"y","arguments":""}]}]}`, "duplicate id"},
		{"status range", `{"turns": [{"http_status": 200}]}`, "want 400-599"},
		{"status with text", `{"turns": [{"http_status": 500, "text": "x"}]}`, "no text"},
		{"retry_after alone", `{"turns": [{"retry_after": "1"}]}`, "need http_status"},
		{"retry_after bad", `{"turns": [{"http_status": 429, "retry_after": "soon"}]}`, "retry_after"},
		{"stall and drop", `{"turns": [{"text":"a","stall_after_chunks": 1, "drop_after_chunks": 2}]}`, "exclude"},
		{"negative chunk", `{"turns": [{"text":"a","chunk_size": -1}]}`, "chunk_size"},
		{"second turn", `{"turns": [{"text":"a"}, {"usage": {"input": -1, "output": 0}}]}`, "turn 2: usage"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse([]byte(tt.script))
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err = %v, want it to contain %q", err, tt.want)
			}
		})
	}
}

func TestLoadMissingFile(t *testing.T) {
	_, err := Load(filepath.Join(t.TempDir(), "nope.json"))
	if !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("err = %v, want a not-exist error", err)
	}
}

func TestPlan(t *testing.T) {
	turn := Turn{Text: "héllo wörld", ToolCalls: []ToolCall{{ID: "c1", Name: "f", Arguments: `{"a":1}`}}, ChunkSize: 4,
		Usage: &Usage{Input: 3, Output: 2}}
	var kinds []partKind
	var texts []string
	for _, p := range plan(&turn, true) {
		kinds = append(kinds, p.kind)
		if p.kind == partText || p.kind == partToolArgs || p.kind == partFinish {
			texts = append(texts, p.text)
		}
	}
	wantKinds := []partKind{partRole, partText, partText, partText, partToolHead, partToolArgs, partToolArgs, partFinish, partUsage}
	if !reflect.DeepEqual(kinds, wantKinds) {
		t.Errorf("kinds = %v, want %v", kinds, wantKinds)
	}
	wantTexts := []string{"héll", "o wö", "rld", `{"a"`, ":1}", "tool_calls"}
	if !reflect.DeepEqual(texts, wantTexts) {
		t.Errorf("texts = %q, want %q", texts, wantTexts)
	}
}

func TestValidateConversation(t *testing.T) {
	tests := []struct {
		name string
		msgs []convMsg
		want string // "" = valid
	}{
		{"ok", []convMsg{{Role: "system"}, {Role: "user"}, {Role: "assistant", ToolCallIDs: []string{"a", "b"}},
			{Role: "tool", ToolCallID: "b"}, {Role: "tool", ToolCallID: "a"}, {Role: "assistant"}}, ""},
		{"empty", nil, "too short"},
		{"orphan tool", []convMsg{{Role: "user"}, {Role: "tool", ToolCallID: "x"}}, "must be a response to a preceeding message"},
		{"answered twice", []convMsg{{Role: "user"}, {Role: "assistant", ToolCallIDs: []string{"a"}},
			{Role: "tool", ToolCallID: "a"}, {Role: "tool", ToolCallID: "a"}}, "must be a response"},
		{"unanswered then user", []convMsg{{Role: "user"}, {Role: "assistant", ToolCallIDs: []string{"a", "b"}},
			{Role: "tool", ToolCallID: "a"}, {Role: "user"}}, "did not have response messages: b"},
		{"unanswered at end", []convMsg{{Role: "user"}, {Role: "assistant", ToolCallIDs: []string{"a"}}}, "did not have response messages: a"},
		{"bad role", []convMsg{{Role: "robot"}}, "Invalid value: 'robot'"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := validateConversation(tt.msgs, nil)
			if (err == nil) != (tt.want == "") || (err != nil && !strings.Contains(err.Error(), tt.want)) {
				t.Fatalf("err = %v, want %q", err, tt.want)
			}
		})
	}
	if err := validateConversation([]convMsg{{Role: "user"}}, []string{"bad name"}); err == nil {
		t.Error("tool name with a space accepted")
	}
}

func TestCheckExpect(t *testing.T) {
	msgs := []convMsg{
		{Role: "user", Content: "fix it"},
		{Role: "assistant", ToolCallIDs: []string{"a"}, ToolArgs: []string{`{"token":"s3cret"}`}},
		{Role: "tool", ToolCallID: "a", Content: "module example.com/x"},
	}
	if f := checkExpect(&Expect{ToolResultContains: "module", MessageContains: "fix"}, msgs, nil); len(f) != 0 {
		t.Errorf("unexpected failures %v", f)
	}
	f := checkExpect(&Expect{ToolResultContains: "nope", MessageContains: "absent", RequestNotContains: []string{"s3cret"}}, msgs, nil)
	if len(f) != 3 || !strings.Contains(f[2], "messages[1] (assistant)") {
		t.Errorf("failures = %q", f)
	}
}
