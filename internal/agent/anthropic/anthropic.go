// Package anthropic is the agent.Provider for the Anthropic Messages API
// (api.anthropic.com, and proxies or local servers speaking the same wire
// protocol). It reads the stream with the SSE decoder of
// github.com/anthropics/anthropic-sdk-go (packages/ssestream) and speaks the
// few JSON shapes it needs itself: the SDK's client and types would add about
// 10 MB to the binary (docs/benchmarks.md).
//
// It owns: turning an agent.Request into a streaming Messages request (the
// request's system messages as system blocks, tool results as tool_result
// blocks, consecutive same-role messages merged, cache_control breakpoints on
// the last tool, the system blocks and the messages marked CacheBreak, at most
// four), turning the SSE events back into agent.StreamEvents (text deltas;
// tool_use blocks with their input JSON in pieces; usage with cache reads and
// writes; the stop reason), retries with backoff before the stream starts
// (429, 529, 5xx, retry-after), timeouts, and typed, actionable errors
// (*ModelError, ErrMissingKey).
//
// It must not touch anything else: no configuration lookup (the caller passes
// Config; environment variables are only named in error messages), no disk, no
// logging, no conversation state. It never retries once a stream has
// delivered data: a broken stream is an error for the loop to handle.
package anthropic

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/anthropics/anthropic-sdk-go/v2/packages/ssestream"

	"agent/internal/agent"
	"agent/internal/agent/httpretry"
)

// DefaultBaseURL is used when Config.BaseURL is empty.
const DefaultBaseURL = "https://api.anthropic.com"

// Defaults for the zero values of Config.
const (
	DefaultRequestTimeout = 10 * time.Minute
	DefaultIdleTimeout    = 2 * time.Minute
	DefaultMaxRetries     = 4
	DefaultBaseBackoff    = time.Second
	// DefaultMaxTokens bounds one answer when Config.MaxTokens is 0 and the
	// model is not one of the older ones with a lower limit.
	DefaultMaxTokens = 16384
)

// maxBreakpoints is how many cache_control breakpoints the API accepts.
const maxBreakpoints = 4

// Config configures a Provider. Zero values take the defaults above.
type Config struct {
	// BaseURL of the API root without /v1, e.g. "https://api.anthropic.com"
	// or "http://127.0.0.1:8080"; "/v1/messages" is appended.
	BaseURL string
	// APIKey is sent with every request. It may be empty only for a loopback
	// BaseURL (localhost, 127.0.0.0/8, ::1); then no credential is sent.
	APIKey string
	// Model is used when Request.Model is empty.
	Model string
	// MaxTokens bounds the length of one answer (the API requires a bound).
	MaxTokens int
	// HTTPClient defaults to a new client without a global timeout (the
	// timeouts below apply per attempt through the request context).
	HTTPClient *http.Client
	// RequestTimeout bounds one attempt from sending the request to the end of
	// its stream. Negative means no limit.
	RequestTimeout time.Duration
	// IdleTimeout bounds the silence between two events once the stream has
	// started. Negative means no limit.
	IdleTimeout time.Duration
	// MaxRetries is how many times a request failing before its stream
	// started (429, 529, 5xx, connection error) is retried. Negative means never.
	MaxRetries int
	// BaseBackoff is the first backoff delay; it doubles per retry (capped at
	// 30s) with jitter. A server's retry-after (capped at 60s) replaces it.
	BaseBackoff time.Duration
	// Sleep waits between attempts; it must return ctx.Err() promptly when ctx
	// is done. Tests replace it to record delays. Default: a timer.
	Sleep func(ctx context.Context, d time.Duration) error
	// OnRetry, if set, is called before each backoff wait. attempt counts from 1.
	OnRetry func(attempt int, delay time.Duration, err error)
}

// Provider is an agent.Provider for the Messages API. It is safe for
// concurrent use.
type Provider struct {
	cfg      Config
	baseURL  string
	endpoint string // baseURL + /v1/messages
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
		return nil, fmt.Errorf("invalid Anthropic base URL %q: want http(s)://host[:port]; check ANTHROPIC_BASE_URL / --base-url", cfg.BaseURL)
	}
	if strings.HasSuffix(u.Path, "/messages") {
		return nil, fmt.Errorf("invalid Anthropic base URL %q: give the API root (e.g. %s), not the messages endpoint; check ANTHROPIC_BASE_URL / --base-url", cfg.BaseURL, DefaultBaseURL)
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
	return &Provider{cfg: cfg, baseURL: base, endpoint: base + "/v1/messages"}, nil
}

// Model is the default model of the provider.
func (p *Provider) Model() string { return p.cfg.Model }

// BaseURL is the normalised API root the provider talks to.
func (p *Provider) BaseURL() string { return p.baseURL }

// Stream sends one streaming Messages request, retrying failures that happen
// before the first event arrives, and returns the stream of the turn. Errors
// are *ModelError, or wrap ctx.Err() when ctx ends.
func (p *Provider) Stream(ctx context.Context, req *agent.Request) (agent.Stream, error) {
	wreq, err := p.buildRequest(req)
	if err != nil {
		return nil, err
	}
	body, err := json.Marshal(wreq)
	if err != nil {
		return nil, &ModelError{Err: err, Msg: fmt.Sprintf("cannot encode the model request: %v", err)}
	}
	for attempt := 1; ; attempt++ {
		s, err := p.attempt(ctx, body)
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

// attempt makes one HTTP request and reads its first event, so that
// failures before any data arrived can be retried.
func (p *Provider) attempt(ctx context.Context, body []byte) (*stream, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("model request: %w", err)
	}
	var actx context.Context
	var cancelTimeout context.CancelFunc
	if p.cfg.RequestTimeout > 0 {
		actx, cancelTimeout = context.WithTimeoutCause(ctx, p.cfg.RequestTimeout, errRequestTimeout)
	} else {
		actx, cancelTimeout = context.WithCancel(ctx)
	}
	actx, cancelCause := context.WithCancelCause(actx)
	cancel := func() { cancelCause(context.Canceled); cancelTimeout() }

	hreq, err := http.NewRequestWithContext(actx, http.MethodPost, p.endpoint, bytes.NewReader(body))
	if err != nil {
		cancel()
		return nil, &ModelError{Err: err, Msg: p.redact(fmt.Sprintf("cannot make the model request: %v", err))}
	}
	hreq.Header.Set("Content-Type", "application/json")
	hreq.Header.Set("Accept", "text/event-stream")
	hreq.Header.Set("anthropic-version", apiVersion)
	if p.cfg.APIKey != "" {
		hreq.Header.Set("x-api-key", p.cfg.APIKey)
	}
	resp, err := p.cfg.HTTPClient.Do(hreq)
	if err != nil {
		cancel()
		return nil, p.classify(ctx, actx, err)
	}
	if resp.StatusCode != http.StatusOK {
		defer cancel()
		defer resp.Body.Close()
		raw, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
		if ctx.Err() != nil {
			return nil, fmt.Errorf("model request: %w", ctx.Err())
		}
		return nil, p.statusError(resp.StatusCode, resp.Header, raw)
	}
	s := newStream(p, ctx, actx, cancel, cancelCause, ssestream.NewDecoder(resp))
	if err := s.first(); err != nil {
		s.release()
		return nil, err
	}
	return s, nil
}

// maxTokensFor is the answer bound for a model: the older models accept less.
func maxTokensFor(model string) int {
	switch m := strings.ToLower(model); {
	case strings.HasPrefix(m, "claude-3-7-"):
		return DefaultMaxTokens
	case strings.HasPrefix(m, "claude-3-5-"), strings.HasPrefix(m, "claude-3.5-"):
		return 8192
	case strings.HasPrefix(m, "claude-3-"):
		return 4096
	}
	return DefaultMaxTokens
}
