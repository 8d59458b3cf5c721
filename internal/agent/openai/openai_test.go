package openai_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"agent/internal/agent"
	"agent/internal/agent/openai"
	"agent/internal/replay"
)

// sleeps records the backoff waits instead of sleeping.
type sleeps struct {
	mu sync.Mutex
	d  []time.Duration
}

func (s *sleeps) sleep(ctx context.Context, d time.Duration) error {
	s.mu.Lock()
	s.d = append(s.d, d)
	s.mu.Unlock()
	return ctx.Err()
}

func (s *sleeps) got() []time.Duration {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]time.Duration(nil), s.d...)
}

func newProvider(t *testing.T, baseURL string, mod func(*openai.Config)) (*openai.Provider, *sleeps) {
	t.Helper()
	sl := &sleeps{}
	cfg := openai.Config{BaseURL: baseURL, Model: "test-model", BaseBackoff: 10 * time.Millisecond, Sleep: sl.sleep}
	if mod != nil {
		mod(&cfg)
	}
	p, err := openai.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return p, sl
}

func script(t *testing.T, s string) *replay.Script {
	t.Helper()
	sc, err := replay.Parse([]byte(s))
	if err != nil {
		t.Fatal(err)
	}
	return sc
}

var userTurn = &agent.Request{Messages: []agent.Message{{Role: agent.RoleUser, Content: "go"}}}

// drain reads a stream to its end.
func drain(st agent.Stream) ([]agent.StreamEvent, error) {
	defer st.Close()
	var evs []agent.StreamEvent
	for {
		ev, err := st.Recv()
		if errors.Is(err, io.EOF) {
			return evs, nil
		}
		if err != nil {
			return evs, err
		}
		evs = append(evs, ev)
	}
}

// merge joins consecutive deltas of the same kind and index.
func merge(evs []agent.StreamEvent) []agent.StreamEvent {
	var out []agent.StreamEvent
	for _, ev := range evs {
		if n := len(out); n > 0 && (ev.Kind == agent.EvTextDelta || ev.Kind == agent.EvToolCallDelta) &&
			out[n-1].Kind == ev.Kind && out[n-1].Index == ev.Index {
			out[n-1].Text += ev.Text
			continue
		}
		out = append(out, ev)
	}
	return out
}

func count(evs []agent.StreamEvent, k agent.StreamEventKind) int {
	n := 0
	for _, ev := range evs {
		if ev.Kind == k {
			n++
		}
	}
	return n
}

func TestStreamTurns(t *testing.T) {
	text := func(s string) agent.StreamEvent { return agent.StreamEvent{Kind: agent.EvTextDelta, Text: s} }
	start := func(i int, id, name string) agent.StreamEvent {
		return agent.StreamEvent{Kind: agent.EvToolCallStart, Index: i, ID: id, Name: name}
	}
	args := func(i int, s string) agent.StreamEvent {
		return agent.StreamEvent{Kind: agent.EvToolCallDelta, Index: i, Text: s}
	}
	end := func(i int) agent.StreamEvent { return agent.StreamEvent{Kind: agent.EvToolCallEnd, Index: i} }
	usage := func(in, out int) agent.StreamEvent {
		return agent.StreamEvent{Kind: agent.EvUsage, Usage: agent.Usage{Input: in, Output: out}}
	}
	finish := func(r string) agent.StreamEvent { return agent.StreamEvent{Kind: agent.EvFinish, FinishReason: r} }
	edit := `{"path":"main.go","old_string":"Hello","new_string":"Hello, world"}`

	tests := []struct {
		name       string
		turn       string
		want       []agent.StreamEvent
		minDeltas  int // at least this many raw EvToolCallDelta events
		minTextEvs int
	}{
		{
			name:       "text only",
			turn:       `{"text":"All done, nothing to change.","usage":{"input":50,"output":8}}`,
			want:       []agent.StreamEvent{text("All done, nothing to change."), usage(50, 8), finish("stop")},
			minTextEvs: 3,
		},
		{
			name:      "arguments in pieces",
			turn:      `{"tool_calls":[{"id":"call_1","name":"edit_file","arguments":` + strconvQuote(edit) + `}],"chunk_size":4,"usage":{"input":10,"output":5}}`,
			want:      []agent.StreamEvent{start(0, "call_1", "edit_file"), args(0, edit), end(0), usage(10, 5), finish("tool_calls")},
			minDeltas: len(edit) / 4,
		},
		{
			name: "two tool calls and text",
			turn: `{"text":"Reading both.","tool_calls":[{"id":"call_a","name":"read_file","arguments":"{\"path\":\"a.go\"}"},` +
				`{"id":"call_b","name":"read_file","arguments":"{\"path\":\"b.go\"}"}],"usage":{"input":7,"output":3}}`,
			want: []agent.StreamEvent{text("Reading both."),
				start(0, "call_a", "read_file"), args(0, `{"path":"a.go"}`),
				start(1, "call_b", "read_file"), args(1, `{"path":"b.go"}`),
				end(0), end(1), usage(7, 3), finish("tool_calls")},
			minDeltas: 4,
		},
		{
			name: "broken JSON and empty arguments pass through",
			turn: `{"tool_calls":[{"id":"x","name":"write_file","arguments":"{\"path\": bro"},{"id":"y","name":"list_dir","arguments":""}]}`,
			want: []agent.StreamEvent{start(0, "x", "write_file"), args(0, `{"path": bro`), start(1, "y", "list_dir"),
				end(0), end(1), usage(0, 0), finish("tool_calls")},
		},
		{
			// llama.cpp and Ollama: arguments as a JSON object, the call in one chunk.
			name: "arguments as a JSON object",
			turn: `{"args_object":true,"tool_calls":[{"id":"call_o","name":"edit_file","arguments":` + strconvQuote(edit) + `},` +
				`{"id":"call_n","name":"update_plan","arguments":"{\"plan\":[{\"step\":\"a\",\"status\":\"done\"}],\"n\":1.5}"}]}`,
			want: []agent.StreamEvent{start(0, "call_o", "edit_file"), args(0, edit),
				start(1, "call_n", "update_plan"), args(1, `{"plan":[{"step":"a","status":"done"}],"n":1.5}`),
				end(0), end(1), usage(0, 0), finish("tool_calls")},
		},
		{
			name: "finish length",
			turn: `{"text":"trunc","finish_reason":"length"}`,
			want: []agent.StreamEvent{text("trunc"), usage(0, 0), finish("length")},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv, url := replay.Start(t, script(t, `{"turns":[`+tt.turn+`]}`))
			p, _ := newProvider(t, url, nil)
			st, err := p.Stream(context.Background(), userTurn)
			if err != nil {
				t.Fatal(err)
			}
			raw, err := drain(st)
			if err != nil {
				t.Fatal(err)
			}
			if got := merge(raw); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("events:\n got %+v\nwant %+v", got, tt.want)
			}
			if n := count(raw, agent.EvToolCallDelta); n < tt.minDeltas {
				t.Errorf("%d argument fragments, want >= %d", n, tt.minDeltas)
			}
			if n := count(raw, agent.EvTextDelta); n < tt.minTextEvs {
				t.Errorf("%d text fragments, want >= %d", n, tt.minTextEvs)
			}
			if err := srv.Err(); err != nil {
				t.Error(err)
			}
			// After the end, Recv keeps returning io.EOF.
			if _, err := st.Recv(); !errors.Is(err, io.EOF) {
				t.Errorf("Recv after end: %v", err)
			}
		})
	}
}

// A chunk the adapter cannot read is a model error that says what came, not
// a broken connection.
func TestUnreadableChunkSaysWhatCame(t *testing.T) {
	for _, bad := range []string{`{"choices":[{"delta":{"tool_calls":[{"index":"zero"}]}}]}`, `<html>Bad Gateway</html>`, `{"choices": 7}`} {
		_, url := replay.Start(t, script(t, `{"turns":[{"text":"hi","bad_chunk":`+strconvQuote(bad)+`}]}`))
		p, _ := newProvider(t, url, nil)
		st, err := p.Stream(context.Background(), userTurn)
		if err == nil {
			_, err = drain(st)
		}
		var me *openai.ModelError
		if !errors.As(err, &me) {
			t.Fatalf("%s: err %v, want a *ModelError", bad, err)
		}
		msg := err.Error()
		if strings.Contains(msg, "broke off") || !strings.Contains(msg, "cannot read") || !strings.Contains(msg, bad[:10]) || me.Retryable {
			t.Errorf("%s: %q (retryable %t); want a non-retryable error quoting what was received", bad, msg, me.Retryable)
		}
	}
}

func strconvQuote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

func TestRequestOnTheWire(t *testing.T) {
	srv, url := replay.Start(t, script(t, `{"turns":[{"text":"a"},{"text":"b"}]}`))
	params := json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"}},"required":["path"]}`)
	req := &agent.Request{
		Model: "other-model",
		Messages: []agent.Message{
			{Role: agent.RoleSystem, Content: "be brief"},
			{Role: agent.RoleUser, Content: "read it"},
			{Role: agent.RoleAssistant, Content: "ok", ToolCalls: []agent.ToolCall{{ID: "call_9", Name: "read_file", Arguments: `{"path":"x"}`}}},
			{Role: agent.RoleTool, ToolCallID: "call_9", Name: "read_file", Content: "contents"},
		},
		Tools: []agent.ToolSpec{{Name: "read_file", Description: "Read a file", Parameters: params}, {Name: "list_dir"}},
	}
	p, _ := newProvider(t, url, nil)
	st, err := p.Stream(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := drain(st); err != nil {
		t.Fatal(err)
	}
	keyed, _ := newProvider(t, url, func(c *openai.Config) { c.APIKey = "sk-test-123456789" })
	st, err = keyed.Stream(context.Background(), userTurn)
	if err != nil {
		t.Fatal(err)
	}
	_, _ = drain(st)
	if err := srv.Err(); err != nil {
		t.Fatal(err)
	}

	rr := srv.Requests()
	r := rr[0].Request
	if r.Model != "other-model" || !r.Stream || r.StreamOptions == nil || !r.StreamOptions.IncludeUsage {
		t.Errorf("model/stream: %+v", r)
	}
	if len(r.Tools) != 2 || r.Tools[0].Type != "function" || r.Tools[0].Function.Name != "read_file" ||
		r.Tools[0].Function.Description != "Read a file" || string(r.Tools[0].Function.Parameters) != string(params) ||
		!json.Valid(r.Tools[1].Function.Parameters) {
		t.Errorf("tools: %+v", r.Tools)
	}
	roles := []string{}
	for _, m := range r.Messages {
		roles = append(roles, m.Role)
	}
	if strings.Join(roles, ",") != "system,user,assistant,tool" {
		t.Errorf("roles %v", roles)
	}
	a, tool := r.Messages[2], r.Messages[3]
	if a.Content != "ok" || len(a.ToolCalls) != 1 || a.ToolCalls[0].ID != "call_9" || a.ToolCalls[0].Type != "function" ||
		a.ToolCalls[0].Function.Name != "read_file" || a.ToolCalls[0].Function.Arguments != `{"path":"x"}` {
		t.Errorf("assistant message %+v", a)
	}
	if tool.ToolCallID != "call_9" || tool.Content != "contents" {
		t.Errorf("tool message %+v", tool)
	}
	if h := rr[0].Header.Get("Authorization"); h != "" {
		t.Errorf("loopback without key sent Authorization %q", h)
	}
	if rr[1].Request.Model != "test-model" || rr[1].Header.Get("Authorization") != "Bearer sk-test-123456789" {
		t.Errorf("second request: model %q, auth %q", rr[1].Request.Model, rr[1].Header.Get("Authorization"))
	}
}

func TestNew(t *testing.T) {
	tests := []struct {
		base, key string
		wantErr   string // "" = ok
	}{
		{"", "", "OPENAI_API_KEY"},
		{"https://api.openai.com/v1", "", "OPENAI_API_KEY"},
		{"http://example.com:8080/v1", "", "OPENAI_API_KEY"},
		{"http://10.0.0.1/v1", "   ", "OPENAI_API_KEY"},
		{"https://api.openai.com/v1", "sk-x", ""},
		{"http://localhost:11434/v1", "", ""},
		{"http://127.0.0.5:8080/v1/", "", ""},
		{"http://[::1]:8080/v1", "", ""},
		{"ftp://localhost/v1", "", "invalid model base URL"},
		{"localhost:8080", "", "invalid model base URL"},
		{"http://localhost:8080/v1/chat/completions", "", "not the chat/completions endpoint"},
	}
	for _, tt := range tests {
		t.Run(tt.base, func(t *testing.T) {
			p, err := openai.New(openai.Config{BaseURL: tt.base, APIKey: tt.key})
			if tt.wantErr == "" {
				if err != nil {
					t.Fatal(err)
				}
				if strings.HasSuffix(p.BaseURL(), "/") {
					t.Errorf("base URL %q not normalised", p.BaseURL())
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Fatalf("err = %v, want %q", err, tt.wantErr)
			}
			if tt.wantErr == "OPENAI_API_KEY" && !errors.Is(err, openai.ErrMissingKey) {
				t.Errorf("err %v does not wrap ErrMissingKey", err)
			}
		})
	}
}

func TestInvalidRequests(t *testing.T) {
	p, err := openai.New(openai.Config{BaseURL: "http://127.0.0.1:1/v1"})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		req  *agent.Request
		want string
	}{
		{"no model", userTurn, "--model"},
		{"bad role", &agent.Request{Model: "m", Messages: []agent.Message{{Role: "robot"}}}, `unknown role "robot"`},
		{"tool without id", &agent.Request{Model: "m", Messages: []agent.Message{{Role: agent.RoleTool}}}, "tool call id"},
		{"bad schema", &agent.Request{Model: "m", Messages: userTurn.Messages, Tools: []agent.ToolSpec{{Name: "t", Parameters: json.RawMessage(`{`)}}}, "not valid JSON"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := p.Stream(context.Background(), tt.req)
			var me *openai.ModelError
			if !errors.As(err, &me) || me.Retryable || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err = %v, want %q", err, tt.want)
			}
		})
	}
}

func TestEmptyAssistantMessagesAreDropped(t *testing.T) {
	srv, url := replay.Start(t, script(t, `{"turns":[{"text":"a"}]}`))
	p, _ := newProvider(t, url, nil)
	st, err := p.Stream(context.Background(), &agent.Request{Messages: []agent.Message{
		{Role: agent.RoleUser, Content: "one"}, {Role: agent.RoleAssistant}, {Role: agent.RoleUser, Content: "two"}}})
	if err != nil {
		t.Fatal(err)
	}
	st.Close()
	if msgs := srv.Requests()[0].Request.Messages; len(msgs) != 2 {
		t.Errorf("messages %+v", msgs)
	}
}
