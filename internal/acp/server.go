package acp

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	sdk "github.com/coder/acp-go-sdk"

	"agent/internal/app"
	"agent/internal/config"
	"agent/internal/event"
)

// server is the ACP agent: the sessions of one editor connection.
type server struct {
	ctx  context.Context // ends when the editor goes away
	opt  Options
	log  *slog.Logger
	conn *sdk.AgentSideConnection

	mu       sync.Mutex
	sessions map[string]*session
	closed   bool
	prompts  sync.WaitGroup // prompts being driven
}

var (
	_ sdk.Agent                  = (*server)(nil)
	_ sdk.AgentLoader            = (*server)(nil)
	_ sdk.ExtensionMethodHandler = (*server)(nil)
)

func newServer(ctx context.Context, opt Options, log *slog.Logger) *server {
	return &server{ctx: ctx, opt: opt, log: log, sessions: map[string]*session{}}
}

// shutdown waits for the prompts (interrupted by then) and closes every
// session.
func (s *server) shutdown() {
	s.prompts.Wait()
	s.mu.Lock()
	s.closed = true
	ss := s.sessions
	s.sessions = map[string]*session{}
	s.mu.Unlock()
	for _, ss := range ss {
		ss.close()
	}
}

// Errors the editor sees: the message says what to do.
func errUnknownSession(id sdk.SessionId) error {
	return &sdk.RequestError{Code: -32602, Message: fmt.Sprintf("unknown session %q: create one with session/new or load it with session/load", id)}
}

func errInvalid(format string, a ...any) error {
	return &sdk.RequestError{Code: -32602, Message: fmt.Sprintf(format, a...)}
}

func errState(format string, a ...any) error {
	return &sdk.RequestError{Code: -32000, Message: fmt.Sprintf(format, a...)}
}

// fromApp turns an application error into a JSON-RPC error: a person's
// mistake (a *UsageError) is invalid params, anything else internal.
func fromApp(err error) error {
	if err == nil {
		return nil
	}
	var re *sdk.RequestError
	if errors.As(err, &re) {
		return re
	}
	var ue *app.UsageError
	if errors.As(err, &ue) || app.IsNotFound(err) {
		return &sdk.RequestError{Code: -32602, Message: err.Error()}
	}
	return &sdk.RequestError{Code: -32603, Message: err.Error()}
}

func (s *server) session(id sdk.SessionId) (*session, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	ss, ok := s.sessions[string(id)]
	if !ok {
		return nil, errUnknownSession(id)
	}
	return ss, nil
}

// Initialize implements sdk.Agent.
func (s *server) Initialize(_ context.Context, p sdk.InitializeRequest) (sdk.InitializeResponse, error) {
	v := sdk.ProtocolVersion(sdk.ProtocolVersionNumber)
	if p.ProtocolVersion < v {
		v = p.ProtocolVersion
	}
	ver := s.opt.Version
	if ver == "" {
		ver = "dev"
	}
	return sdk.InitializeResponse{
		ProtocolVersion: v,
		AgentInfo:       &sdk.Implementation{Name: "agent", Version: ver},
		AuthMethods:     []sdk.AuthMethod{},
		AgentCapabilities: sdk.AgentCapabilities{
			LoadSession:         true,
			PromptCapabilities:  sdk.PromptCapabilities{EmbeddedContext: true},
			McpCapabilities:     sdk.McpCapabilities{Http: true},
			SessionCapabilities: sdk.SessionCapabilities{List: &sdk.SessionListCapabilities{}},
		},
	}, nil
}

// Authenticate implements sdk.Agent: the provider's key comes from the
// environment or the config file (no ACP auth method is offered).
func (s *server) Authenticate(context.Context, sdk.AuthenticateRequest) (sdk.AuthenticateResponse, error) {
	return sdk.AuthenticateResponse{}, errInvalid("agent offers no ACP authentication: set the provider's API key (OPENAI_API_KEY or ANTHROPIC_API_KEY) in the environment of `agent acp`, or api_key in its config file")
}

// NewSession implements sdk.Agent: a session in the editor's workspace;
// its run starts with the first prompt.
func (s *server) NewSession(ctx context.Context, p sdk.NewSessionRequest) (sdk.NewSessionResponse, error) {
	if !filepath.IsAbs(p.Cwd) {
		return sdk.NewSessionResponse{}, errInvalid("cwd %q is not an absolute path", p.Cwd)
	}
	id, err := newSessionID()
	if err != nil {
		return sdk.NewSessionResponse{}, err
	}
	ss, err := s.open(ctx, id, p.Cwd, p.McpServers, nil, "")
	if err != nil {
		return sdk.NewSessionResponse{}, err
	}
	return sdk.NewSessionResponse{SessionId: sdk.SessionId(id), Modes: ss.modes()}, nil
}

// open makes a session's application service for workspace cwd.
func (s *server) open(ctx context.Context, id, cwd string, servers []sdk.McpServer, prior *app.Prior, priorSandbox string) (*session, error) {
	f := s.opt.Flags
	f.Dir, f.PriorSandbox = cwd, priorSandbox
	set, warnings, err := app.LoadSettings(f, prior)
	if err != nil {
		return nil, fromApp(err)
	}
	for _, w := range warnings {
		s.log.Warn(w)
	}
	extra, err := mcpServers(servers)
	if err != nil {
		return nil, err
	}
	set.MCPServers = append(set.MCPServers, extra...)
	ss := &session{id: id, srv: s, mode: set.Approval, noGit: !inGit(set.Workspace)}
	svc, err := app.Open(ctx, app.Options{Settings: set, Decides: true, Warn: func(m string) { s.log.Warn(m, "session", id) }})
	if err != nil {
		return nil, fromApp(err)
	}
	ss.svc = svc
	ss.tr = newTranslator(ss)
	ss.unsub = svc.Subscribe(ss.onUpdate)
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		ss.close()
		return nil, errState("agent acp is shutting down")
	}
	if _, dup := s.sessions[id]; dup {
		ss.close()
		return nil, errState("session %s is open already in this process", id)
	}
	s.sessions[id] = ss
	return ss, nil
}

// mcpServers are the editor's MCP servers as our MCP client's config: they
// run under the same approvals (every tool an exec call that asks), the
// same sandbox rules and the same journal as the configured ones.
func mcpServers(in []sdk.McpServer) ([]config.MCPServer, error) {
	var out []config.MCPServer
	for _, m := range in {
		switch {
		case m.Stdio != nil:
			env := map[string]string{}
			for _, e := range m.Stdio.Env {
				env[e.Name] = e.Value
			}
			out = append(out, config.MCPServer{Name: m.Stdio.Name, Command: m.Stdio.Command, Args: m.Stdio.Args, Env: env, Enabled: true})
		case m.Http != nil:
			h := map[string]string{}
			for _, e := range m.Http.Headers {
				h[e.Name] = e.Value
			}
			out = append(out, config.MCPServer{Name: m.Http.Name, URL: m.Http.Url, Headers: h, Enabled: true})
		default:
			return nil, errInvalid("mcpServers: only stdio and http servers are supported (not sse)")
		}
	}
	return out, nil
}

// inGit reports whether dir is inside a git work tree.
func inGit(dir string) bool {
	for d := dir; ; {
		if _, err := os.Stat(filepath.Join(d, ".git")); err == nil {
			return true
		}
		parent := filepath.Dir(d)
		if parent == d {
			return false
		}
		d = parent
	}
}

func newSessionID() (string, error) {
	var b [12]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", fmt.Errorf("session id: %w", err)
	}
	return "acp-" + hex.EncodeToString(b[:]), nil
}

// safeID: 1-128 bytes of [A-Za-z0-9_.-], starting with a letter or digit
// (a function: the equivalent regexp's bounded repetition cost ~1 ms to
// compile at every start of the binary).
func safeID(id string) bool {
	if id == "" || len(id) > 128 {
		return false
	}
	for i := 0; i < len(id); i++ {
		c := id[i]
		alnum := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
		if !alnum && (i == 0 || c != '_' && c != '.' && c != '-') {
			return false
		}
	}
	return true
}

// sessionFile records which run an ACP session drives, so that
// session/load finds it in a later process.
func sessionFile(id string) (string, error) {
	home, err := app.StateHome()
	if err != nil {
		return "", err
	}
	return filepath.Join(home, "acp-sessions", id), nil
}

func rememberRun(sessionID, runID string) error {
	p, err := sessionFile(sessionID)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
		return fmt.Errorf("record session %s: %w", sessionID, err)
	}
	if err := os.WriteFile(p, []byte(runID+"\n"), 0o600); err != nil {
		return fmt.Errorf("record session %s: %w", sessionID, err)
	}
	return nil
}

// runOf is the run of session id: the one recorded for it, else id itself
// (any run of the journal can be loaded by its id).
func runOf(id string) string {
	if p, err := sessionFile(id); err == nil {
		if b, err := os.ReadFile(p); err == nil {
			if r := strings.TrimSpace(string(b)); r != "" {
				return r
			}
		}
	}
	return id
}

// LoadSession implements sdk.AgentLoader: the run's journal replays as
// session/update notifications; the run is then prepared as `agent resume`
// prepares it (an interrupted command is not run again: the model is told
// its outcome is unknown) and the next prompt continues it.
func (s *server) LoadSession(ctx context.Context, p sdk.LoadSessionRequest) (sdk.LoadSessionResponse, error) {
	id := string(p.SessionId)
	if !safeID(id) {
		return sdk.LoadSessionResponse{}, errUnknownSession(p.SessionId)
	}
	if _, err := s.session(p.SessionId); err == nil {
		return sdk.LoadSessionResponse{}, errState("session %s is open already in this process", id)
	}
	home, err := app.OpenHome(ctx, "")
	if err != nil {
		return sdk.LoadSessionResponse{}, fromApp(err)
	}
	peek, err := home.Peek(ctx, runOf(id))
	home.Close()
	if err != nil {
		if app.IsNotFound(err) {
			return sdk.LoadSessionResponse{}, errUnknownSession(p.SessionId)
		}
		return sdk.LoadSessionResponse{}, fromApp(err)
	}
	cwd := peek.Run.Workspace
	if cwd == "" {
		cwd = p.Cwd
	}
	ss, err := s.open(ctx, id, cwd, p.McpServers, peek.Prior, peek.Sandbox)
	if err != nil {
		return sdk.LoadSessionResponse{}, err
	}
	if err := ss.load(ctx, peek.Run.ID); err != nil {
		s.drop(ss)
		return sdk.LoadSessionResponse{}, err
	}
	return sdk.LoadSessionResponse{Modes: ss.modes()}, nil
}

func (s *server) drop(ss *session) {
	s.mu.Lock()
	if s.sessions[ss.id] == ss {
		delete(s.sessions, ss.id)
	}
	s.mu.Unlock()
	ss.close()
}

// ListSessions implements sdk.Agent: the runs of the journal (of cwd,
// when given), newest first; each can be loaded by its id.
func (s *server) ListSessions(ctx context.Context, p sdk.ListSessionsRequest) (sdk.ListSessionsResponse, error) {
	home, err := app.OpenHome(ctx, "")
	if err != nil {
		return sdk.ListSessionsResponse{}, fromApp(err)
	}
	defer home.Close()
	runs, err := home.Runs(ctx)
	if err != nil {
		return sdk.ListSessionsResponse{}, fromApp(err)
	}
	out := sdk.ListSessionsResponse{Sessions: []sdk.SessionInfo{}}
	for _, r := range runs {
		if p.Cwd != nil && *p.Cwd != "" && filepath.Clean(*p.Cwd) != r.Workspace {
			continue
		}
		title := r.Prompt
		if i := strings.IndexByte(title, '\n'); i >= 0 {
			title = title[:i]
		}
		if len(title) > 80 {
			title = title[:80] + "…"
		}
		upd := r.Updated.UTC().Format(time.RFC3339)
		out.Sessions = append(out.Sessions, sdk.SessionInfo{SessionId: sdk.SessionId(r.ID), Cwd: r.Workspace, Title: &title, UpdatedAt: &upd})
	}
	return out, nil
}

// Prompt implements sdk.Agent: one turn of the session's run.
func (s *server) Prompt(_ context.Context, p sdk.PromptRequest) (sdk.PromptResponse, error) {
	ss, err := s.session(p.SessionId)
	if err != nil {
		return sdk.PromptResponse{}, err
	}
	text, err := promptText(p.Prompt)
	if err != nil {
		return sdk.PromptResponse{}, err
	}
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return sdk.PromptResponse{}, errState("agent acp is shutting down")
	}
	s.prompts.Add(1)
	s.mu.Unlock()
	defer s.prompts.Done()
	// The SDK cancels a prompt's request context when a second prompt of
	// the session arrives; the turn runs under the session's own context,
	// which session/cancel and the end of the connection end.
	return ss.prompt(s.ctx, text)
}

// Cancel implements sdk.Agent: the TUI's Esc.
func (s *server) Cancel(_ context.Context, p sdk.CancelNotification) error {
	ss, err := s.session(p.SessionId)
	if err != nil {
		return err
	}
	ss.cancel()
	return nil
}

// SetSessionMode implements sdk.Agent: our approval modes are the
// session's modes.
func (s *server) SetSessionMode(ctx context.Context, p sdk.SetSessionModeRequest) (sdk.SetSessionModeResponse, error) {
	ss, err := s.session(p.SessionId)
	if err != nil {
		return sdk.SetSessionModeResponse{}, err
	}
	m := event.ApprovalMode(p.ModeId)
	if !m.Valid() {
		return sdk.SetSessionModeResponse{}, errInvalid("mode %q: use one of %s", p.ModeId, modeList())
	}
	return sdk.SetSessionModeResponse{}, ss.setMode(ctx, m)
}

func modeList() string {
	var names []string
	for _, m := range event.ApprovalModes() {
		names = append(names, string(m))
	}
	return strings.Join(names, ", ")
}

// CloseSession implements sdk.Agent (not advertised): the session's prompt
// is interrupted and its run released.
func (s *server) CloseSession(_ context.Context, p sdk.CloseSessionRequest) (sdk.CloseSessionResponse, error) {
	ss, err := s.session(p.SessionId)
	if err != nil {
		return sdk.CloseSessionResponse{}, err
	}
	ss.cancel()
	s.drop(ss)
	return sdk.CloseSessionResponse{}, nil
}

// ResumeSession implements sdk.Agent: not offered (session/load replays
// and resumes).
func (s *server) ResumeSession(context.Context, sdk.ResumeSessionRequest) (sdk.ResumeSessionResponse, error) {
	return sdk.ResumeSessionResponse{}, sdk.NewMethodNotFound(sdk.AgentMethodSessionResume)
}

// SetSessionConfigOption implements sdk.Agent: no config options are
// offered (the approval mode is a session mode).
func (s *server) SetSessionConfigOption(context.Context, sdk.SetSessionConfigOptionRequest) (sdk.SetSessionConfigOptionResponse, error) {
	return sdk.SetSessionConfigOptionResponse{}, sdk.NewMethodNotFound(sdk.AgentMethodSessionSetConfigOption)
}
