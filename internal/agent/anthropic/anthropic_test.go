package anthropic_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"agent/internal/agent"
	"agent/internal/agent/anthropic"
	"agent/internal/agent/anthropic/anthropictest"
)

// collected is a turn as the loop sees it.
type collected struct {
	text   string
	calls  map[int]*agent.ToolCall
	ended  map[int]bool
	usage  agent.Usage
	finish string
	err    error
}

func collect(t *testing.T, s agent.Stream) collected {
	t.Helper()
	c := collected{calls: map[int]*agent.ToolCall{}, ended: map[int]bool{}}
	for {
		ev, err := s.Recv()
		if errors.Is(err, io.EOF) {
			return c
		}
		if err != nil {
			c.err = err
			return c
		}
		switch ev.Kind {
		case agent.EvTextDelta:
			c.text += ev.Text
		case agent.EvToolCallStart:
			c.calls[ev.Index] = &agent.ToolCall{ID: ev.ID, Name: ev.Name}
		case agent.EvToolCallDelta:
			c.calls[ev.Index].Arguments += ev.Text
		case agent.EvToolCallEnd:
			c.ended[ev.Index] = true
		case agent.EvUsage:
			c.usage = ev.Usage
		case agent.EvFinish:
			c.finish = ev.FinishReason
		}
	}
}

type sleeps struct{ got []time.Duration }

func (s *sleeps) sleep(ctx context.Context, d time.Duration) error {
	s.got = append(s.got, d)
	return ctx.Err()
}

func newProvider(t *testing.T, url string, mod func(*anthropic.Config)) *anthropic.Provider {
	t.Helper()
	cfg := anthropic.Config{BaseURL: url, APIKey: "sk-ant-test-0123456789", Model: "claude-sonnet-4-5"}
	if mod != nil {
		mod(&cfg)
	}
	p, err := anthropic.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func simpleRequest() *agent.Request {
	return &agent.Request{Messages: []agent.Message{
		{Role: agent.RoleSystem, Content: "You are a coding agent.", CacheBreak: true},
		{Role: agent.RoleUser, Content: "change the greeting"},
	}, Tools: []agent.ToolSpec{{Name: "read_file", Description: "read a file",
		Parameters: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"}},"required":["path"],"additionalProperties":false}`)}}}
}

// Text and two tool calls stream in pieces and come out whole, with the
// usage (cache reads and writes included in the input) and the stop reason.
func TestStreamTextAndToolUse(t *testing.T) {
	srv := &anthropictest.Server{Key: "sk-ant-test-0123456789", Turns: []anthropictest.Turn{{
		Text: "Let me look at the file — twice.",
		Calls: []anthropictest.Call{
			{ID: "toolu_a", Name: "read_file", Input: `{"path":"hello.go"}`},
			{ID: "toolu_b", Name: "grep", Input: `{"pattern":"Hello","include":"*.go"}`},
		},
		Usage: anthropictest.Usage{InputTokens: 12, OutputTokens: 34, CacheRead: 1000, CacheWrite: 200},
	}}}
	p := newProvider(t, anthropictest.Start(t, srv), nil)
	s, err := p.Stream(context.Background(), simpleRequest())
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	c := collect(t, s)
	if c.err != nil {
		t.Fatal(c.err)
	}
	if c.text != "Let me look at the file — twice." {
		t.Errorf("text = %q", c.text)
	}
	want := []agent.ToolCall{{ID: "toolu_a", Name: "read_file", Arguments: `{"path":"hello.go"}`},
		{ID: "toolu_b", Name: "grep", Arguments: `{"pattern":"Hello","include":"*.go"}`}}
	for i, w := range want {
		if got := c.calls[i]; got == nil || *got != w || !c.ended[i] {
			t.Errorf("call %d = %+v (ended %v), want %+v", i, got, c.ended[i], w)
		}
	}
	if u := c.usage; u != (agent.Usage{Input: 1212, Output: 34, CacheRead: 1000, CacheWrite: 200}) {
		t.Errorf("usage = %+v", u)
	}
	if c.finish != "tool_use" {
		t.Errorf("finish = %q", c.finish)
	}
	if r := srv.Requests(); len(r) != 1 || r[0].Params["stream"] != true {
		t.Errorf("requests %d, stream %v", len(r), r[0].Params["stream"])
	}
}

// The wire request: system messages become system blocks, tool results
// tool_result blocks in one user message, roles alternate, and
// cache_control sits on the last tool, the system blocks and the marked
// messages, at most four in all.
func TestRequestShape(t *testing.T) {
	srv := &anthropictest.Server{}
	p := newProvider(t, anthropictest.Start(t, srv), nil)
	req := &agent.Request{Messages: []agent.Message{
		{Role: agent.RoleSystem, Content: "L1 instructions", CacheBreak: true},
		{Role: agent.RoleSystem, Content: "repo map", CacheBreak: true},
		{Role: agent.RoleUser, Content: "fix it"},
		{Role: agent.RoleAssistant, Content: "", ToolCalls: []agent.ToolCall{
			{ID: "t1", Name: "read_file", Arguments: `{"path": "a"}`},
			{ID: "t2", Name: "read_file", Arguments: `{broken`},
		}},
		{Role: agent.RoleTool, ToolCallID: "t1", Name: "read_file", Content: "A"},
		{Role: agent.RoleTool, ToolCallID: "t2", Name: "read_file", Content: "", CacheBreak: true},
		{Role: agent.RoleUser, Content: "[agent] plan"},
		{Role: agent.RoleAssistant, Content: ""}, // an empty answer is dropped
		{Role: agent.RoleUser, Content: "go on"},
	}, Tools: simpleRequest().Tools}
	req.Tools = append(req.Tools, agent.ToolSpec{Name: "update_plan", Parameters: json.RawMessage(`{"type":"object","properties":{}}`)})
	s, err := p.Stream(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	if c := collect(t, s); c.err != nil {
		t.Fatal(c.err)
	}
	got := srv.Requests()[0]
	var body struct {
		Model     string
		MaxTokens int `json:"max_tokens"`
		Stream    bool
		System    []map[string]any
		Messages  []struct {
			Role    string
			Content []map[string]any
		}
		Tools []map[string]any
	}
	if err := json.Unmarshal(got.Body, &body); err != nil {
		t.Fatal(err)
	}
	if body.Model != "claude-sonnet-4-5" || body.MaxTokens <= 0 || !body.Stream {
		t.Errorf("model %q max_tokens %d stream %v", body.Model, body.MaxTokens, body.Stream)
	}
	if len(body.System) != 2 || body.System[0]["text"] != "L1 instructions" || body.System[0]["cache_control"] == nil || body.System[1]["cache_control"] == nil {
		t.Errorf("system = %v", body.System)
	}
	var roles []string
	for _, m := range body.Messages {
		roles = append(roles, m.Role)
	}
	if strings.Join(roles, ",") != "user,assistant,user" {
		t.Fatalf("roles = %v, want user,assistant,user", roles)
	}
	asst := body.Messages[1].Content
	if len(asst) != 2 || asst[0]["type"] != "tool_use" || asst[0]["id"] != "t1" {
		t.Errorf("assistant = %v", asst)
	}
	if in, _ := json.Marshal(asst[0]["input"]); string(in) != `{"path":"a"}` {
		t.Errorf("input = %s", in)
	}
	if in, _ := json.Marshal(asst[1]["input"]); string(in) != `{}` {
		t.Errorf("broken arguments sent as %s, want {}", in)
	}
	last := body.Messages[2].Content
	if len(last) != 4 || last[0]["type"] != "tool_result" || last[0]["tool_use_id"] != "t1" || last[1]["tool_use_id"] != "t2" ||
		last[2]["text"] != "[agent] plan" || last[3]["text"] != "go on" {
		t.Errorf("last user message = %v", last)
	}
	if last[1]["cache_control"] == nil {
		t.Errorf("the marked tool result has no cache_control: %v", last[1])
	}
	if c, _ := json.Marshal(last[1]["content"]); !strings.Contains(string(c), "(no output)") {
		t.Errorf("empty tool output sent as %s", c)
	}
	if len(body.Tools) != 2 || body.Tools[0]["cache_control"] != nil || body.Tools[1]["cache_control"] == nil {
		t.Errorf("tools = %v", body.Tools)
	}
	schema, _ := json.Marshal(body.Tools[0]["input_schema"])
	if !strings.Contains(string(schema), `"required":["path"]`) || !strings.Contains(string(schema), `"additionalProperties":false`) {
		t.Errorf("schema = %s", schema)
	}
	if n := strings.Count(string(got.Body), `"cache_control"`); n != 4 {
		t.Errorf("%d cache_control breakpoints, want 4", n)
	}
}

// More marks than the API allows: the tools', the first and the last ones
// are kept, four in all.
func TestAtMostFourBreakpoints(t *testing.T) {
	srv := &anthropictest.Server{}
	p := newProvider(t, anthropictest.Start(t, srv), nil)
	req := simpleRequest()
	for _, text := range []string{"a", "b", "c", "d", "e"} {
		req.Messages = append(req.Messages, agent.Message{Role: agent.RoleAssistant, Content: "ok " + text},
			agent.Message{Role: agent.RoleUser, Content: text, CacheBreak: true})
	}
	s, err := p.Stream(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	collect(t, s)
	body := string(srv.Requests()[0].Body)
	if n := strings.Count(body, `"cache_control"`); n != 4 {
		t.Errorf("%d breakpoints, want 4:\n%s", n, body)
	}
}

// A conversation whose first kept message is the model's still starts
// with a user message, as the API requires.
func TestFirstMessageIsTheUsers(t *testing.T) {
	srv := &anthropictest.Server{}
	p := newProvider(t, anthropictest.Start(t, srv), nil)
	req := &agent.Request{Messages: []agent.Message{
		{Role: agent.RoleSystem, Content: "L1"},
		{Role: agent.RoleAssistant, Content: "", ToolCalls: []agent.ToolCall{{ID: "t1", Name: "read_file", Arguments: `{}`}}},
		{Role: agent.RoleTool, ToolCallID: "t1", Content: "x"},
	}}
	s, err := p.Stream(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	collect(t, s)
	var body struct{ Messages []struct{ Role string } }
	json.Unmarshal(srv.Requests()[0].Body, &body)
	if len(body.Messages) != 3 || body.Messages[0].Role != "user" || body.Messages[1].Role != "assistant" {
		t.Errorf("messages = %+v", body.Messages)
	}
}

// 429 and 529 are retried, the server's retry-after replacing the backoff;
// so is an overloaded error event that comes before any data.
func TestRetriesHonourRetryAfter(t *testing.T) {
	srv := &anthropictest.Server{
		Failures: []anthropictest.Turn{
			{Status: 429, ErrorType: "rate_limit_error", RetryAfter: "2"},
			{Status: 529, ErrorType: "overloaded_error"},
			{Status: 200, ErrorType: "overloaded_error"},
		},
		Turns: []anthropictest.Turn{{Text: "ok"}},
	}
	var sl sleeps
	var retried []error
	p := newProvider(t, anthropictest.Start(t, srv), func(c *anthropic.Config) {
		c.Sleep = sl.sleep
		c.BaseBackoff = 10 * time.Millisecond
		c.OnRetry = func(_ int, _ time.Duration, err error) { retried = append(retried, err) }
	})
	s, err := p.Stream(context.Background(), simpleRequest())
	if err != nil {
		t.Fatal(err)
	}
	if c := collect(t, s); c.err != nil || c.text != "ok" {
		t.Fatalf("text %q err %v", c.text, c.err)
	}
	if len(sl.got) != 3 || sl.got[0] != 2*time.Second || sl.got[1] > 20*time.Millisecond || sl.got[2] > 40*time.Millisecond {
		t.Errorf("sleeps = %v, want [2s, backoff, backoff]", sl.got)
	}
	if len(srv.Requests()) != 4 {
		t.Errorf("%d requests, want 4", len(srv.Requests()))
	}
	var me *anthropic.ModelError
	if len(retried) != 3 || !errors.As(retried[1], &me) || me.Status != 529 || !strings.Contains(me.Error(), "overloaded") {
		t.Errorf("retried = %v", retried)
	}
}

// Errors a retry cannot fix fail at once with a message that names the fix;
// after the retries are spent the last error says how many attempts were made.
func TestErrors(t *testing.T) {
	cases := []struct {
		name     string
		fail     []anthropictest.Turn
		key      string
		want     string
		attempts int
		status   int
	}{
		{"bad key", nil, "another-key", "ANTHROPIC_API_KEY", 1, 401},
		{"not found", []anthropictest.Turn{{Status: 404, ErrorType: "not_found_error"}}, "", "without /v1", 1, 404},
		{"bad request", []anthropictest.Turn{{Status: 400, ErrorType: "invalid_request_error"}}, "", "rejected the request (HTTP 400)", 1, 400},
		{"overloaded", []anthropictest.Turn{{Status: 529}, {Status: 529}, {Status: 529}}, "", "try again later: scripted failure (after 3 attempts)", 3, 529},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			srv := &anthropictest.Server{Failures: tc.fail, Key: tc.key}
			var sl sleeps
			p := newProvider(t, anthropictest.Start(t, srv), func(c *anthropic.Config) { c.Sleep = sl.sleep; c.MaxRetries = 2 })
			_, err := p.Stream(context.Background(), simpleRequest())
			var me *anthropic.ModelError
			if !errors.As(err, &me) || !strings.Contains(err.Error(), tc.want) || me.Status != tc.status {
				t.Fatalf("err = %v (%+v), want status %d and %q", err, me, tc.status, tc.want)
			}
			if n := len(srv.Requests()); n != tc.attempts {
				t.Errorf("%d requests, want %d", n, tc.attempts)
			}
		})
	}
}

// An endpoint that echoes the key back does not get it into the error.
func TestErrorsRedactTheKey(t *testing.T) {
	const key = "sk-ant-api03-secretsecretsecret"
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusBadRequest)
		io.WriteString(w, `{"type":"error","error":{"type":"invalid_request_error","message":"bad key `+r.Header.Get("x-api-key")+`"}}`)
	}))
	defer ts.Close()
	p := newProvider(t, ts.URL, func(c *anthropic.Config) { c.APIKey = key })
	_, err := p.Stream(context.Background(), simpleRequest())
	if err == nil || strings.Contains(err.Error(), key) || !strings.Contains(err.Error(), "[REDACTED]") {
		t.Fatalf("err = %v", err)
	}
}

// A stream that breaks off before message_stop is an error, not a short answer.
func TestCutStreamIsAnError(t *testing.T) {
	srv := &anthropictest.Server{Turns: []anthropictest.Turn{{Text: "a long answer that is cut", CutAfter: 4}}}
	p := newProvider(t, anthropictest.Start(t, srv), nil)
	s, err := p.Stream(context.Background(), simpleRequest())
	if err != nil {
		t.Fatal(err)
	}
	c := collect(t, s)
	var me *anthropic.ModelError
	if !errors.As(c.err, &me) || !strings.Contains(c.err.Error(), "incomplete") {
		t.Fatalf("err = %v", c.err)
	}
}

// Cancelling the context ends a stream that hangs, with the context's error.
func TestCancelEndsAHangingStream(t *testing.T) {
	srv := &anthropictest.Server{Turns: []anthropictest.Turn{{Hang: true}}}
	p := newProvider(t, anthropictest.Start(t, srv), nil)
	ctx, cancel := context.WithCancel(context.Background())
	s, err := p.Stream(ctx, simpleRequest())
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error)
	go func() { done <- collect(t, s).err }()
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
}

// A stream that goes silent past the idle timeout fails with a retryable error.
func TestIdleTimeout(t *testing.T) {
	srv := &anthropictest.Server{Turns: []anthropictest.Turn{{Hang: true}}}
	p := newProvider(t, anthropictest.Start(t, srv), func(c *anthropic.Config) { c.IdleTimeout = 50 * time.Millisecond })
	s, err := p.Stream(context.Background(), simpleRequest())
	if err != nil {
		t.Fatal(err)
	}
	c := collect(t, s)
	var me *anthropic.ModelError
	if !errors.As(c.err, &me) || !me.Retryable || !strings.Contains(c.err.Error(), "stalled") {
		t.Fatalf("err = %v", c.err)
	}
}

// A remote endpoint needs a key; a loopback one may do without, and then
// no credential is sent.
func TestKeyRules(t *testing.T) {
	if _, err := anthropic.New(anthropic.Config{BaseURL: "https://api.anthropic.com"}); !errors.Is(err, anthropic.ErrMissingKey) {
		t.Errorf("remote without key: err = %v", err)
	}
	for _, bad := range []string{"ftp://x", "https://api.anthropic.com/v1/messages", "not a url"} {
		if _, err := anthropic.New(anthropic.Config{BaseURL: bad, APIKey: "k"}); err == nil || !strings.Contains(err.Error(), "ANTHROPIC_BASE_URL") {
			t.Errorf("%q: err = %v", bad, err)
		}
	}
	srv := &anthropictest.Server{}
	p := newProvider(t, anthropictest.Start(t, srv), func(c *anthropic.Config) { c.APIKey = "" })
	s, err := p.Stream(context.Background(), simpleRequest())
	if err != nil {
		t.Fatal(err)
	}
	collect(t, s)
	h := srv.Requests()[0].Header
	if h.Get("x-api-key") != "" || h.Get("Authorization") != "" {
		t.Errorf("credentials sent without a key: %v", h)
	}
}

// A server that is not a Messages API (a JSON page in a 200) is named as such.
func TestNotAStream(t *testing.T) {
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"hello":"world"}`)
	}))
	defer ts.Close()
	p := newProvider(t, ts.URL, nil)
	_, err := p.Stream(context.Background(), simpleRequest())
	if err == nil || !strings.Contains(err.Error(), "without any stream data") {
		t.Fatalf("err = %v", err)
	}
}

// sse serves a fixed event stream.
func sse(t *testing.T, body string) string {
	t.Helper()
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		io.WriteString(w, body)
	}))
	t.Cleanup(ts.Close)
	return ts.URL
}

const startEvent = "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"usage\":{\"input_tokens\":5,\"output_tokens\":1}}}\n\n"

// An error event after the stream started is the turn's error, typed by the
// status it stands for, and not retried.
func TestErrorEventMidStream(t *testing.T) {
	url := sse(t, startEvent+"event: error\ndata: {\"type\":\"error\",\"error\":{\"type\":\"overloaded_error\",\"message\":\"Overloaded\"}}\n\n")
	p := newProvider(t, url, nil)
	s, err := p.Stream(context.Background(), simpleRequest())
	if err != nil {
		t.Fatal(err)
	}
	c := collect(t, s)
	var me *anthropic.ModelError
	if !errors.As(c.err, &me) || me.Status != anthropic.StatusOverloaded || !strings.Contains(c.err.Error(), "mid-stream") {
		t.Fatalf("err = %v", c.err)
	}
}

// An event this adapter cannot read is named with what was received.
func TestUnreadableEvent(t *testing.T) {
	p := newProvider(t, sse(t, startEvent+"event: content_block_delta\ndata: {\"index\": \"zero\"\n\n"), nil)
	s, err := p.Stream(context.Background(), simpleRequest())
	if err != nil {
		t.Fatal(err)
	}
	c := collect(t, s)
	if c.err == nil || !strings.Contains(c.err.Error(), `it received: {"index": "zero"`) {
		t.Fatalf("err = %v", c.err)
	}
}

// A tool_use whose input comes whole in content_block_start (no deltas)
// still yields its arguments.
func TestToolInputWithoutDeltas(t *testing.T) {
	body := startEvent +
		"event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"tool_use\",\"id\":\"toolu_1\",\"name\":\"glob\",\"input\":{\"pattern\":\"*.go\"}}}\n\n" +
		"event: content_block_stop\ndata: {\"type\":\"content_block_stop\",\"index\":0}\n\n" +
		"event: message_delta\ndata: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"tool_use\"},\"usage\":{\"output_tokens\":7}}\n\n" +
		"event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n"
	p := newProvider(t, sse(t, body), nil)
	s, err := p.Stream(context.Background(), simpleRequest())
	if err != nil {
		t.Fatal(err)
	}
	c := collect(t, s)
	if c.err != nil || c.calls[0] == nil || c.calls[0].Arguments != `{"pattern":"*.go"}` || c.usage.Output != 7 || c.usage.Input != 5 {
		t.Fatalf("calls %+v usage %+v err %v", c.calls[0], c.usage, c.err)
	}
}
