package openai

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"time"

	goopenai "github.com/sashabaranov/go-openai"

	"agent/internal/agent/httpretry"
)

// ErrMissingKey is returned by New for a non-loopback endpoint without an API key.
var ErrMissingKey = errors.New("no API key: set OPENAI_API_KEY (only a loopback endpoint such as http://localhost:8080/v1 may be used without one)")

var (
	errRequestTimeout = errors.New("model request timed out")
	errIdleTimeout    = errors.New("model stream idle timeout")
)

// ModelError is the error of a failed model request. Msg says what happened and
// how to fix it; Err is the underlying cause (a go-openai APIError or
// RequestError, a network error, ...).
type ModelError struct {
	// Status is the HTTP status of the failed response, 0 when there was none
	// (connection failure, broken stream, invalid request built locally).
	Status int
	// Retryable reports whether the failure is transient: the same request may
	// succeed later. Before the stream starts the provider has already spent its
	// retries on such an error; after it starts it never retries by itself.
	Retryable bool
	// Msg is the user-facing message, naming the fix where there is one.
	Msg string
	// Attempts is how many HTTP requests were made (0 when none was sent).
	Attempts int
	// RetryAfter is the delay the server asked for, if it sent one.
	RetryAfter time.Duration
	// Err is the cause.
	Err error

	hasRetryAfter bool // the server sent a usable Retry-After (possibly 0)
}

func (e *ModelError) Error() string {
	if e.Attempts > 1 {
		return fmt.Sprintf("%s (after %d attempts)", e.Msg, e.Attempts)
	}
	return e.Msg
}

func (e *ModelError) Unwrap() error { return e.Err }

// attemptInfo is what the HTTP layer saw of one attempt. It travels in the
// request context so the recording doer can fill it in; each attempt has its
// own and it is only touched by the goroutine running the attempt.
type attemptInfo struct {
	sent   bool // the request reached the HTTP client
	status int
	header http.Header
	body   io.Closer // closed when the attempt fails (go-openai leaves error bodies open)
	sse    *sseBody  // the normalising reader over a 200 response's body
	// wire is the encoded messages and tools the doer puts in the body
	// (msgcache.go); nil: the body is sent as go-openai made it.
	wire *wireBody
}

type attemptKey struct{}

// recordingDoer wraps the *http.Client so the status and headers of error
// responses (Retry-After) are visible: go-openai drops them.
type recordingDoer struct{ c *http.Client }

func (d recordingDoer) Do(req *http.Request) (*http.Response, error) {
	info, _ := req.Context().Value(attemptKey{}).(*attemptInfo)
	if info != nil && info.wire != nil {
		r, err := splice(req, info.wire)
		if err != nil {
			return nil, err
		}
		req = r
	}
	if info != nil {
		info.sent = true
	}
	resp, err := d.c.Do(req)
	if err == nil && resp.StatusCode == http.StatusOK {
		sse := newSSEBody(resp.Body)
		resp.Body = sse
		if info != nil {
			info.sse = sse
		}
	}
	if err == nil && info != nil {
		info.status = resp.StatusCode
		info.header = resp.Header
		info.body = resp.Body
	}
	return resp, err
}

// classify turns the error of an attempt that failed before the stream
// started into a *ModelError, or returns the context error when the caller
// cancelled. info may be nil.
func (p *Provider) classify(parent, attemptCtx context.Context, info *attemptInfo, model string, err error) error {
	if parent.Err() != nil {
		return fmt.Errorf("model request: %w", parent.Err())
	}
	if errors.Is(context.Cause(attemptCtx), errRequestTimeout) {
		return &ModelError{Retryable: true, Err: err,
			Msg: fmt.Sprintf("the model did not answer within %s (request timeout)", p.cfg.RequestTimeout)}
	}
	var apiErr *goopenai.APIError
	var reqErr *goopenai.RequestError
	switch {
	case errors.As(err, &apiErr):
		status := apiErr.HTTPStatusCode
		if status == 0 {
			status = inBandStatus(apiErr.Code)
		}
		code, _ := apiErr.Code.(string)
		return p.statusError(status, code, apiErr.Message, info, model, err)
	case errors.As(err, &reqErr):
		return p.statusError(reqErr.HTTPStatusCode, "", bodySnippet(reqErr.Body), info, model, err)
	case errors.Is(err, goopenai.ErrTooManyEmptyStreamMessages):
		return p.notAStream(info, err)
	case info != nil && !info.sent:
		// go-openai refused to build the request (e.g. a model/parameter check).
		return &ModelError{Err: err, Msg: p.redact(fmt.Sprintf("invalid model request for model %q: %v; check --model", model, err))}
	}
	return p.connError(err)
}

// notAStream is the error of a 200 response that carried no SSE data (a
// non-streaming server, an HTML page from a proxy or captive portal, ...).
func (p *Provider) notAStream(info *attemptInfo, err error) *ModelError {
	status := 0
	if info != nil {
		status = info.status
	}
	return &ModelError{Status: status, Err: err, Msg: fmt.Sprintf(
		"the model endpoint %s answered without any stream data: check that OPENAI_BASE_URL / --base-url points to an OpenAI-compatible API", p.baseURL)}
}

// connError classifies a transport-level failure.
func (p *Provider) connError(err error) *ModelError {
	var certErr *tls.CertificateVerificationError
	var unknownCA x509.UnknownAuthorityError
	var hostErr x509.HostnameError
	var dnsErr *net.DNSError
	switch {
	case errors.As(err, &certErr), errors.As(err, &unknownCA), errors.As(err, &hostErr):
		return &ModelError{Err: err, Msg: p.redact(fmt.Sprintf(
			"TLS certificate of the model endpoint %s is not trusted: %v; check OPENAI_BASE_URL / --base-url", p.baseURL, err))}
	case errors.As(err, &dnsErr) && dnsErr.IsNotFound:
		return &ModelError{Err: err, Msg: p.redact(fmt.Sprintf(
			"cannot resolve the model endpoint %s: %v; check OPENAI_BASE_URL / --base-url", p.baseURL, err))}
	}
	return &ModelError{Retryable: true, Err: err, Msg: p.redact(fmt.Sprintf(
		"cannot reach the model endpoint %s: %v; check your network and OPENAI_BASE_URL / --base-url", p.baseURL, err))}
}

// statusError builds the error of an HTTP error response.
func (p *Provider) statusError(status int, code, detail string, info *attemptInfo, model string, cause error) *ModelError {
	e := &ModelError{Status: status, Err: cause}
	if info != nil && info.header != nil {
		e.RetryAfter, e.hasRetryAfter = httpretry.RetryAfter(info.header, time.Now())
	}
	var msg string
	switch {
	case status == http.StatusUnauthorized:
		msg = "the model endpoint rejected the API key (HTTP 401): check OPENAI_API_KEY"
	case status == http.StatusForbidden:
		msg = fmt.Sprintf("access to model %q was denied (HTTP 403): check that OPENAI_API_KEY may use it, or pick another --model", model)
	case status == http.StatusNotFound:
		msg = fmt.Sprintf("model %q or the chat-completions endpoint was not found at %s (HTTP 404): check --model / AGENT_MODEL and the base URL (--base-url / OPENAI_BASE_URL)", model, p.baseURL)
	case status == http.StatusRequestEntityTooLarge:
		msg = "the request is too large for the model endpoint (HTTP 413): reduce the context window ([context] window)"
	case status == http.StatusTooManyRequests && code == "insufficient_quota":
		msg = "the API key has no quota left (HTTP 429 insufficient_quota): check the plan and billing of OPENAI_API_KEY"
	case status == http.StatusTooManyRequests:
		e.Retryable = true
		msg = "the model endpoint is rate limiting requests (HTTP 429): wait a moment and try again, or check your rate limits"
	case status >= 500:
		e.Retryable = true
		msg = fmt.Sprintf("the model server failed (HTTP %d): try again later", status)
	case code == "context_length_exceeded":
		msg = fmt.Sprintf("the conversation is too long for model %q (HTTP %d): lower the context window ([context] window) or start a new run", model, status)
	case status >= 400:
		msg = fmt.Sprintf("the model endpoint rejected the request (HTTP %d)", status)
	case status == 0:
		msg = "the model endpoint reported an error"
	default:
		msg = fmt.Sprintf("unexpected answer from the model endpoint (HTTP %d)", status)
	}
	if detail = strings.TrimSpace(detail); detail != "" {
		msg += ": " + detail
	}
	e.Msg = p.redact(msg)
	return e
}

// inBandStatus maps the numeric code of an error sent inside a 200 stream
// (as some OpenAI-compatible routers do) to an HTTP status.
func inBandStatus(code any) int {
	if c, ok := code.(int); ok && c >= 400 && c <= 599 {
		return c
	}
	return 0
}

func bodySnippet(b []byte) string {
	s := strings.TrimSpace(string(b))
	if len(s) > 300 {
		s = s[:300] + "..."
	}
	return s
}

// redact removes the configured API key from a message, in case an endpoint
// echoes it back.
func (p *Provider) redact(s string) string {
	if len(p.cfg.APIKey) >= 8 {
		s = strings.ReplaceAll(s, p.cfg.APIKey, "[REDACTED]")
	}
	return s
}
