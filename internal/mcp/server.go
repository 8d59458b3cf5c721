package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"agent/internal/tools"
)

// server is one configured server: its connection, once started, and the
// tools it offered.
type server struct {
	cfg ServerConfig
	opt *Options

	// set by load, before Tools returns; read-only afterwards
	tools    []tools.Tool
	listed   []ToolStatus
	warnings []string

	startMu  sync.Mutex // serialises restarts
	mu       sync.Mutex
	state    State
	err      error
	sess     *sdk.ClientSession
	proc     *process      // stdio only
	done     chan struct{} // closed when sess has ended
	restarts int
	closed   bool
}

func (s *server) transport() string {
	if s.cfg.URL != "" {
		return "http"
	}
	return "stdio"
}

func (s *server) target() string {
	if s.cfg.URL != "" {
		return s.cfg.URL
	}
	return strings.Join(append([]string{s.cfg.Command}, s.cfg.Args...), " ")
}

func (s *server) setState(st State, err error) {
	s.mu.Lock()
	s.state, s.err = st, err
	s.mu.Unlock()
}

func (s *server) status() Status {
	s.mu.Lock()
	defer s.mu.Unlock()
	st := Status{Name: s.cfg.Name, Transport: s.transport(), Target: s.target(), State: s.state, Tools: s.listed}
	if s.err != nil {
		st.Err = s.err.Error()
	}
	return st
}

// load starts the server and lists its tools.
func (s *server) load(ctx context.Context) {
	fail := func(err error) {
		s.setState(StateFailed, err)
		s.warnings = append(s.warnings, fmt.Sprintf("MCP server %q is not available, its tools are not offered: %v", s.cfg.Name, err))
	}
	if s.cfg.Problem != "" {
		fail(errors.New(s.cfg.Problem))
		return
	}
	sctx, cancel := context.WithTimeout(ctx, s.cfg.StartupTimeout)
	defer cancel()
	if err := s.connect(sctx); err != nil {
		fail(err)
		return
	}
	s.mu.Lock()
	sess := s.sess
	s.mu.Unlock()
	var listed []*sdk.Tool
	for t, err := range sess.Tools(sctx, nil) {
		if err != nil {
			fail(s.explain(sctx, "list its tools", err))
			s.close()
			s.setState(StateFailed, s.err) // close must not hide why
			return
		}
		if len(listed) == MaxTools {
			s.warnings = append(s.warnings, fmt.Sprintf("MCP server %q offers more than %d tools; only the first %d are taken", s.cfg.Name, MaxTools, MaxTools))
			break
		}
		listed = append(listed, t)
	}
	seen := map[string]bool{}
	var st []ToolStatus
	for _, t := range listed {
		tool, err := newTool(s, t, seen)
		if err != nil {
			st = append(st, ToolStatus{Name: toolLabel(s.cfg.Name, t), Refused: err.Error()})
			s.warnings = append(s.warnings, fmt.Sprintf("MCP server %q: tool %s refused: %v", s.cfg.Name, quoteName(t), err))
			continue
		}
		s.tools = append(s.tools, tool)
		st = append(st, ToolStatus{Name: tool.Name(), Risk: string(tool.Risk())})
	}
	s.mu.Lock()
	s.listed = st
	s.mu.Unlock()
	for _, name := range s.cfg.ReadOnly {
		if !seen[name] {
			s.warnings = append(s.warnings, fmt.Sprintf("MCP server %q has no tool %q (named in read_only_tools)", s.cfg.Name, name))
		}
	}
}

// connect starts the server (stdio) or opens the session (HTTP) and
// watches it end.
func (s *server) connect(ctx context.Context) error {
	client := sdk.NewClient(&sdk.Implementation{Name: "agent", Version: s.opt.Version},
		&sdk.ClientOptions{Capabilities: &sdk.ClientCapabilities{}})
	var tr sdk.Transport
	var p *process
	if s.cfg.URL != "" {
		// A refusal of the credentials ends the start at once (the SDK
		// would wait for the timeout), and says so.
		cctx, cancel := context.WithCancelCause(ctx)
		defer cancel(nil)
		ctx = cctx
		ht := &headerTransport{base: http.DefaultTransport, headers: s.cfg.Headers, refused: cancel}
		defer ht.started.Store(true)
		tr = &sdk.StreamableClientTransport{
			Endpoint:             s.cfg.URL,
			HTTPClient:           &http.Client{Transport: ht},
			MaxRetries:           -1,
			DisableStandaloneSSE: true,
		}
	} else {
		var err error
		p, err = startProcess(s.cfg, s.opt)
		if err != nil {
			return err
		}
		// The process's reader enforces the message limit (and says so).
		tr = &sdk.IOTransport{Reader: p.reader(), Writer: p.stdin, MaxLineLength: -1}
	}
	sess, err := client.Connect(ctx, tr, nil)
	if err != nil {
		if p != nil {
			p.stop()
		}
		return s.explainStart(ctx, p, err)
	}
	done := make(chan struct{})
	s.mu.Lock()
	if s.closed { // Close came first
		s.mu.Unlock()
		_ = sess.Close()
		if p != nil {
			p.stop()
		}
		return errors.New("closed")
	}
	s.sess, s.proc, s.done, s.state, s.err = sess, p, done, StateRunning, nil
	s.mu.Unlock()
	go func() {
		_ = sess.Wait()
		why := s.endedErr(p) // waits for the process, so its exit status is known
		s.mu.Lock()
		if s.sess == sess && !s.closed {
			s.state, s.err = StateExited, why
		}
		s.mu.Unlock()
		close(done) // after the error is set: a call that sees done reads it
	}()
	if p != nil {
		go func() { // a stdio server that exits ends its session
			<-p.exited
			_ = sess.Close()
		}()
	}
	return nil
}

// explainStart says why a server did not start.
func (s *server) explainStart(ctx context.Context, p *process, err error) error {
	where := s.cfg.Origin
	if where == "" {
		where = "[mcp.servers." + s.cfg.Name + "]"
	}
	var refused *refusedError
	if errors.As(context.Cause(ctx), &refused) {
		return fmt.Errorf("%v; check url and headers in %s", refused, where)
	}
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return fmt.Errorf("it did not answer within %s (raise startup_timeout in %s)%s", s.cfg.StartupTimeout, where, p.stderrNote())
	}
	if tl := p.answerTooLarge(); tl != nil {
		return fmt.Errorf("%w (its first answers could not be read)", tl)
	}
	if p != nil && p.hasExited() {
		return fmt.Errorf("%s exited before it answered (%s)%s; check command and args in %s", s.cfg.Command, p.exitText(), p.stderrNote(), where)
	}
	return fmt.Errorf("it did not start: %w%s", err, p.stderrNote())
}

// explain says why a request failed.
func (s *server) explain(ctx context.Context, what string, err error) error {
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return fmt.Errorf("could not %s within %s", what, s.cfg.StartupTimeout)
	}
	return fmt.Errorf("could not %s: %w", what, err)
}

// endedErr is why a session ended by itself.
func (s *server) endedErr(p *process) error {
	if p != nil {
		<-p.exited
		if tl := p.answerTooLarge(); tl != nil {
			return fmt.Errorf("%w; it was stopped", tl)
		}
		return fmt.Errorf("the server exited (%s)%s", p.exitText(), p.stderrNote())
	}
	return errors.New("the server closed the connection")
}

// session returns a live session, starting the server again if it died.
func (s *server) session(ctx context.Context) (*sdk.ClientSession, chan struct{}, error) {
	s.mu.Lock()
	sess, done, closed, state, serr, p := s.sess, s.done, s.closed, s.state, s.err, s.proc
	s.mu.Unlock()
	if closed {
		return nil, nil, fmt.Errorf("MCP server %q was closed", s.cfg.Name)
	}
	if sess != nil {
		select {
		case <-done:
		default:
			if tl := p.answerTooLarge(); tl != nil { // broken, being stopped: start it again
				serr = tl
				break
			}
			return sess, done, nil
		}
	}
	if state == StateFailed && sess == nil {
		return nil, nil, fmt.Errorf("MCP server %q is not available: %v", s.cfg.Name, serr)
	}
	s.startMu.Lock() // one restart at a time
	defer s.startMu.Unlock()
	s.mu.Lock()
	if s.sess != sess { // another call started it again meanwhile
		sess, done = s.sess, s.done
		s.mu.Unlock()
		return sess, done, nil
	}
	if s.restarts >= maxRestarts {
		s.state = StateFailed
		s.mu.Unlock()
		return nil, nil, fmt.Errorf("MCP server %q exited %d times and is not started again in this session (last: %v)", s.cfg.Name, maxRestarts+1, serr)
	}
	s.restarts++
	old := s.proc
	s.mu.Unlock()
	old.stop()
	sctx, cancel := context.WithTimeout(ctx, s.cfg.StartupTimeout)
	defer cancel()
	if err := s.connect(sctx); err != nil {
		s.setState(StateFailed, err)
		return nil, nil, fmt.Errorf("MCP server %q exited earlier (%v) and could not start again: %w", s.cfg.Name, serr, err)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.sess, s.done, nil
}

// call calls one of the server's tools within the tool timeout.
func (s *server) call(ctx context.Context, name string, args json.RawMessage) (*sdk.CallToolResult, error) {
	sess, done, err := s.session(ctx)
	if err != nil {
		return nil, err
	}
	cctx, cancel := context.WithTimeout(ctx, s.cfg.ToolTimeout)
	defer cancel()
	res, err := sess.CallTool(cctx, &sdk.CallToolParams{Name: name, Arguments: args})
	if err == nil {
		return res, nil
	}
	switch {
	case ctx.Err() != nil:
		return nil, fmt.Errorf("MCP server %q: call cancelled: %w", s.cfg.Name, ctx.Err())
	case errors.Is(cctx.Err(), context.DeadlineExceeded):
		return nil, fmt.Errorf("MCP server %q did not answer within %s; the call was cancelled (tool_timeout in [mcp.servers.%s])",
			s.cfg.Name, s.cfg.ToolTimeout, s.cfg.Name)
	}
	var rpcErr *jsonrpc.Error
	if errors.As(err, &rpcErr) {
		return nil, fmt.Errorf("MCP server %q refused the call: %s", s.cfg.Name, rpcErr.Message)
	}
	s.mu.Lock()
	p := s.proc
	s.mu.Unlock()
	if tl := p.answerTooLarge(); tl != nil {
		// It ran the call and answered; the answer could not be read. The
		// server is stopped and started again for the next call.
		return nil, fmt.Errorf("MCP server %q: %w; the tool ran but its result was not read (the server is started again "+
			"for the next call): ask it for less, e.g. with narrower arguments", s.cfg.Name, tl)
	}
	// The connection failed: did the server die? Give it a moment to be seen.
	t := time.NewTimer(2 * time.Second)
	defer t.Stop()
	select {
	case <-done:
		s.mu.Lock()
		why := s.err
		s.mu.Unlock()
		return nil, fmt.Errorf("MCP server %q died during the call, whose outcome is unknown: %v", s.cfg.Name, why)
	case <-t.C:
	}
	return nil, fmt.Errorf("MCP server %q: %w", s.cfg.Name, err)
}

// close ends the session and stops the process.
func (s *server) close() {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return
	}
	s.closed = true
	sess, p := s.sess, s.proc
	if s.state == StateRunning || s.state == StateExited {
		s.state = StateClosed
	}
	s.mu.Unlock()
	if sess != nil {
		_ = sess.Close()
	}
	if p != nil {
		p.stop()
	}
}

// headerTransport adds the configured headers to every request, and
// reports a refusal of them while the session starts.
type headerTransport struct {
	base    http.RoundTripper
	headers map[string]string
	refused context.CancelCauseFunc
	started atomic.Bool
}

// refusedError is an HTTP server's refusal of the client's credentials.
type refusedError struct{ status string }

func (e *refusedError) Error() string { return "the server answered " + e.status }

func (h *headerTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	if len(h.headers) > 0 {
		req = req.Clone(req.Context())
		for k, v := range h.headers {
			req.Header.Set(k, v)
		}
	}
	resp, err := h.base.RoundTrip(req)
	if err == nil && !h.started.Load() && (resp.StatusCode == http.StatusUnauthorized || resp.StatusCode == http.StatusForbidden) {
		h.refused(&refusedError{status: resp.Status})
	}
	return resp, err
}
