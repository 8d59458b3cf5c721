package tui

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"agent/internal/app"
	"agent/internal/event"
)

// lockedBuffer is the terminal's screen side: what the program wrote.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// On a terminal that reports synchronized output (DEC mode 2026), every
// frame is wrapped in it, so a terminal never shows half a frame; the
// session's transcript is written to the normal screen when it ends.
func TestSynchronizedOutputAndScrollback(t *testing.T) {
	ws := t.TempDir()
	if out, err := exec.Command("git", "-C", ws, "init", "-q").CombinedOutput(); err != nil {
		t.Fatalf("git init: %v %s", err, out)
	}
	script := filepath.Join(t.TempDir(), "script.json")
	b, _ := json.Marshal(map[string]any{"turns": []any{map[string]any{"text": "hi"}}})
	os.WriteFile(script, b, 0o644)
	set := &app.Settings{Workspace: ws, Home: filepath.Join(t.TempDir(), "home"), Model: "test-model",
		Approval: event.ApprovalAsk, Replay: script, MaxSteps: 3}
	in, keys := io.Pipe()
	out := &lockedBuffer{}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	pr, err := start(ctx, Options{Settings: set, In: in, Out: out, Env: []string{"TERM=xterm-256color"}}, tea.WithWindowSize(100, 30))
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan Result, 1)
	go func() { done <- pr.run(ctx) }()
	// the terminal answers the program's query: mode 2026 known, reset
	waitFor(t, "the query for mode 2026", func() bool { return strings.Contains(out.String(), "\x1b[?2026$p") })
	keys.Write([]byte("\x1b[?2026;2$y"))
	waitFor(t, "the first screen", func() bool { return strings.Contains(out.String(), "for help") })
	keys.Write([]byte("x")) // a change to draw
	waitFor(t, "a frame in synchronized output", func() bool { return strings.Contains(out.String(), "\x1b[?2026h") })
	waitFor(t, "the first screen", func() bool { return strings.Contains(out.String(), "for help") })
	pr.p.Quit()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("the program did not end")
	}
	s := out.String()
	if i, j := strings.LastIndex(s, "\x1b[?1049l"), strings.LastIndex(s, "? for help"); i < 0 || j < i {
		t.Fatalf("the transcript is not written after the alternate screen is left (%d, %d)", i, j)
	}
	keys.Close()
}

func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("never: %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}
