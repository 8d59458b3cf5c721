package openai_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"agent/internal/agent"
	"agent/internal/agent/openai"
	"agent/internal/replay"
)

func TestRetryHonoursRetryAfter(t *testing.T) {
	srv, url := replay.Start(t, script(t, `{"turns":[{"http_status":429,"retry_after":"3"},{"http_status":500},{"text":"finally"}]}`))
	var retries []int
	p, sl := newProvider(t, url, func(c *openai.Config) {
		c.BaseBackoff = 100 * time.Millisecond
		c.OnRetry = func(attempt int, _ time.Duration, _ error) { retries = append(retries, attempt) }
	})
	st, err := p.Stream(context.Background(), userTurn)
	if err != nil {
		t.Fatal(err)
	}
	evs, err := drain(st)
	if err != nil || merge(evs)[0].Text != "finally" {
		t.Fatalf("events %+v, err %v", evs, err)
	}
	if n := len(srv.Requests()); n != 3 {
		t.Errorf("%d attempts, want 3", n)
	}
	d := sl.got()
	if len(d) != 2 || d[0] != 3*time.Second {
		t.Fatalf("sleeps %v, want [3s, backoff]", d)
	}
	if d[1] < 100*time.Millisecond || d[1] > 200*time.Millisecond { // base·2 with equal jitter
		t.Errorf("second backoff %v, want within [100ms, 200ms]", d[1])
	}
	if !reflect.DeepEqual(retries, []int{1, 2}) {
		t.Errorf("OnRetry attempts %v", retries)
	}
}

func TestRetryAfterForms(t *testing.T) {
	tests := []struct {
		name     string
		header   map[string]string
		min, max time.Duration
	}{
		{"seconds", map[string]string{"Retry-After": "7"}, 7 * time.Second, 7 * time.Second},
		{"capped", map[string]string{"Retry-After": "3600"}, time.Minute, time.Minute},
		{"http date", map[string]string{"Retry-After": time.Now().Add(20 * time.Second).UTC().Format(http.TimeFormat)}, 18 * time.Second, 20 * time.Second},
		{"milliseconds", map[string]string{"Retry-After-Ms": "250", "Retry-After": "9"}, 250 * time.Millisecond, 250 * time.Millisecond},
		{"garbage falls back to backoff", map[string]string{"Retry-After": "soon"}, 5 * time.Millisecond, 10 * time.Millisecond},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var n int
			var mu sync.Mutex
			hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				mu.Lock()
				n++
				first := n == 1
				mu.Unlock()
				if first {
					for k, v := range tt.header {
						w.Header().Set(k, v)
					}
					http.Error(w, `{"error":{"message":"slow down","type":"requests"}}`, http.StatusTooManyRequests)
					return
				}
				replay.NewServer(script(t, `{"turns":[{"text":"ok"}]}`)).ServeHTTP(w, r)
			}))
			defer hs.Close()
			p, sl := newProvider(t, hs.URL+"/v1", nil)
			st, err := p.Stream(context.Background(), userTurn)
			if err != nil {
				t.Fatal(err)
			}
			st.Close()
			d := sl.got()
			if len(d) != 1 || d[0] < tt.min || d[0] > tt.max {
				t.Errorf("sleeps %v, want one in [%v, %v]", d, tt.min, tt.max)
			}
		})
	}
}

func TestErrorsNotRetried(t *testing.T) {
	tests := []struct {
		name   string
		status int
		body   string
		want   []string
	}{
		{"401", 401, "Incorrect API key provided: sk-test-123456789.", []string{"HTTP 401", "check OPENAI_API_KEY", "[REDACTED]"}},
		{"404", 404, "The model `nope` does not exist", []string{"HTTP 404", "check --model", "OPENAI_BASE_URL", "does not exist"}},
		{"403", 403, "no access", []string{"HTTP 403", "OPENAI_API_KEY"}},
		{"400", 400, "bad things", []string{"HTTP 400", "bad things"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv, url := replay.Start(t, script(t, fmt.Sprintf(`{"turns":[{"http_status":%d,"error":%q},{"text":"never"}]}`, tt.status, tt.body)))
			p, sl := newProvider(t, url, func(c *openai.Config) { c.APIKey = "sk-test-123456789" })
			_, err := p.Stream(context.Background(), userTurn)
			var me *openai.ModelError
			if !errors.As(err, &me) {
				t.Fatalf("err = %v, want *ModelError", err)
			}
			if me.Status != tt.status || me.Retryable || me.Attempts != 1 {
				t.Errorf("status %d retryable %v attempts %d", me.Status, me.Retryable, me.Attempts)
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("message %q lacks %q", err, w)
				}
			}
			if strings.Contains(err.Error(), "sk-test-123456789") {
				t.Errorf("message leaks the key: %q", err)
			}
			if len(srv.Requests()) != 1 || len(sl.got()) != 0 {
				t.Errorf("retried: %d requests, sleeps %v", len(srv.Requests()), sl.got())
			}
		})
	}
}

func TestQuotaNotRetried(t *testing.T) {
	var n int
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n++
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(429)
		_, _ = io.WriteString(w, `{"error":{"message":"You exceeded your current quota","type":"insufficient_quota","code":"insufficient_quota"}}`)
	}))
	defer hs.Close()
	p, _ := newProvider(t, hs.URL, nil)
	_, err := p.Stream(context.Background(), userTurn)
	var me *openai.ModelError
	if !errors.As(err, &me) || me.Retryable || n != 1 || !strings.Contains(err.Error(), "billing") {
		t.Fatalf("err = %v, requests %d", err, n)
	}
}

func TestRetriesExhausted(t *testing.T) {
	srv, url := replay.Start(t, script(t, `{"turns":[{"http_status":502},{"http_status":503},{"http_status":500},{"text":"late"}]}`))
	p, sl := newProvider(t, url, func(c *openai.Config) { c.MaxRetries = 2 })
	_, err := p.Stream(context.Background(), userTurn)
	var me *openai.ModelError
	if !errors.As(err, &me) || me.Status != 500 || !me.Retryable || me.Attempts != 3 {
		t.Fatalf("err = %#v", err)
	}
	if !strings.Contains(err.Error(), "after 3 attempts") || len(srv.Requests()) != 3 || len(sl.got()) != 2 {
		t.Errorf("err %q, %d requests, sleeps %v", err, len(srv.Requests()), sl.got())
	}
}

func TestConnectionErrorsRetried(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close() // nothing listens there now: connection refused
	p, sl := newProvider(t, "http://"+addr+"/v1", func(c *openai.Config) { c.MaxRetries = 3 })
	_, err = p.Stream(context.Background(), userTurn)
	var me *openai.ModelError
	if !errors.As(err, &me) || me.Status != 0 || !me.Retryable || me.Attempts != 4 || len(sl.got()) != 3 {
		t.Fatalf("err = %v (%#v), sleeps %v", err, me, sl.got())
	}
	if !strings.Contains(err.Error(), "cannot reach the model endpoint") || !strings.Contains(err.Error(), "OPENAI_BASE_URL") {
		t.Errorf("message %q", err)
	}
}

func TestDropBeforeFirstChunkIsRetried(t *testing.T) {
	srv, url := replay.Start(t, script(t, `{"turns":[{"text":"lost","drop_after_chunks":0},{"text":"second try"}]}`))
	p, sl := newProvider(t, url, nil)
	st, err := p.Stream(context.Background(), userTurn)
	if err != nil {
		t.Fatal(err)
	}
	evs, err := drain(st)
	if err != nil || merge(evs)[0].Text != "second try" || len(srv.Requests()) != 2 || len(sl.got()) != 1 {
		t.Fatalf("events %+v, err %v, requests %d", evs, err, len(srv.Requests()))
	}
}

func TestNoRetryAfterStreamStarted(t *testing.T) {
	srv, url := replay.Start(t, script(t, `{"turns":[{"text":"partial answer here","drop_after_chunks":3},{"text":"must not be requested"}]}`))
	p, sl := newProvider(t, url, nil)
	st, err := p.Stream(context.Background(), userTurn)
	if err != nil {
		t.Fatal(err)
	}
	evs, err := drain(st)
	var me *openai.ModelError
	if !errors.As(err, &me) || !strings.Contains(err.Error(), "mid-stream") {
		t.Fatalf("err = %v", err)
	}
	if count(evs, agent.EvTextDelta) != 2 || count(evs, agent.EvFinish) != 0 {
		t.Errorf("events before the drop: %+v", evs)
	}
	if len(srv.Requests()) != 1 || srv.Remaining() != 1 || len(sl.got()) != 0 {
		t.Errorf("retried after the stream started: %d requests", len(srv.Requests()))
	}
}

func TestCancelMidStream(t *testing.T) {
	for _, whileBlocked := range []bool{false, true} {
		t.Run(fmt.Sprintf("whileBlocked=%v", whileBlocked), func(t *testing.T) {
			_, url := replay.Start(t, script(t, `{"turns":[{"text":"0123456789abcdefghij","chunk_size":5,"stall_after_chunks":3}]}`))
			p, _ := newProvider(t, url, nil)
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			st, err := p.Stream(ctx, userTurn)
			if err != nil {
				t.Fatal(err)
			}
			defer st.Close()
			for i := 0; i < 2; i++ { // the two text chunks before the stall
				if ev, err := st.Recv(); err != nil || ev.Kind != agent.EvTextDelta {
					t.Fatalf("event %d: %+v %v", i, ev, err)
				}
			}
			errc := make(chan error, 1)
			if whileBlocked {
				go func() { _, err := st.Recv(); errc <- err }()
				cancel()
			} else {
				cancel()
				_, err := st.Recv()
				errc <- err
			}
			if err := <-errc; !errors.Is(err, context.Canceled) {
				t.Fatalf("err = %v, want context.Canceled", err)
			}
		})
	}
}

func TestCancelBeforeFirstChunk(t *testing.T) {
	srv := replay.NewServer(script(t, `{"turns":[{"text":"x","stall_after_chunks":0}]}`))
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	srv.OnRequest = func(int) { cancel() }
	hs := httptest.NewServer(srv)
	defer hs.Close()
	defer srv.Close()
	p, _ := newProvider(t, hs.URL+"/v1", nil)
	if _, err := p.Stream(ctx, userTurn); !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v", err)
	}
}

func TestCancelDuringBackoffReturnsPromptly(t *testing.T) {
	_, url := replay.Start(t, script(t, `{"turns":[{"http_status":503},{"text":"x"}]}`))
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	p, err := openai.New(openai.Config{BaseURL: url, Model: "m", BaseBackoff: time.Hour,
		OnRetry: func(int, time.Duration, error) { cancel() }})
	if err != nil {
		t.Fatal(err)
	}
	t0 := time.Now()
	_, err = p.Stream(ctx, userTurn)
	if !errors.Is(err, context.Canceled) || time.Since(t0) > 30*time.Second {
		t.Fatalf("err = %v after %v", err, time.Since(t0))
	}
}

func TestIdleTimeout(t *testing.T) {
	srv, url := replay.Start(t, script(t, `{"turns":[{"text":"0123456789","stall_after_chunks":2},{"text":"no"}]}`))
	p, _ := newProvider(t, url, func(c *openai.Config) { c.IdleTimeout = 50 * time.Millisecond })
	st, err := p.Stream(context.Background(), userTurn)
	if err != nil {
		t.Fatal(err)
	}
	_, err = drain(st)
	var me *openai.ModelError
	if !errors.As(err, &me) || !strings.Contains(err.Error(), "stalled") || len(srv.Requests()) != 1 {
		t.Fatalf("err = %v", err)
	}
}

func TestTruncatedStreamIsAnError(t *testing.T) {
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		_, _ = io.WriteString(w, "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"half\"}}]}\n\n")
	}))
	defer hs.Close()
	p, _ := newProvider(t, hs.URL, nil)
	st, err := p.Stream(context.Background(), userTurn)
	if err != nil {
		t.Fatal(err)
	}
	evs, err := drain(st)
	if len(evs) != 1 || err == nil || !strings.Contains(err.Error(), "no finish reason") {
		t.Fatalf("events %+v, err %v", evs, err)
	}
}

func TestInBandErrorMidStream(t *testing.T) {
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		_, _ = io.WriteString(w, "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"a\"}}]}\n\n")
		_, _ = io.WriteString(w, "data: {\"error\":{\"message\":\"upstream boom\",\"code\":502}}\n\n")
	}))
	defer hs.Close()
	p, _ := newProvider(t, hs.URL, nil)
	st, err := p.Stream(context.Background(), userTurn)
	if err != nil {
		t.Fatal(err)
	}
	_, err = drain(st)
	var me *openai.ModelError
	if !errors.As(err, &me) || me.Status != 502 || !strings.Contains(err.Error(), "upstream boom") {
		t.Fatalf("err = %v", err)
	}
}

func TestNotAStream(t *testing.T) {
	for name, body := range map[string]string{
		"json":      `{"id":"x","object":"chat.completion","choices":[]}`,
		"html page": strings.Repeat("<p>Please log in to the Wi-Fi</p>\n", 400),
	} {
		t.Run(name, func(t *testing.T) {
			var n int
			hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				n++
				_, _ = io.WriteString(w, body)
			}))
			defer hs.Close()
			p, _ := newProvider(t, hs.URL, nil)
			_, err := p.Stream(context.Background(), userTurn)
			var me *openai.ModelError
			if !errors.As(err, &me) || me.Retryable || n != 1 || !strings.Contains(err.Error(), "without any stream data") {
				t.Fatalf("err = %v, requests %d", err, n)
			}
		})
	}
}

func TestCloseUnblocksRecv(t *testing.T) {
	_, url := replay.Start(t, script(t, `{"turns":[{"text":"0123456789","stall_after_chunks":2}]}`))
	p, _ := newProvider(t, url, nil)
	st, err := p.Stream(context.Background(), userTurn)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := st.Recv(); err != nil {
		t.Fatal(err)
	}
	errc := make(chan error, 1)
	go func() { _, err := st.Recv(); errc <- err }()
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	if err := <-errc; err == nil || errors.Is(err, io.EOF) {
		t.Fatalf("Recv after Close: %v", err)
	}
	if err := st.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
}
