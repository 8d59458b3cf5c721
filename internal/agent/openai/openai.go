// Package openai is the agent.Provider for OpenAI-compatible chat-completions
// endpoints (OpenAI itself, and local or hosted servers speaking the same wire
// protocol), built on github.com/sashabaranov/go-openai.
//
// It owns: turning an agent.Request into a streaming chat-completions request
// (function tools, stream_options.include_usage), turning the SSE chunks back
// into agent.StreamEvents (text deltas; tool calls assembled by index from
// fragments; usage; finish reason), retries with backoff before the stream
// starts, timeouts, and typed, actionable errors (*ModelError, ErrMissingKey).
//
// It must not touch anything else: no configuration lookup (the caller passes
// Config; environment variables are only named in error messages), no disk,
// no logging, no conversation state. It never retries once a stream has
// delivered data: a broken stream is an error for the loop to handle.
package openai

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"

	goopenai "github.com/sashabaranov/go-openai"

	"agent/internal/agent"
	"agent/internal/agent/httpretry"
)

// DefaultBaseURL is used when Config.BaseURL is empty.
const DefaultBaseURL = "https://api.openai.com/v1"

// Defaults for the zero values of Config.
const (
	DefaultRequestTimeout = 10 * time.Minute
	DefaultIdleTimeout    = 2 * time.Minute
	DefaultMaxRetries     = 4
	DefaultBaseBackoff    = time.Second
)

// Config configures a Provider. Zero values take the defaults above.
type Config struct {
	// BaseURL of the API, e.g. "https://api.openai.com/v1" or
	// "http://127.0.0.1:8080/v1"; "/chat/completions" is appended.
	BaseURL string
	// APIKey is sent as a bearer token. It may be empty only for a loopback
	// BaseURL (localhost, 127.0.0.0/8, ::1); then no Authorization is sent.
	APIKey string
	// Model is used when Request.Model is empty.
	Model string
	// HTTPClient defaults to a new client without a global timeout (the
	// timeouts below apply per attempt through the request context).
	HTTPClient *http.Client
	// RequestTimeout bounds one attempt from sending the request to the end of
	// its stream. Negative means no limit.
	RequestTimeout time.Duration
	// IdleTimeout bounds the silence between two chunks once the stream has
	// started (the wait for the first chunk is bounded by RequestTimeout only,
	// since reasoning models think before answering). It is measured between
	// reads, so the consumer must keep calling Recv. Negative means no limit.
	IdleTimeout time.Duration
	// MaxRetries is how many times a request failing before its stream
	// started (429, 5xx, connection error) is retried. Negative means never.
	MaxRetries int
	// BaseBackoff is the first backoff delay; it doubles per retry (capped at
	// 30s) with jitter. A server's Retry-After (capped at 60s) replaces it.
	BaseBackoff time.Duration
	// Sleep waits between attempts; it must return ctx.Err() promptly when ctx
	// is done. Tests replace it to record delays. Default: a timer.
	Sleep func(ctx context.Context, d time.Duration) error
	// OnRetry, if set, is called before each backoff wait, e.g. to tell the
	// user "rate limited, retrying in 3s". attempt counts from 1.
	OnRetry func(attempt int, delay time.Duration, err error)
}

// Provider is an agent.Provider for an OpenAI-compatible endpoint. It is safe
// for concurrent use.
type Provider struct {
	cfg     Config
	baseURL string
	client  *goopenai.Client
	msgs    *messageCache // the messages' encoding, kept across requests
	tools   *toolCache    // the tools' encoding, kept across requests
}

var _ agent.Provider = (*Provider)(nil)

// New validates cfg and returns a Provider. A non-loopback BaseURL without an
// APIKey fails with an error wrapping ErrMissingKey.
func New(cfg Config) (*Provider, error) {
	if cfg.BaseURL == "" {
		cfg.BaseURL = DefaultBaseURL
	}
	base := strings.TrimRight(strings.TrimSpace(cfg.BaseURL), "/")
	u, err := url.Parse(base)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("invalid model base URL %q: want http(s)://host[:port]/path; check OPENAI_BASE_URL / --base-url", cfg.BaseURL)
	}
	if strings.HasSuffix(u.Path, "/chat/completions") {
		return nil, fmt.Errorf("invalid model base URL %q: give the API root (e.g. https://api.openai.com/v1), not the chat/completions endpoint; check OPENAI_BASE_URL / --base-url", cfg.BaseURL)
	}
	cfg.APIKey = strings.TrimSpace(cfg.APIKey)
	if cfg.APIKey == "" && !httpretry.IsLoopback(u.Hostname()) {
		return nil, fmt.Errorf("model endpoint %s: %w", base, ErrMissingKey)
	}
	if cfg.RequestTimeout == 0 {
		cfg.RequestTimeout = DefaultRequestTimeout
	}
	if cfg.IdleTimeout == 0 {
		cfg.IdleTimeout = DefaultIdleTimeout
	}
	if cfg.MaxRetries == 0 {
		cfg.MaxRetries = DefaultMaxRetries
	} else if cfg.MaxRetries < 0 {
		cfg.MaxRetries = 0
	}
	if cfg.BaseBackoff <= 0 {
		cfg.BaseBackoff = DefaultBaseBackoff
	}
	if cfg.Sleep == nil {
		cfg.Sleep = httpretry.Sleep
	}
	if cfg.HTTPClient == nil {
		cfg.HTTPClient = &http.Client{}
	}
	occ := goopenai.DefaultConfig(cfg.APIKey)
	occ.BaseURL = base
	occ.HTTPClient = recordingDoer{c: cfg.HTTPClient}
	return &Provider{cfg: cfg, baseURL: base, client: goopenai.NewClientWithConfig(occ), msgs: &messageCache{}, tools: &toolCache{}}, nil
}

// Model is the default model of the provider.
func (p *Provider) Model() string { return p.cfg.Model }

// BaseURL is the normalised API root the provider talks to.
func (p *Provider) BaseURL() string { return p.baseURL }

// Stream sends one streaming chat-completions request, retrying failures
// that happen before the first chunk arrives, and returns the stream of the
// turn. Errors are *ModelError, or wrap ctx.Err() when ctx ends.
func (p *Provider) Stream(ctx context.Context, req *agent.Request) (agent.Stream, error) {
	// what buildRequest makes, but the messages and the tools encoded by
	// the caches, for the doer to put in the body (msgcache.go)
	model, err := p.model(req)
	if err != nil {
		return nil, err
	}
	wire, err := p.msgs.encode(req.Messages)
	if err != nil {
		return nil, err
	}
	if wire.tools, err = p.tools.encode(req.Tools); err != nil {
		return nil, err
	}
	creq := goopenai.ChatCompletionRequest{Model: model, Stream: true, StreamOptions: &goopenai.StreamOptions{IncludeUsage: true}}
	if wire.tools != nil {
		creq.Tools = []goopenai.Tool{{Type: toolsPlaceholderType}}
	}
	for attempt := 1; ; attempt++ {
		s, err := p.attempt(ctx, creq, &wire)
		if err == nil {
			return s, nil
		}
		me, ok := err.(*ModelError)
		if !ok { // context ended
			return nil, err
		}
		me.Attempts = attempt
		if !me.Retryable || attempt > p.cfg.MaxRetries {
			return nil, me
		}
		delay := httpretry.Backoff(p.cfg.BaseBackoff, attempt-1)
		if me.hasRetryAfter {
			delay = me.RetryAfter
		}
		if p.cfg.OnRetry != nil {
			p.cfg.OnRetry(attempt, delay, me)
		}
		if err := p.cfg.Sleep(ctx, delay); err != nil {
			return nil, fmt.Errorf("model request: waiting to retry: %w", err)
		}
		if ctx.Err() != nil {
			return nil, fmt.Errorf("model request: %w", ctx.Err())
		}
	}
}

// attempt makes one HTTP request and reads the first chunk, so that failures
// before any data arrived can be retried.
func (p *Provider) attempt(ctx context.Context, creq goopenai.ChatCompletionRequest, wire *wireBody) (*stream, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("model request: %w", err)
	}
	info := &attemptInfo{wire: wire}
	var actx context.Context
	var cancelTimeout context.CancelFunc
	if p.cfg.RequestTimeout > 0 {
		actx, cancelTimeout = context.WithTimeoutCause(ctx, p.cfg.RequestTimeout, errRequestTimeout)
	} else {
		actx, cancelTimeout = context.WithCancel(ctx)
	}
	actx, cancelCause := context.WithCancelCause(actx)
	cancel := func() { cancelCause(context.Canceled); cancelTimeout() }

	cs, err := p.client.CreateChatCompletionStream(context.WithValue(actx, attemptKey{}, info), creq)
	if err != nil {
		defer cancel()
		if info.body != nil {
			_ = info.body.Close()
		}
		return nil, p.classify(ctx, actx, info, creq.Model, err)
	}
	s := newStream(p, ctx, actx, cancel, cancelCause, cs, info)
	first, err := cs.Recv()
	if err != nil {
		s.release()
		if isEOF(err) && ctx.Err() == nil {
			return nil, p.notAStream(info, err)
		}
		if me := info.badChunk(p, err); me != nil {
			return nil, me
		}
		return nil, p.classify(ctx, actx, info, creq.Model, err)
	}
	s.started()
	s.handle(first)
	return s, nil
}

// model is the model a request asks for.
func (p *Provider) model(req *agent.Request) (string, error) {
	model := req.Model
	if model == "" {
		model = p.cfg.Model
	}
	if model == "" {
		return "", &ModelError{Msg: "no model configured: set --model or AGENT_MODEL"}
	}
	return model, nil
}

// buildRequest maps an agent.Request onto the wire request. Stream sends
// the same request with its messages and tools encoded by the caches
// (msgcache.go); this is what the caches' bytes must equal.
func (p *Provider) buildRequest(req *agent.Request) (goopenai.ChatCompletionRequest, error) {
	model, err := p.model(req)
	if err != nil {
		return goopenai.ChatCompletionRequest{}, err
	}
	msgs := make([]goopenai.ChatCompletionMessage, 0, len(req.Messages))
	for i, m := range req.Messages {
		if skipped(&m) {
			continue // an empty answer: the API rejects an assistant message without content or tool calls
		}
		wm, err := wireMessage(m)
		if err != nil {
			return goopenai.ChatCompletionRequest{}, &ModelError{Err: err, Msg: fmt.Sprintf("invalid conversation: message %d: %v", i, err)}
		}
		msgs = append(msgs, wm)
	}
	tools, err := wireTools(req.Tools)
	if err != nil {
		return goopenai.ChatCompletionRequest{}, err
	}
	return goopenai.ChatCompletionRequest{
		Model:         model,
		Messages:      msgs,
		Tools:         tools,
		Stream:        true,
		StreamOptions: &goopenai.StreamOptions{IncludeUsage: true},
	}, nil
}

// wireTools maps the tools' specs onto the wire's function tools.
func wireTools(specs []agent.ToolSpec) ([]goopenai.Tool, error) {
	var tools []goopenai.Tool
	for _, t := range specs {
		params := t.Parameters
		if len(strings.TrimSpace(string(params))) == 0 {
			params = json.RawMessage(`{"type":"object","properties":{}}`)
		} else if !json.Valid(params) {
			return nil, &ModelError{Msg: fmt.Sprintf("invalid tool %q: its parameters are not valid JSON", t.Name)}
		}
		tools = append(tools, goopenai.Tool{
			Type: goopenai.ToolTypeFunction,
			Function: &goopenai.FunctionDefinition{
				Name:        t.Name,
				Description: t.Description,
				Parameters:  params,
			},
		})
	}
	return tools, nil
}

func wireMessage(m agent.Message) (goopenai.ChatCompletionMessage, error) {
	switch m.Role {
	case agent.RoleSystem, agent.RoleUser:
		return goopenai.ChatCompletionMessage{Role: string(m.Role), Content: m.Content}, nil
	case agent.RoleAssistant:
		wm := goopenai.ChatCompletionMessage{Role: goopenai.ChatMessageRoleAssistant, Content: m.Content}
		for _, tc := range m.ToolCalls {
			args := tc.Arguments
			if strings.TrimSpace(args) == "" {
				args = "{}"
			}
			wm.ToolCalls = append(wm.ToolCalls, goopenai.ToolCall{
				ID:       tc.ID,
				Type:     goopenai.ToolTypeFunction,
				Function: goopenai.FunctionCall{Name: tc.Name, Arguments: args},
			})
		}
		return wm, nil
	case agent.RoleTool:
		if m.ToolCallID == "" {
			return goopenai.ChatCompletionMessage{}, fmt.Errorf("tool message without a tool call id")
		}
		content := m.Content
		if content == "" {
			content = "(no output)" // the API rejects a tool message without content
		}
		return goopenai.ChatCompletionMessage{Role: goopenai.ChatMessageRoleTool, Content: content, ToolCallID: m.ToolCallID}, nil
	}
	return goopenai.ChatCompletionMessage{}, fmt.Errorf("unknown role %q", m.Role)
}
