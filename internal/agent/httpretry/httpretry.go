// Package httpretry owns what the model adapters (internal/agent/openai,
// internal/agent/anthropic) share about talking HTTP to a model endpoint:
// reading a server's retry-after, the backoff between attempts, a sleep
// that honours cancellation, and which hosts are this machine. It must not
// know any provider's wire format.
package httpretry

import (
	"context"
	"math/rand/v2"
	"net"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// Caps of the waits.
const (
	MaxRetryAfter = 60 * time.Second // caps a server-sent retry-after
	MaxBackoff    = 30 * time.Second // caps the exponential backoff
)

// RetryAfter reads retry-after-ms or Retry-After (seconds or an HTTP
// date), capped at MaxRetryAfter. ok is false when neither is usable.
func RetryAfter(h http.Header, now time.Time) (d time.Duration, ok bool) {
	if v := strings.TrimSpace(h.Get("Retry-After-Ms")); v != "" {
		if ms, err := strconv.ParseFloat(v, 64); err == nil && ms >= 0 {
			return min(time.Duration(ms*float64(time.Millisecond)), MaxRetryAfter), true
		}
	}
	v := strings.TrimSpace(h.Get("Retry-After"))
	if v == "" {
		return 0, false
	}
	if secs, err := strconv.ParseFloat(v, 64); err == nil {
		if secs < 0 {
			return 0, false
		}
		return min(time.Duration(secs*float64(time.Second)), MaxRetryAfter), true
	}
	if t, err := http.ParseTime(v); err == nil {
		return min(max(t.Sub(now), 0), MaxRetryAfter), true
	}
	return 0, false
}

// Backoff is the delay before retry number attempt+1 (attempt counts from
// 0): base·2^attempt capped at MaxBackoff, with "equal jitter" (half fixed,
// half random).
func Backoff(base time.Duration, attempt int) time.Duration {
	d := base
	for i := 0; i < attempt && d < MaxBackoff; i++ {
		d *= 2
	}
	d = min(d, MaxBackoff)
	if d <= 0 {
		return 0
	}
	half := d / 2
	return half + rand.N(d-half+1)
}

// Sleep waits d or until ctx is done.
func Sleep(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// IsLoopback reports whether host (a hostname or IP, without port) is the
// local machine: localhost, *.localhost, 127.0.0.0/8 or ::1.
func IsLoopback(host string) bool {
	h := strings.ToLower(strings.TrimSuffix(strings.Trim(host, "[]"), "."))
	if h == "localhost" || strings.HasSuffix(h, ".localhost") {
		return true
	}
	ip := net.ParseIP(h)
	return ip != nil && ip.IsLoopback()
}
