package evals

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"slices"
	"strings"
	"sync"
	"time"

	"agent/internal/replay"
)

// stallChunks is how many chunks a turn a stream fault kills during sends
// before it hangs.
const stallChunks = 2

// oneChunk is a chunk size larger than any turn: text and arguments whole.
const oneChunk = 1 << 30

// prepareScript applies the task's server quirks to a copy of its script and,
// for a stream fault at turn K, inserts before turn K a copy that stalls
// mid-stream: the agent is killed while it streams, and the resumed run is
// answered with turn K as written. It returns the played turn number (from
// 1) of each stalled copy by the index of its fault in t.Faults. A child's
// stream fault makes its turn K stall (a child plays it once, then as
// written): its played number is K.
func prepareScript(t *Task) (*replay.Script, map[int]int) {
	s := &replay.Script{Lenient: t.Script.Lenient, Turns: slices.Clone(t.Script.Turns)}
	withQuirks(t, s.Turns)
	for _, c := range t.Script.Children {
		c.Turns = slices.Clone(c.Turns)
		withQuirks(t, c.Turns)
		s.Children = append(s.Children, c)
	}
	stalled := map[int]int{}
	for fi, f := range t.Faults {
		if f.At != AtStream || f.Child == "" {
			continue
		}
		for ci := range s.Children {
			if c := &s.Children[ci]; c.Match == f.Child {
				n := stallChunks
				c.Turns[f.Turn-1].StallAfterChunks, c.Turns[f.Turn-1].DropAfterChunks = &n, nil
				stalled[fi] = f.Turn
			}
		}
	}
	turns := s.Turns
	s.Turns = nil
	for i, tu := range turns {
		for fi, f := range t.Faults {
			if f.At != AtStream || f.Child != "" || f.Turn != i+1 {
				continue
			}
			cp := tu
			n := stallChunks
			cp.StallAfterChunks, cp.DropAfterChunks, cp.Expect = &n, nil, nil
			s.Turns = append(s.Turns, cp)
			stalled[fi] = len(s.Turns)
		}
		s.Turns = append(s.Turns, tu)
	}
	return s, stalled
}

// withQuirks applies the task's server quirks to turns, in place.
func withQuirks(t *Task, turns []replay.Turn) {
	for i := range turns {
		tu := &turns[i]
		if len(tu.ToolCalls) > 0 {
			if slices.Contains(t.Server.Quirks, QuirkFinishStop) && tu.FinishReason == "" {
				tu.FinishReason = "stop"
			}
			if slices.Contains(t.Server.Quirks, QuirkArgsObject) {
				tu.ArgsObject = true
			}
		}
		if slices.Contains(t.Server.Quirks, QuirkOneChunk) && tu.ChunkSize == 0 {
			tu.ChunkSize = oneChunk
		}
	}
}

// modelServer is the local chat-completions server of one task: the replay
// Server behind a layer that speaks the task's dialect quirks and fires the
// stream faults.
type modelServer struct {
	srv    *replay.Server
	hs     *http.Server
	ln     net.Listener
	url    string
	noID   bool
	noIdx  bool
	mu     sync.Mutex
	onTurn func(child string, turn int) // called as a turn's bytes go out
	done   chan error
}

// writerKey is the request context key of a request's quirkWriter.
type writerKey struct{}

// startServer serves script; par, if not nil, holds the children's first
// requests (subagents_parallel).
func startServer(t *Task, script *replay.Script, par *barrier) (*modelServer, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("start the local model server: %w", err)
	}
	m := &modelServer{srv: replay.NewServer(script), ln: ln, url: "http://" + ln.Addr().String() + "/v1",
		noID: slices.Contains(t.Server.Quirks, QuirkNoID), noIdx: slices.Contains(t.Server.Quirks, QuirkNoIndex),
		done: make(chan error, 1)}
	m.srv.OnTurn = func(r *http.Request, child string, turn int) {
		if qw, ok := r.Context().Value(writerKey{}).(*quirkWriter); ok {
			qw.child, qw.turn = child, turn
		}
		if par != nil {
			par.onTurn(r, child, turn)
		}
	}
	m.hs = &http.Server{Handler: m, ReadHeaderTimeout: 10 * time.Second}
	go func() { m.done <- m.hs.Serve(ln) }()
	return m, nil
}

// setOnTurn sets the callback of outgoing turns (nil: none).
func (m *modelServer) setOnTurn(f func(string, int)) {
	m.mu.Lock()
	m.onTurn = f
	m.mu.Unlock()
}

func (m *modelServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	qw := &quirkWriter{ResponseWriter: w, m: m}
	m.srv.ServeHTTP(qw, r.WithContext(context.WithValue(r.Context(), writerKey{}, qw)))
	qw.flushPending()
}

// close stops the server and releases stalled handlers.
func (m *modelServer) close() {
	m.srv.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := m.hs.Shutdown(ctx); err != nil {
		_ = m.hs.Close()
	}
	<-m.done
}

// quirkWriter rewrites the SSE events of a response for the no-id and
// no-index dialects, and reports each write to the stream-fault callback.
type quirkWriter struct {
	http.ResponseWriter
	m       *modelServer
	pending []byte
	child   string // the turn answering this request (replay.Server.OnTurn)
	turn    int
}

func (q *quirkWriter) Write(b []byte) (int, error) {
	q.m.mu.Lock()
	on := q.m.onTurn
	q.m.mu.Unlock()
	if on != nil {
		defer on(q.child, q.turn)
	}
	if !q.m.noID && !q.m.noIdx {
		return q.ResponseWriter.Write(b)
	}
	q.pending = append(q.pending, b...)
	for {
		i := bytes.Index(q.pending, []byte("\n\n"))
		if i < 0 {
			break
		}
		ev := q.pending[:i+2]
		if _, err := q.ResponseWriter.Write(q.rewrite(ev)); err != nil {
			return 0, err
		}
		q.pending = q.pending[i+2:]
	}
	return len(b), nil
}

func (q *quirkWriter) flushPending() {
	if len(q.pending) > 0 {
		_, _ = q.ResponseWriter.Write(q.pending)
		q.pending = nil
	}
}

// Flush implements http.Flusher.
func (q *quirkWriter) Flush() {
	if f, ok := q.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

// rewrite drops the id and/or index of the tool-call deltas of one SSE event.
func (q *quirkWriter) rewrite(ev []byte) []byte {
	data, ok := bytes.CutPrefix(ev, []byte("data: "))
	if !ok {
		return ev
	}
	data = bytes.TrimSpace(data)
	var c map[string]any
	if json.Unmarshal(data, &c) != nil {
		return ev
	}
	choices, _ := c["choices"].([]any)
	for _, ch := range choices {
		delta, _ := ch.(map[string]any)["delta"].(map[string]any)
		calls, _ := delta["tool_calls"].([]any)
		for _, tc := range calls {
			if call, ok := tc.(map[string]any); ok {
				if q.m.noID {
					delete(call, "id")
				}
				if q.m.noIdx {
					delete(call, "index")
				}
			}
		}
	}
	out, err := json.Marshal(c)
	if err != nil {
		return ev
	}
	return []byte("data: " + string(out) + "\n\n")
}

// requestsContain reports the first secret some request body holds.
func (m *modelServer) requestsContain(secrets []string) (string, int, bool) {
	for _, r := range m.srv.Requests() {
		for _, s := range secrets {
			if strings.Contains(string(r.Body), s) {
				return s, r.N, true
			}
		}
	}
	return "", 0, false
}

// mismatches are what went differently from the script.
func (m *modelServer) mismatches() []string { return m.srv.Mismatches() }
