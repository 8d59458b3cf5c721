package replay

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"time"
)

// maxBody bounds the request bodies the Server reads.
const maxBody = 64 << 20

// RecordedRequest is one request the Server received on a chat-completions
// path, in arrival order.
type RecordedRequest struct {
	N      int // request number, from 1
	Method string
	Path   string
	Header http.Header
	Body   []byte // the raw body
	// Request is the decoded body; nil when it did not decode (DecodeError says why).
	Request     *ChatRequest
	DecodeError string
	// Turn is the number (from 1) of the turn that answered the request; 0
	// when the request was rejected or the script was exhausted.
	Turn int
	// Child is the match of the child script that answered it ("": the
	// top-level turns); Turn then counts that child's turns.
	Child string
}

// Server is an http.Handler speaking the OpenAI chat-completions protocol at
// /v1/chat/completions and /chat/completions, answering each request with the
// next turn of its script. It is safe for concurrent use; set OnRequest before
// serving.
type Server struct {
	play *player

	// OnRequest, if set, is called with the request number (from 1) before
	// request n is answered. Crash tests use it to kill or signal the agent at
	// a precise point.
	OnRequest func(n int)
	// OnTurn, if set, is called once the turn answering r is chosen, before
	// anything is written: child is the match of its child script ("" for
	// the top-level turns) and turn its number (from 1; 0: exhausted). It
	// runs in r's handler, so it may hold the answer back.
	OnTurn func(r *http.Request, child string, turn int)

	mu        sync.Mutex
	models    []string // SetModels: what GET /v1/models lists
	reqs      []RecordedRequest
	quit      chan struct{}
	closeOnce sync.Once
}

// NewServer returns a Server playing s.
func NewServer(s *Script) *Server {
	return &Server{play: newPlayer(s), quit: make(chan struct{})}
}

// Requests returns copies of the requests received so far.
func (s *Server) Requests() []RecordedRequest {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]RecordedRequest, len(s.reqs))
	for i, r := range s.reqs {
		r.Header = r.Header.Clone()
		r.Body = append([]byte(nil), r.Body...)
		out[i] = r
	}
	return out
}

// Close releases the handlers hanging on a stall_after_chunks turn. Call it
// before closing the http.Server / httptest.Server that serves s.
func (s *Server) Close() {
	s.closeOnce.Do(func() { close(s.quit) })
}

// SetModels makes GET /v1/models (and /models) list names, as an
// OpenAI-compatible endpoint does; without it the path is not found.
func (s *Server) SetModels(names ...string) {
	s.mu.Lock()
	s.models = append([]string(nil), names...)
	s.mu.Unlock()
}

// serveModels answers the model list, if SetModels gave one.
func (s *Server) serveModels(w http.ResponseWriter, r *http.Request) bool {
	if r.Method != http.MethodGet || (r.URL.Path != "/v1/models" && r.URL.Path != "/models") {
		return false
	}
	s.mu.Lock()
	names := s.models
	s.mu.Unlock()
	if names == nil {
		return false
	}
	type entry struct {
		ID     string `json:"id"`
		Object string `json:"object"`
	}
	list := struct {
		Object string  `json:"object"`
		Data   []entry `json:"data"`
	}{Object: "list", Data: []entry{}}
	for _, n := range names {
		list.Data = append(list.Data, entry{ID: n, Object: "model"})
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(list)
	return true
}

// ServeHTTP implements http.Handler.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if s.serveModels(w, r) {
		return
	}
	if r.URL.Path != "/v1/chat/completions" && r.URL.Path != "/chat/completions" {
		writeError(w, http.StatusNotFound, fmt.Sprintf("Invalid URL (%s %s)", r.Method, r.URL.Path))
		return
	}
	if r.Method != http.MethodPost {
		writeError(w, http.StatusMethodNotAllowed, fmt.Sprintf("Invalid method for URL (%s %s)", r.Method, r.URL.Path))
		return
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, maxBody))
	if err != nil {
		writeError(w, http.StatusBadRequest, "could not read the request body: "+err.Error())
		return
	}
	n := s.play.begin()
	rec := RecordedRequest{N: n, Method: r.Method, Path: r.URL.Path, Header: r.Header.Clone(), Body: body}
	var cr ChatRequest
	if err := json.Unmarshal(body, &cr); err != nil {
		rec.DecodeError = err.Error()
	} else {
		rec.Request = &cr
	}
	s.mu.Lock()
	s.reqs = append(s.reqs, rec)
	idx := len(s.reqs) - 1
	s.mu.Unlock()
	if s.OnRequest != nil {
		s.OnRequest(n)
	}

	if rec.Request == nil {
		s.play.mismatch("request %d: undecodable body: %s", n, rec.DecodeError)
		writeError(w, http.StatusBadRequest, "We could not parse the JSON body of your request. ("+rec.DecodeError+")")
		return
	}
	if cr.Model == "" {
		s.play.mismatch("request %d: no model", n)
		writeError(w, http.StatusBadRequest, "you must provide a model parameter")
		return
	}
	msgs, tools := cr.view()
	if err := s.play.check(n, msgs, tools); err != nil {
		writeError(w, http.StatusBadRequest, err.Error())
		return
	}
	child, turnNo, t := s.play.pick(n, msgs, body)
	s.mu.Lock()
	s.reqs[idx].Turn, s.reqs[idx].Child = turnNo, child
	s.mu.Unlock()
	if s.OnTurn != nil {
		s.OnTurn(r, child, turnNo)
	}

	if t.DelayMS > 0 {
		wait := time.NewTimer(time.Duration(t.DelayMS) * time.Millisecond)
		defer wait.Stop()
		select {
		case <-wait.C:
		case <-r.Context().Done():
			return
		case <-s.quit:
			return
		}
	}
	if t.HTTPStatus != 0 {
		if t.RetryAfter != "" {
			w.Header().Set("Retry-After", t.RetryAfter)
		}
		writeError(w, t.HTTPStatus, t.errorMessage())
		return
	}
	id := fmt.Sprintf("chatcmpl-replay-%d", n)
	created := time.Now().Unix()
	if !cr.Stream {
		s.complete(w, r, &t, id, cr.Model, created)
		return
	}
	s.stream(w, r, &t, id, cr.Model, created, cr.StreamOptions != nil && cr.StreamOptions.IncludeUsage)
}

// stream writes the turn as SSE chunks, then data: [DONE].
func (s *Server) stream(w http.ResponseWriter, r *http.Request, t *Turn, id, model string, created int64, includeUsage bool) {
	flusher, _ := w.(http.Flusher)
	flush := func() {
		if flusher != nil {
			flusher.Flush()
		}
	}
	h := w.Header()
	h.Set("Content-Type", "text/event-stream; charset=utf-8")
	h.Set("Cache-Control", "no-cache")
	h.Set("Connection", "keep-alive")
	w.WriteHeader(http.StatusOK)
	flush()

	parts := plan(t, includeUsage)
	for i := 0; ; i++ {
		if s.interrupt(r.Context(), t, i, flush) {
			return
		}
		if i == len(parts) {
			break
		}
		if parts[i].kind == partBad {
			_, _ = fmt.Fprintf(w, "data: %s\n\n", parts[i].text)
			flush()
			return
		}
		b, err := json.Marshal(chunkFor(parts[i], id, model, created, includeUsage))
		if err != nil {
			panic(fmt.Sprintf("replay: encoding a chunk: %v", err)) // our own types: cannot happen
		}
		if parts[i].object {
			b = argsAsObject(b, parts[i].text)
		}
		if _, err := fmt.Fprintf(w, "data: %s\n\n", b); err != nil {
			return
		}
		flush()
	}
	_, _ = io.WriteString(w, "data: [DONE]\n\n")
	flush()
}

// argsAsObject puts a tool-call chunk's arguments in as a JSON value (the
// dialect of llama.cpp and Ollama).
func argsAsObject(chunk []byte, args string) []byte {
	var c map[string]any
	if json.Unmarshal(chunk, &c) != nil {
		return chunk
	}
	choices, _ := c["choices"].([]any)
	for _, ch := range choices {
		delta, _ := ch.(map[string]any)["delta"].(map[string]any)
		calls, _ := delta["tool_calls"].([]any)
		for _, tc := range calls {
			if fn, ok := tc.(map[string]any)["function"].(map[string]any); ok {
				fn["arguments"] = json.RawMessage(args)
			}
		}
	}
	out, err := json.Marshal(c)
	if err != nil {
		return chunk
	}
	return out
}

// interrupt applies stall_after_chunks / drop_after_chunks before chunk i (i
// == len(parts) is the [DONE] line). It reports whether the handler must stop.
func (s *Server) interrupt(ctx context.Context, t *Turn, i int, flush func()) bool {
	switch {
	case t.StallAfterChunks != nil && *t.StallAfterChunks == i:
		flush()
		select {
		case <-ctx.Done():
		case <-s.quit:
		}
		return true
	case t.DropAfterChunks != nil && *t.DropAfterChunks == i:
		flush()
		panic(http.ErrAbortHandler) // net/http cuts the connection without ending the body
	}
	return ctx.Err() != nil
}

// complete writes the turn as one non-streaming response.
func (s *Server) complete(w http.ResponseWriter, r *http.Request, t *Turn, id, model string, created int64) {
	if s.interrupt(r.Context(), t, 0, func() {}) {
		return
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(completionFor(t, id, model, created))
}

func writeError(w http.ResponseWriter, status int, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(errorBody(status, msg))
}

// TB is the part of testing.TB that Start needs (so that this package does
// not import "testing" into binaries).
type TB interface {
	Helper()
	Cleanup(func())
}

// Start serves s on a loopback httptest server for the duration of the test
// and returns the Server and the base URL to give the openai adapter
// (".../v1"). Cleanup releases stalled handlers and closes the listener.
func Start(tb TB, s *Script) (*Server, string) {
	tb.Helper()
	srv := NewServer(s)
	hs := httptest.NewServer(srv)
	tb.Cleanup(func() {
		srv.Close()
		hs.Close()
	})
	return srv, hs.URL + "/v1"
}

// ListenAndServe serves s on addr, which must be a loopback address (an empty
// host means 127.0.0.1), until ctx is done. For manual runs:
// OPENAI_BASE_URL=http://ADDR/v1.
func ListenAndServe(ctx context.Context, addr string, s *Script) error {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("replay: listen address %q: %w", addr, err)
	}
	if host == "" {
		host = "127.0.0.1"
	}
	if !isLoopback(host) {
		return fmt.Errorf("replay: refusing to listen on %q: only loopback addresses (127.0.0.1, ::1, localhost) are allowed", addr)
	}
	ln, err := net.Listen("tcp", net.JoinHostPort(host, port))
	if err != nil {
		return fmt.Errorf("replay: %w", err)
	}
	return Serve(ctx, ln, NewServer(s))
}

// Serve serves srv on ln until ctx is done, then shuts down and returns nil.
func Serve(ctx context.Context, ln net.Listener, srv *Server) error {
	hs := &http.Server{Handler: srv, ReadHeaderTimeout: 10 * time.Second}
	errc := make(chan error, 1)
	go func() { errc <- hs.Serve(ln) }()
	select {
	case err := <-errc:
		return fmt.Errorf("replay: %w", err)
	case <-ctx.Done():
	}
	srv.Close()
	sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := hs.Shutdown(sctx); err != nil {
		_ = hs.Close()
	}
	if err := <-errc; err != nil && !errors.Is(err, http.ErrServerClosed) {
		return fmt.Errorf("replay: %w", err)
	}
	return nil
}

func isLoopback(host string) bool {
	h := strings.ToLower(strings.Trim(host, "[]"))
	if h == "localhost" {
		return true
	}
	ip := net.ParseIP(h)
	return ip != nil && ip.IsLoopback()
}

// Mismatches returns what went differently than scripted: failed expect
// checks, conversations rejected like OpenAI would, requests after the script
// ran out.
func (s *Server) Mismatches() []string { return s.play.list() }

// Err joins the mismatches into one error; nil when everything went as scripted.
func (s *Server) Err() error { return s.play.err() }

// Remaining is the number of top-level turns not played yet.
func (s *Server) Remaining() int { return s.play.remaining() }

// UnplayedChildren are the matches of the child scripts no request was
// answered from (a subagent that never started), in script order.
func (s *Server) UnplayedChildren() []string { return s.play.unplayedChildren() }
