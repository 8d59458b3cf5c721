package otlp_test

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"agent/internal/event"
	"agent/internal/otlp"
)

// recorder collects a Live exporter's warnings and audit rows.
type recorder struct {
	mu    sync.Mutex
	warns []string
	rows  []string
}

func (r *recorder) warn(s string) {
	r.mu.Lock()
	r.warns = append(r.warns, s)
	r.mu.Unlock()
}

func (r *recorder) audit(runID, detail string) error {
	r.mu.Lock()
	r.rows = append(r.rows, runID+": "+detail)
	r.mu.Unlock()
	return nil
}

func liveOptions(t *testing.T, url string, rec *recorder) otlp.LiveOptions {
	t.Helper()
	ep, err := otlp.ParseEndpoint(url)
	if err != nil {
		t.Fatal(err)
	}
	return otlp.LiveOptions{Endpoint: ep, Scope: otlp.Scope{Name: "test"}, Warn: rec.warn, Audit: rec.audit,
		Interval: time.Hour} // sends happen on run_finished, a full batch and Close only
}

func TestLiveExportsARun(t *testing.T) {
	rcv := newReceiver(t)
	rec := &recorder{}
	opt := liveOptions(t, rcv.srv.URL, rec)
	opt.BatchSize = 2
	opt.Content = func(string) bool { return false }
	l := otlp.NewLive(opt)
	for _, ev := range oneRun() {
		l.Observe(ev)
	}
	l.Close()
	spans := rcv.got()
	want := otlp.Trace(otlp.TraceOptions{RunID: "run-a"}, oneRun())
	if len(spans) != len(want) {
		t.Fatalf("the receiver got %d spans, want %d", len(spans), len(want))
	}
	ids := map[string]bool{}
	for _, s := range want {
		ids[hexID(s.ID[:])] = true
	}
	tid := otlp.TraceIDOf("run-a")
	for _, s := range spans {
		if hexID(s.TraceId) != hexID(tid[:]) || !ids[hexID(s.SpanId)] {
			t.Errorf("span %s: trace %x id %x is not the run's", s.Name, s.TraceId, s.SpanId)
		}
	}
	if rcv.requests < 3 {
		t.Errorf("%d requests for %d spans in batches of 2", rcv.requests, len(spans))
	}
	if len(rec.warns) != 0 {
		t.Errorf("warnings: %q", rec.warns)
	}
	if sent, failed := l.Stats("run-a"); sent != len(want) || failed != 0 {
		t.Errorf("stats %d sent, %d failed", sent, failed)
	}
	if len(rec.rows) != 2 || !strings.Contains(rec.rows[0], "live, as the run goes; metadata only") ||
		!strings.Contains(rec.rows[1], "live export done: 5 spans sent; metadata only") {
		t.Errorf("audit rows %q", rec.rows)
	}
}

// freeURL is the URL of a port nothing listens on.
func freeURL(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	return "http://" + addr
}

// A receiver that is down: every run goes on, one warning for the session,
// and the audit log says nothing arrived.
func TestLiveReceiverDownWarnsOnce(t *testing.T) {
	rec := &recorder{}
	opt := liveOptions(t, freeURL(t), rec)
	opt.BatchSize = 1
	l := otlp.NewLive(opt)
	for _, id := range []string{"run-1", "run-2", "run-3"} {
		for _, ev := range oneRun() {
			ev.RunID = id
			l.Observe(ev)
		}
	}
	l.Close()
	if len(rec.warns) != 1 || !strings.Contains(rec.warns[0], "could not be sent over OTLP") ||
		!strings.Contains(rec.warns[0], "the run goes on without it") {
		t.Fatalf("warnings: %q", rec.warns)
	}
	for _, id := range []string{"run-1", "run-2", "run-3"} {
		if sent, failed := l.Stats(id); sent != 0 || failed != 5 {
			t.Errorf("%s: %d sent, %d failed", id, sent, failed)
		}
	}
	done := 0
	for _, r := range rec.rows {
		if strings.Contains(r, "live export done: 0 spans sent, 5 not delivered (post to ") {
			done++
		}
	}
	if done != 3 {
		t.Errorf("audit rows %q", rec.rows)
	}
}

// A receiver that never answers: Observe never waits for it, the queue
// drops the oldest spans beyond its bound, and Close gives up after
// CloseTimeout.
func TestLiveSlowReceiverDoesNotHoldTheRun(t *testing.T) {
	rcv := newReceiver(t)
	hold := make(chan struct{})
	rcv.hold = hold
	t.Cleanup(func() { close(hold) })
	rec := &recorder{}
	opt := liveOptions(t, rcv.srv.URL, rec)
	opt.BatchSize, opt.MaxQueue, opt.PostTimeout, opt.CloseTimeout = 1, 2, time.Hour, 50*time.Millisecond
	l := otlp.NewLive(opt)
	for i := 0; i < 20; i++ {
		for _, ev := range oneRun() {
			l.Observe(ev) // would deadlock the test if it waited for the receiver
		}
	}
	l.Close()
	sent, failed := l.Stats("run-a")
	if sent != 0 || failed != 100 {
		t.Errorf("%d sent, %d failed of 100", sent, failed)
	}
	if len(rec.warns) != 1 {
		t.Errorf("warnings %q", rec.warns)
	}
	last := rec.rows[len(rec.rows)-1]
	if !strings.Contains(last, "0 spans sent, 100 not delivered") {
		t.Errorf("audit %q", last)
	}
}

// A process that ends mid-run (Close without run_finished) still sends the
// spans that were open, ended now.
func TestLiveCloseEndsOpenSpans(t *testing.T) {
	rcv := newReceiver(t)
	rec := &recorder{}
	l := otlp.NewLive(liveOptions(t, rcv.srv.URL, rec))
	evs := oneRun()
	for _, ev := range evs[:5] { // ... a tool call without its result
		l.Observe(ev)
	}
	l.Observe(event.Event{}) // no run id: ignored
	l.Close()
	l.Close()
	got := map[string]string{}
	for _, s := range rcv.got() {
		got[s.Name] = attrs(s.Attributes)["agent.tool.status"] + attrs(s.Attributes)["agent.run.status"]
	}
	if len(got) != 3 || got["execute_tool edit_file"] != "no_result_unfinished" || got["invoke_agent agent"] != "unfinished" {
		t.Errorf("spans %v", got)
	}
}

// User information in the endpoint is basic authentication (Langfuse's
// keys), never part of a message.
func TestClientBasicAuthAndRefusal(t *testing.T) {
	var user, pass string
	var ok bool
	status := http.StatusOK
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		user, pass, ok = r.BasicAuth()
		w.WriteHeader(status)
		_, _ = w.Write([]byte("quota exceeded\x00\x01"))
	}))
	defer srv.Close()
	ep, err := otlp.ParseEndpoint(strings.Replace(srv.URL, "http://", "http://pk-lf-1:sk-lf-secret@", 1) + "/api/public/otel")
	if err != nil {
		t.Fatal(err)
	}
	c := otlp.Client{Endpoint: ep}
	spans := otlp.Trace(otlp.TraceOptions{RunID: "run-a"}, oneRun())
	if n, err := c.Send(context.Background(), otlp.Resource{}, otlp.Scope{}, spans, nil); err != nil || n != len(spans) {
		t.Fatalf("send: %d, %v", n, err)
	}
	if !ok || user != "pk-lf-1" || pass != "sk-lf-secret" {
		t.Errorf("basic auth %v %q %q", ok, user, pass)
	}
	status = http.StatusTooManyRequests
	_, err = c.Send(context.Background(), otlp.Resource{}, otlp.Scope{}, spans, nil)
	if !errors.Is(err, otlp.ErrRejected) || !strings.Contains(err.Error(), "429 Too Many Requests: quota exceeded") ||
		strings.Contains(err.Error(), "sk-lf-secret") {
		t.Errorf("refusal: %v", err)
	}
}
