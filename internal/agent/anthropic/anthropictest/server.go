// Package anthropictest is a scripted Anthropic Messages API server for
// tests: POST /v1/messages answered with the Messages SSE protocol
// (message_start, content blocks with text_delta and input_json_delta,
// message_delta with the stop reason and usage, message_stop), or with the
// API's error responses, over real HTTP on a loopback port.
//
// It owns only the wire protocol of the tests; it must not be imported by
// non-test code. The answer to a request is turn k, k being the number of
// assistant messages in the request, so that a resumed conversation picks up
// where it was (as the check's fakeanthropic.py does).
package anthropictest

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"unicode/utf8"
)

// Call is a tool call the scripted model makes; Input is its raw JSON.
type Call struct {
	ID    string
	Name  string
	Input string
}

// Usage is what a turn reports; InputTokens excludes the cached tokens, as
// the API counts them.
type Usage struct {
	InputTokens, OutputTokens, CacheRead, CacheWrite int
}

// Turn is one scripted answer, or one failure.
type Turn struct {
	Text  string
	Calls []Call
	Usage Usage
	// Status, when not 0 or 200, answers with that HTTP status and an error
	// body of ErrorType; with Status 200 and an ErrorType the stream starts
	// with an error event instead.
	Status     int
	ErrorType  string
	RetryAfter string // the retry-after header of a failure
	// CutAfter > 0 ends the body after that many events, without message_stop.
	CutAfter int
	// Hang sends message_start and then nothing until the client goes away.
	Hang bool
}

// Request is one request the server received.
type Request struct {
	Header http.Header
	Body   []byte
	Params map[string]any
}

// Server serves the turns. Failures are served first, one a request, in order.
type Server struct {
	Turns    []Turn
	Final    string // the answer once the turns run out (default "All done.")
	Failures []Turn
	// Key, when set, is the API key every request must carry (x-api-key or
	// a bearer token); other requests get 401.
	Key string

	mu   sync.Mutex
	reqs []Request
}

// Start serves s on a loopback port until the test ends and returns the base
// URL (the API root, without /v1).
func Start(tb interface {
	Helper()
	Cleanup(func())
}, s *Server) string {
	tb.Helper()
	ts := httptest.NewServer(s)
	tb.Cleanup(ts.Close)
	return ts.URL
}

// Requests returns the requests received so far.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.reqs...)
}

func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(io.LimitReader(r.Body, 64<<20))
	var params map[string]any
	_ = json.Unmarshal(body, &params)
	s.mu.Lock()
	s.reqs = append(s.reqs, Request{Header: r.Header.Clone(), Body: body, Params: params})
	var fail *Turn
	if len(s.Failures) > 0 {
		f := s.Failures[0]
		s.Failures = s.Failures[1:]
		fail = &f
	}
	s.mu.Unlock()
	if r.Method != http.MethodPost || !strings.HasSuffix(r.URL.Path, "/v1/messages") {
		writeError(w, http.StatusNotFound, "not_found_error", "no such endpoint: "+r.URL.Path, "")
		return
	}
	if s.Key != "" && r.Header.Get("x-api-key") != s.Key && r.Header.Get("Authorization") != "Bearer "+s.Key {
		writeError(w, http.StatusUnauthorized, "authentication_error", "invalid x-api-key", "")
		return
	}
	if params == nil {
		writeError(w, http.StatusBadRequest, "invalid_request_error", "the body is not JSON", "")
		return
	}
	if fail != nil && fail.Status != 0 && fail.Status != http.StatusOK {
		writeError(w, fail.Status, fail.ErrorType, "scripted failure", fail.RetryAfter)
		return
	}
	t := fail
	if t == nil {
		k := assistants(params)
		s.mu.Lock()
		if k < len(s.Turns) {
			t = &s.Turns[k]
		} else {
			final := s.Final
			if final == "" {
				final = "All done."
			}
			t = &Turn{Text: final}
		}
		s.mu.Unlock()
	}
	model, _ := params["model"].(string)
	s.stream(w, r, t, model)
}

func assistants(params map[string]any) int {
	msgs, _ := params["messages"].([]any)
	n := 0
	for _, m := range msgs {
		if mm, ok := m.(map[string]any); ok && mm["role"] == "assistant" {
			n++
		}
	}
	return n
}

func writeError(w http.ResponseWriter, status int, typ, msg, retryAfter string) {
	if retryAfter != "" {
		w.Header().Set("retry-after", retryAfter)
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("request-id", "req_test")
	w.WriteHeader(status)
	b, _ := json.Marshal(map[string]any{"type": "error", "error": map[string]any{"type": typ, "message": msg}})
	w.Write(b)
}

// stream writes one turn as server-sent events.
func (s *Server) stream(w http.ResponseWriter, r *http.Request, t *Turn, model string) {
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	fl, _ := w.(http.Flusher)
	sent := 0
	ev := func(name string, data map[string]any) bool {
		if t.CutAfter > 0 && sent >= t.CutAfter {
			return false
		}
		data["type"] = name
		b, _ := json.Marshal(data)
		fmt.Fprintf(w, "event: %s\ndata: %s\n\n", name, b)
		if fl != nil {
			fl.Flush()
		}
		sent++
		return true
	}
	if t.ErrorType != "" {
		ev("error", map[string]any{"error": map[string]any{"type": t.ErrorType, "message": "scripted stream error"}})
		return
	}
	u := t.Usage
	if u == (Usage{}) {
		u = Usage{InputTokens: 100, OutputTokens: 10}
	}
	stop := "end_turn"
	if len(t.Calls) > 0 {
		stop = "tool_use"
	}
	if !ev("message_start", map[string]any{"message": map[string]any{
		"id": "msg_test", "type": "message", "role": "assistant", "model": model, "content": []any{},
		"stop_reason": nil, "stop_sequence": nil,
		"usage": map[string]any{"input_tokens": u.InputTokens, "output_tokens": 1,
			"cache_read_input_tokens": u.CacheRead, "cache_creation_input_tokens": u.CacheWrite},
	}}) {
		return
	}
	if t.Hang {
		<-r.Context().Done()
		return
	}
	ev("ping", map[string]any{})
	idx := 0
	if t.Text != "" {
		if !ev("content_block_start", map[string]any{"index": idx, "content_block": map[string]any{"type": "text", "text": ""}}) {
			return
		}
		for _, piece := range pieces(t.Text, 5) {
			if !ev("content_block_delta", map[string]any{"index": idx, "delta": map[string]any{"type": "text_delta", "text": piece}}) {
				return
			}
		}
		if !ev("content_block_stop", map[string]any{"index": idx}) {
			return
		}
		idx++
	}
	for i, c := range t.Calls {
		id := c.ID
		if id == "" {
			id = fmt.Sprintf("toolu_%d", i)
		}
		if !ev("content_block_start", map[string]any{"index": idx,
			"content_block": map[string]any{"type": "tool_use", "id": id, "name": c.Name, "input": map[string]any{}}}) {
			return
		}
		for _, piece := range pieces(c.Input, max(1, len(c.Input)/3)) {
			if !ev("content_block_delta", map[string]any{"index": idx, "delta": map[string]any{"type": "input_json_delta", "partial_json": piece}}) {
				return
			}
		}
		if !ev("content_block_stop", map[string]any{"index": idx}) {
			return
		}
		idx++
	}
	if !ev("message_delta", map[string]any{"delta": map[string]any{"stop_reason": stop, "stop_sequence": nil},
		"usage": map[string]any{"output_tokens": u.OutputTokens}}) {
		return
	}
	ev("message_stop", map[string]any{})
}

// pieces cuts s into pieces of about n bytes, never inside a character.
func pieces(s string, n int) []string {
	var out []string
	for len(s) > n {
		cut := n
		for cut > 1 && !utf8.RuneStart(s[cut]) {
			cut--
		}
		out = append(out, s[:cut])
		s = s[cut:]
	}
	if s != "" {
		out = append(out, s)
	}
	return out
}
