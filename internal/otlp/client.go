package otlp

// The OTLP/HTTP client: one POST of a protobuf body to a receiver's
// /v1/traces.

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"unicode"
)

// TracesPath is where an OTLP/HTTP receiver takes traces.
const TracesPath = "/v1/traces"

// Endpoint is a receiver's traces URL.
type Endpoint struct {
	url *url.URL
}

// ParseEndpoint reads an OTLP/HTTP endpoint as OTEL_EXPORTER_OTLP_ENDPOINT
// is read: an http:// or https:// base URL ("http://127.0.0.1:4318", or
// Langfuse's ".../api/public/otel") to which /v1/traces is added, unless the
// path already ends with it. User information in the URL
// (https://PUBLIC:SECRET@host/...) is sent as basic authentication and never
// shown.
func ParseEndpoint(s string) (Endpoint, error) {
	u, err := url.Parse(strings.TrimSpace(s))
	if s == "" || err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.Opaque != "" {
		return Endpoint{}, fmt.Errorf("%q is not an OTLP/HTTP endpoint: give an http:// or https:// URL, e.g. http://127.0.0.1:4318", redactedURL(s))
	}
	if u.RawQuery != "" || u.Fragment != "" {
		return Endpoint{}, fmt.Errorf("OTLP endpoint %s: leave out the query and fragment (give the receiver's base URL, e.g. http://127.0.0.1:4318)", redactedURL(s))
	}
	if !strings.HasSuffix(u.Path, TracesPath) {
		u.Path = strings.TrimSuffix(u.Path, "/") + TracesPath
		u.RawPath = ""
	}
	return Endpoint{url: u}, nil
}

// String is the traces URL with any password masked.
func (e Endpoint) String() string {
	if e.url == nil {
		return ""
	}
	return e.url.Redacted()
}

// IsZero reports whether no endpoint is set.
func (e Endpoint) IsZero() bool { return e.url == nil }

func redactedURL(s string) string {
	if u, err := url.Parse(s); err == nil {
		return u.Redacted()
	}
	return "the URL given"
}

// Client posts encoded traces.
type Client struct {
	Endpoint Endpoint
	// HTTP is the client; nil: a client with no timeout of its own (the
	// caller's context bounds each post).
	HTTP *http.Client
	// UserAgent names the agent and its version.
	UserAgent string
}

// ErrRejected wraps a receiver's refusal (a status other than 2xx).
var ErrRejected = errors.New("the receiver refused the trace")

// Post sends one ExportTraceServiceRequest body.
func (c *Client) Post(ctx context.Context, body []byte) error {
	if c.Endpoint.IsZero() {
		return errors.New("otlp: no endpoint")
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.Endpoint.url.String(), bytes.NewReader(body))
	if err != nil {
		return fmt.Errorf("otlp: %w", err)
	}
	req.Header.Set("Content-Type", "application/x-protobuf")
	if c.UserAgent != "" {
		req.Header.Set("User-Agent", c.UserAgent)
	}
	hc := c.HTTP
	if hc == nil {
		hc = http.DefaultClient
	}
	resp, err := hc.Do(req)
	if err != nil {
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err // the URL is in the caller's message already, masked
		}
		return fmt.Errorf("post to %s: %w", c.Endpoint, err)
	}
	defer resp.Body.Close()
	msg, _ := io.ReadAll(io.LimitReader(resp.Body, 512))
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<20))
	if resp.StatusCode/100 != 2 {
		return fmt.Errorf("%w: %s answered %s%s", ErrRejected, c.Endpoint, resp.Status, printable(msg))
	}
	return nil
}

// printable is a receiver's error text, shortened, with what is not
// printable dropped (a protobuf Status body is binary).
func printable(b []byte) string {
	s := strings.Map(func(r rune) rune {
		if unicode.IsPrint(r) {
			return r
		}
		return -1
	}, string(b))
	s = strings.TrimSpace(s)
	if len(s) > 200 {
		s = s[:200] + "…"
	}
	if s == "" {
		return ""
	}
	return ": " + s
}

// exportBatch is the number of spans per request of Send.
const exportBatch = 512

// Send posts spans in requests of at most 512 spans and returns how many
// were accepted; it stops at the first failure.
func (c *Client) Send(ctx context.Context, res Resource, scope Scope, spans []Span, red func(string) string) (int, error) {
	sent := 0
	for len(spans) > 0 {
		n := min(len(spans), exportBatch)
		if err := c.Post(ctx, Encode(res, scope, spans[:n], red)); err != nil {
			return sent, err
		}
		sent += n
		spans = spans[n:]
	}
	return sent, nil
}
