package tui

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"agent/internal/app"
	"agent/internal/event"
)

// harness runs the real program (root model, service, loop, tools, journal,
// the scripted provider) without a terminal: messages go in with Send, and
// the model is looked at on the program's goroutine (probe).
type harness struct {
	t    *testing.T
	ws   string
	home string
	pr   *program
	done chan Result
	// clock is the model's now: tests move it past the approval key guard.
	clock time.Time
}

type call struct{ ID, Name, Args string }

// turnJSON is one scripted model turn.
func turnJSON(text string, calls ...call) map[string]any {
	t := map[string]any{"text": text}
	var cs []map[string]any
	for _, c := range calls {
		cs = append(cs, map[string]any{"id": c.ID, "name": c.Name, "arguments": c.Args})
	}
	if cs != nil {
		t["tool_calls"] = cs
	}
	return t
}

func args(v any) string { b, _ := json.Marshal(v); return string(b) }

func newHarness(t *testing.T, approval string, files map[string]string, turns ...map[string]any) *harness {
	t.Helper()
	return newHarnessWith(t, nil, approval, files, turns...)
}

// newHarnessWith is newHarness with the settings changed by set first (a
// small context window).
func newHarnessWith(t *testing.T, set func(*app.Settings), approval string, files map[string]string, turns ...map[string]any) *harness {
	t.Helper()
	ws := t.TempDir()
	for name, body := range files {
		p := filepath.Join(ws, name)
		os.MkdirAll(filepath.Dir(p), 0o755)
		os.WriteFile(p, []byte(body), 0o644)
	}
	for _, a := range [][]string{{"init", "-q"}, {"add", "-A"}, {"-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "init", "--allow-empty"}} {
		c := exec.Command("git", a...)
		c.Dir = ws
		if out, err := c.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v %s", a, err, out)
		}
	}
	script := filepath.Join(t.TempDir(), "script.json")
	b, _ := json.Marshal(map[string]any{"turns": turns})
	os.WriteFile(script, b, 0o644)
	home := filepath.Join(t.TempDir(), "home")
	settings := &app.Settings{Workspace: ws, Home: home, Model: "test-model", Approval: event.ApprovalMode(approval), Replay: script, MaxSteps: 20}
	if set != nil {
		set(settings)
	}
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	pr, err := start(ctx, Options{Settings: settings, Env: []string{"TERM=xterm-256color"}, Out: discard{}},
		tea.WithInput(nil), tea.WithOutput(discard{}), tea.WithWindowSize(120, 40), tea.WithoutRenderer())
	if err != nil {
		t.Fatal(err)
	}
	h := &harness{t: t, ws: ws, home: home, pr: pr, done: make(chan Result, 1), clock: time.Now()}
	go func() { h.done <- pr.run(ctx) }()
	h.probe(func(m *model) { m.now = func() time.Time { return h.clock } })
	h.until("the window size", func(m *model) bool { return m.width > 0 })
	t.Cleanup(func() {
		pr.p.Quit()
		select {
		case <-h.done:
		case <-time.After(10 * time.Second):
			t.Error("the program did not end")
		}
	})
	return h
}

type discard struct{}

func (discard) Write(p []byte) (int, error) { return len(p), nil }

// probe runs fn on the model on the program's goroutine and waits for it.
func (h *harness) probe(fn func(*model)) {
	h.t.Helper()
	done := make(chan struct{})
	h.pr.p.Send(probeMsg(func(m *model) { fn(m); close(done) }))
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		h.t.Fatal("the program did not answer")
	}
}

// until polls the model until cond holds.
func (h *harness) until(what string, cond func(*model) bool) {
	h.t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for {
		ok := false
		h.probe(func(m *model) { ok = cond(m) })
		if ok {
			return
		}
		if time.Now().After(deadline) {
			h.t.Fatalf("never: %s\nscreen:\n%s", what, h.screen())
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// screen is the rendered view as text.
func (h *harness) screen() string {
	var s string
	h.probe(func(m *model) { s = stripANSI(m.View().Content) })
	return s
}

// key presses one key; text types its characters.
func (h *harness) key(k tea.KeyPressMsg) { h.pr.p.Send(k) }

func (h *harness) text(s string) {
	for _, r := range s {
		h.key(tea.KeyPressMsg{Code: r, Text: string(r)})
	}
}

func (h *harness) enter() { h.key(tea.KeyPressMsg{Code: tea.KeyEnter}) }

// ask waits for an approval prompt and moves the clock past its key guard.
func (h *harness) ask() {
	h.t.Helper()
	h.until("an approval prompt", func(m *model) bool { return m.asking() })
	h.probe(func(m *model) { h.clock = h.clock.Add(askGuard + time.Millisecond) })
}

// idle waits until no run is being driven.
func (h *harness) idle() {
	h.t.Helper()
	h.until("the run to end", func(m *model) bool { return m.phase == phaseIdle && m.run != nil })
}

// events reads the run's journal.
func (h *harness) events() []event.Event {
	h.t.Helper()
	var id string
	h.probe(func(m *model) { id = m.runID() })
	evs, err := h.pr.svc.Home().Events(context.Background(), id)
	if err != nil {
		h.t.Fatal(err)
	}
	return evs
}

func stripANSI(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == 0x1b && i+1 < len(s) && s[i+1] == '[' {
			j := i + 2
			for j < len(s) && (s[j] < 0x40 || s[j] > 0x7e) {
				j++
			}
			i = j
			continue
		}
		b.WriteByte(s[i])
	}
	return b.String()
}
