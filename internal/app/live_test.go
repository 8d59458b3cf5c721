package app

import (
	"context"
	"errors"
	"net"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"agent/internal/agent"
	"agent/internal/agent/openai"
	"agent/internal/event"
	"agent/internal/protocol"
	"agent/internal/replay"
)

// While the model adapter backs off, subscribers are told: which attempt
// comes, of how many, after what wait and why.
func TestRetryNoticePublished(t *testing.T) {
	sc, err := replay.Parse([]byte(`{"turns": [{"http_status": 429, "retry_after": "0"}, {"text": "hello"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	_, url := replay.Start(t, sc)
	ws := t.TempDir()
	if out, err := exec.Command("git", "-C", ws, "init", "-q").CombinedOutput(); err != nil {
		t.Fatalf("git init: %v %s", err, out)
	}
	set := &Settings{Workspace: ws, Home: filepath.Join(t.TempDir(), "home"), Model: "m", BaseURL: url, APIKey: "sk-test",
		Approval: event.ApprovalAsk, MaxSteps: 3}
	svc, err := Open(context.Background(), Options{Settings: set})
	if err != nil {
		t.Fatal(err)
	}
	defer svc.Close()
	var mu sync.Mutex
	var got []protocol.RetryNotice
	svc.Subscribe(func(u protocol.Update) {
		if u.Kind == protocol.UpdateRetry {
			mu.Lock()
			got = append(got, *u.Retry)
			mu.Unlock()
		}
	})
	r, err := svc.NewRun(context.Background(), "hi", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if out := r.Drive(context.Background()); out.Status != event.StatusCompleted {
		t.Fatalf("run: %s %v", out.Status, out.Err)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(got) != 1 {
		t.Fatalf("%d retry notices, want 1: %+v", len(got), got)
	}
	n := got[0]
	if n.Attempt != 2 || n.Attempts != 5 || n.Reason != "rate limited" || n.At.IsZero() {
		t.Fatalf("notice %+v", n)
	}
	if line := n.Line(n.At.Add(-4 * time.Second)); line != "retrying now (2/5): rate limited" && !strings.HasPrefix(line, "retrying in") {
		t.Fatalf("line %q", line)
	}
}

func TestRetryNoticeLine(t *testing.T) {
	at := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	n := protocol.RetryNotice{Attempt: 2, Attempts: 5, Wait: 4 * time.Second, Reason: "connection refused", At: at}
	for _, c := range []struct {
		after time.Duration
		want  string
	}{
		{0, "retrying in 4s (2/5): connection refused"},
		{1500 * time.Millisecond, "retrying in 3s (2/5): connection refused"},
		{5 * time.Second, "retrying now (2/5): connection refused"},
	} {
		if got := n.Line(at.Add(c.after)); got != c.want {
			t.Errorf("after %s: %q, want %q", c.after, got, c.want)
		}
	}
}

// The reason names what a person can act on, from the real errors.
func TestRetryReason(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	_, derr := net.Dial("tcp", addr)
	if derr == nil {
		t.Skip("the closed port accepted a connection")
	}
	if got := retryReason(derr); got != "connection refused" {
		t.Errorf("refused dial: %q", got)
	}
	// as the OpenAI adapter reports a refused endpoint
	var seen error
	p, err := openai.New(openai.Config{BaseURL: "http://" + addr + "/v1", Model: "m", MaxRetries: 1,
		Sleep:   func(context.Context, time.Duration) error { return nil },
		OnRetry: func(_ int, _ time.Duration, err error) { seen = err }})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.Stream(context.Background(), &agent.Request{Model: "m", Messages: []agent.Message{{Role: agent.RoleUser, Content: "go"}}}); err == nil {
		t.Fatal("a refused endpoint streamed")
	}
	if got := retryReason(seen); got != "connection refused" {
		t.Errorf("the adapter's refused request (%v): %q", seen, got)
	}
	if got := retryReason(errors.New("boom")); got != "no answer from the model endpoint" {
		t.Errorf("other: %q", got)
	}
}
