package anthropic

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strings"
	"time"

	"agent/internal/agent/httpretry"
)

// ErrMissingKey is returned by New for a non-loopback endpoint without an API key.
var ErrMissingKey = errors.New("no API key: set ANTHROPIC_API_KEY (only a loopback endpoint such as http://localhost:8080 may be used without one)")

// StatusOverloaded is the status the Messages API answers when it is
// overloaded (retried like a 429).
const StatusOverloaded = 529

var (
	errRequestTimeout = errors.New("model request timed out")
	errIdleTimeout    = errors.New("model stream idle timeout")
)

// ModelError is the error of a failed model request. Msg says what happened
// and how to fix it; Err is the underlying cause (an SDK *Error, a network
// error, ...).
type ModelError struct {
	// Status is the HTTP status of the failed response (for an error event
	// inside a stream, the status its type stands for), 0 when there was none.
	Status int
	// Type is the API's error type, e.g. "overloaded_error", when it sent one.
	Type string
	// Retryable reports whether the failure is transient. Before the stream
	// starts the provider has already spent its retries on such an error;
	// after it starts it never retries by itself.
	Retryable bool
	// Msg is the user-facing message, naming the fix where there is one.
	Msg string
	// Attempts is how many HTTP requests were made (0 when none was sent).
	Attempts int
	// RetryAfter is the delay the server asked for, if it sent one.
	RetryAfter time.Duration
	// Err is the cause.
	Err error

	hasRetryAfter bool
}

func (e *ModelError) Error() string {
	if e.Attempts > 1 {
		return fmt.Sprintf("%s (after %d attempts)", e.Msg, e.Attempts)
	}
	return e.Msg
}

func (e *ModelError) Unwrap() error { return e.Err }

// classify turns the error of an attempt that failed before its stream
// started into a *ModelError, or returns the context error when the caller
// cancelled.
func (p *Provider) classify(parent, attemptCtx context.Context, err error) error {
	if parent.Err() != nil {
		return fmt.Errorf("model request: %w", parent.Err())
	}
	if errors.Is(context.Cause(attemptCtx), errRequestTimeout) {
		return &ModelError{Retryable: true, Err: err,
			Msg: fmt.Sprintf("the model did not answer within %s (request timeout)", p.cfg.RequestTimeout)}
	}
	if errors.Is(context.Cause(attemptCtx), errIdleTimeout) {
		return &ModelError{Retryable: true, Err: err,
			Msg: fmt.Sprintf("the model stream stalled: no data for %s", p.cfg.IdleTimeout)}
	}
	return p.connError(err)
}

// statusError builds the error of an HTTP error response.
func (p *Provider) statusError(status int, h http.Header, raw []byte) *ModelError {
	var body errorBody
	detail := ""
	if json.Unmarshal(raw, &body) == nil && (body.Error.Type != "" || body.Error.Message != "") {
		detail = body.Error.Message
	} else {
		detail = snippet(string(raw))
	}
	me := p.modelError(status, body.Error.Type, detail)
	me.RetryAfter, me.hasRetryAfter = httpretry.RetryAfter(h, time.Now())
	return me
}

// eventError is the error of an error event in a 200 stream: its type says
// what the status would have been.
func (p *Provider) eventError(we wireError) *ModelError {
	return p.modelError(statusOfType(we.Type), we.Type, we.Message)
}

func (p *Provider) modelError(status int, typ, detail string) *ModelError {
	me := &ModelError{Status: status, Type: typ, Err: fmt.Errorf("HTTP %d %s: %s", status, typ, p.redact(detail))}
	detail = strings.TrimSpace(detail)
	var msg string
	switch {
	case status == http.StatusUnauthorized:
		msg = "the Anthropic endpoint rejected the API key (HTTP 401): check ANTHROPIC_API_KEY"
	case status == http.StatusForbidden:
		msg = "access was denied (HTTP 403): check that ANTHROPIC_API_KEY may use this model, or pick another --model"
	case status == http.StatusNotFound:
		msg = fmt.Sprintf("the model or the messages endpoint was not found at %s (HTTP 404): check --model / AGENT_MODEL, and that ANTHROPIC_BASE_URL / --base-url is the API root without /v1", p.baseURL)
	case status == http.StatusRequestEntityTooLarge:
		msg = "the request is too large for the model endpoint (HTTP 413): reduce the context window ([context] window)"
	case status == http.StatusTooManyRequests:
		me.Retryable = true
		msg = "the Anthropic endpoint is rate limiting requests (HTTP 429): wait a moment and try again, or check your rate limits"
	case status == StatusOverloaded:
		me.Retryable = true
		msg = "the Anthropic API is overloaded (HTTP 529): try again later"
	case status >= 500:
		me.Retryable = true
		msg = fmt.Sprintf("the model server failed (HTTP %d): try again later", status)
	case status == http.StatusBadRequest && strings.Contains(strings.ToLower(detail), "prompt is too long"):
		msg = "the conversation is too long for the model (HTTP 400): lower the context window ([context] window) or start a new run"
	case status >= 400:
		msg = fmt.Sprintf("the model endpoint rejected the request (HTTP %d)", status)
	default:
		msg = "the model endpoint reported an error"
	}
	if typ != "" {
		msg += " [" + typ + "]"
	}
	if detail != "" {
		msg += ": " + detail
	}
	me.Msg = p.redact(msg)
	return me
}

// statusOfType maps the error type of an in-stream error event to the HTTP
// status it stands for.
func statusOfType(typ string) int {
	switch typ {
	case "overloaded_error":
		return StatusOverloaded
	case "rate_limit_error":
		return http.StatusTooManyRequests
	case "api_error":
		return http.StatusInternalServerError
	case "authentication_error":
		return http.StatusUnauthorized
	case "permission_error":
		return http.StatusForbidden
	case "not_found_error":
		return http.StatusNotFound
	case "request_too_large":
		return http.StatusRequestEntityTooLarge
	case "invalid_request_error":
		return http.StatusBadRequest
	case "timeout_error":
		return http.StatusGatewayTimeout
	}
	return 0
}

// badEvent is the error of a stream event that could not be decoded.
func (p *Provider) badEvent(err error, data []byte) *ModelError {
	return &ModelError{Err: err, Msg: p.redact(fmt.Sprintf(
		"the model endpoint sent a stream event this agent cannot read (%v); it received: %s. "+
			"The server does not speak the Anthropic Messages stream format; check ANTHROPIC_BASE_URL / --base-url", err, snippet(string(data))))}
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
			"TLS certificate of the model endpoint %s is not trusted: %v; check ANTHROPIC_BASE_URL / --base-url", p.baseURL, err))}
	case errors.As(err, &dnsErr) && dnsErr.IsNotFound:
		return &ModelError{Err: err, Msg: p.redact(fmt.Sprintf(
			"cannot resolve the model endpoint %s: %v; check ANTHROPIC_BASE_URL / --base-url", p.baseURL, err))}
	}
	return &ModelError{Retryable: true, Err: err, Msg: p.redact(fmt.Sprintf(
		"cannot reach the model endpoint %s: %v; check your network and ANTHROPIC_BASE_URL / --base-url", p.baseURL, err))}
}

// redact removes the configured API key from a message, in case an endpoint
// echoes it back.
func (p *Provider) redact(s string) string {
	if len(p.cfg.APIKey) >= 8 {
		s = strings.ReplaceAll(s, p.cfg.APIKey, "[REDACTED]")
	}
	return s
}

func snippet(s string) string {
	s = strings.TrimSpace(s)
	if len(s) > 300 {
		return strings.ToValidUTF8(s[:300], "") + "…"
	}
	return s
}
