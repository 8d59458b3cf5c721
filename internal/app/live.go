package app

import (
	"errors"
	"fmt"
	"net"
	"sync"
	"syscall"
	"time"

	"agent/internal/agent/anthropic"
	"agent/internal/agent/openai"
	"agent/internal/event"
	"agent/internal/protocol"
)

// retryNotices publishes the model adapter's backoffs as UpdateRetry. The
// adapter is made before the hub it publishes to is wired: until attach,
// a notice is dropped.
type retryNotices struct {
	mu       sync.Mutex
	hub      *hub
	attempts int
}

func (r *retryNotices) attach(h *hub, p event.Provider) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.hub = h
	r.attempts = openai.DefaultMaxRetries + 1
	if p == event.ProviderAnthropic {
		r.attempts = anthropic.DefaultMaxRetries + 1
	}
}

// notice is the adapters' OnRetry: attempt (from 1) failed with err and
// the next is made after delay.
func (r *retryNotices) notice(attempt int, delay time.Duration, err error) {
	r.mu.Lock()
	h, n := r.hub, r.attempts
	r.mu.Unlock()
	if h == nil {
		return
	}
	h.publish(protocol.Update{Kind: protocol.UpdateRetry, Retry: &protocol.RetryNotice{
		Attempt: attempt + 1, Attempts: max(n, attempt+1), Wait: delay, Reason: retryReason(err), At: time.Now()}})
}

// retryReason is why an attempt failed, in a few plain words.
func retryReason(err error) string {
	status := 0
	var oe *openai.ModelError
	var ae *anthropic.ModelError
	switch {
	case errors.As(err, &oe):
		status = oe.Status
	case errors.As(err, &ae):
		status = ae.Status
	}
	var ne net.Error
	switch {
	case status == 429:
		return "rate limited"
	case status == 529:
		return "the model endpoint is overloaded"
	case status >= 500:
		return fmt.Sprintf("server error (HTTP %d)", status)
	case status == 408:
		return "request timed out"
	case status != 0:
		return fmt.Sprintf("HTTP %d", status)
	case errors.Is(err, syscall.ECONNREFUSED):
		return "connection refused"
	case errors.Is(err, syscall.ECONNRESET):
		return "connection reset"
	case errors.As(err, &ne) && ne.Timeout():
		return "timed out"
	}
	var dns *net.DNSError
	if errors.As(err, &dns) {
		return "host not found"
	}
	return "no answer from the model endpoint"
}
