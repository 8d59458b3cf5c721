package tui

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"agent/internal/protocol"
)

// A running command's card shows its output as it arrives, and the
// activity line says what runs, for how long and how to stop it; when the
// run ends the line goes and no tick is left scheduled.
func TestLiveOutputAndActivity(t *testing.T) {
	cmd := `echo live-1; while [ ! -e go-on ]; do sleep 0.02; done; echo second-$((1+1))`
	h := newHarness(t, "full-auto", nil,
		turnJSON("", call{"c1", "run_command", args(map[string]any{"command": cmd})}),
		turnJSON("finished"))
	h.until("an idle line with no tick", func(m *model) bool { return !m.life.act.Ticking() && !m.life.act.Active() })
	h.text("run it")
	h.enter()
	h.until("the first line in the running card", func(m *model) bool {
		e := m.tr.cards["c1"]
		return e != nil && e.status == cardRunning && strings.Contains(h.screenOf(m), "│ live-1")
	})
	s := h.screen()
	if strings.Contains(s, "second-2") {
		t.Fatalf("second-2 shows before the command printed it:\n%s", s)
	}
	if !strings.Contains(s, "Running echo live-1") || !strings.Contains(s, "esc to interrupt") {
		t.Fatalf("no activity line naming the command:\n%s", s)
	}
	h.probe(func(m *model) { h.clock = h.clock.Add(5 * time.Second) })
	if s := h.screen(); !strings.Contains(s, "· 5s ·") {
		t.Fatalf("the elapsed time did not advance to 5s:\n%s", s)
	}
	if err := os.WriteFile(filepath.Join(h.ws, "go-on"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	h.idle()
	h.until("the line gone and its ticks ended", func(m *model) bool { return !m.life.act.Active() && !m.life.act.Ticking() })
	if s := h.screen(); strings.Contains(s, "esc to interrupt") || !strings.Contains(s, "second-2") {
		t.Fatalf("after the run:\n%s", s)
	}
}

// A model that sends nothing for 30 s says so; a retry's backoff shows
// its countdown and reason until the model answers.
func TestSilenceAndRetryNotices(t *testing.T) {
	stall := turnJSON("never")
	stall["stall_after_chunks"] = 0
	h := newHarness(t, "ask", nil, stall)
	h.text("hello")
	h.enter()
	h.until("the request sent", func(m *model) bool {
		return m.tr.lastStep == 1 && strings.Contains(h.screenOf(m), "Thinking")
	})
	if s := h.screen(); strings.Contains(s, "sent nothing") {
		t.Fatalf("a silence notice at once:\n%s", s)
	}
	h.probe(func(m *model) { h.clock = h.clock.Add(31 * time.Second) })
	h.until("the silence notice", func(m *model) bool {
		return strings.Contains(h.screenOf(m), "the model has sent nothing for 31s")
	})
	var at time.Time
	h.probe(func(m *model) { at = h.clock })
	h.pr.p.Send(updateMsg{protocol.Update{Kind: protocol.UpdateRetry, Retry: &protocol.RetryNotice{
		Attempt: 2, Attempts: 5, Wait: 4 * time.Second, Reason: "connection refused", At: at}}})
	h.until("the retry notice", func(m *model) bool {
		return strings.Contains(h.screenOf(m), "retrying in 4s (2/5): connection refused")
	})
	h.probe(func(m *model) { h.clock = h.clock.Add(3 * time.Second) })
	h.until("the countdown", func(m *model) bool { return strings.Contains(h.screenOf(m), "retrying in 1s (2/5)") })
	h.pr.p.Send(updateMsg{protocol.Update{Kind: protocol.UpdateText, Text: "hel"}})
	h.until("the notice gone once the model answers", func(m *model) bool {
		s := h.screenOf(m)
		return !strings.Contains(s, "retrying") && !strings.Contains(s, "sent nothing")
	})
}

// The first screen orients: workspace, branch, model, mode, sandbox and
// where help is; /status shows the whole session.
func TestOrientationAndStatus(t *testing.T) {
	h := newHarness(t, "ask", nil, turnJSON("hi there"))
	head, _ := os.ReadFile(filepath.Join(h.ws, ".git", "HEAD"))
	branch := strings.TrimPrefix(strings.TrimSpace(string(head)), "ref: refs/heads/")
	s := h.screen()
	for _, want := range []string{"agent · " + filepath.Base(h.ws) + " · " + branch, "model test-model", "approval ask", "sandbox ", "? for help"} {
		if !strings.Contains(s, want) {
			t.Errorf("the first screen lacks %q:\n%s", want, s)
		}
	}
	if strings.Contains(s, "not a git repository") {
		t.Errorf("a git workspace warned about git:\n%s", s)
	}
	h.text("say hi")
	h.enter()
	h.idle()
	h.text("/status")
	h.enter()
	h.until("the status block", func(m *model) bool { return strings.Contains(h.screenOf(m), "journal") })
	s = h.screen()
	var id string
	h.probe(func(m *model) { id = m.runID() })
	for _, want := range []string{"workspace  " + h.ws, "branch     " + branch, "provider   replay", "model      test-model",
		"approval   ask", "sandbox", "tokens", "context", "run        " + id, "journal    " + filepath.Join(h.home, "agent.db")} {
		if !strings.Contains(s, want) {
			t.Errorf("/status lacks %q:\n%s", want, s)
		}
	}
}

// Outside a git repository the first screen says what that means.
func TestOrientationOutsideGit(t *testing.T) {
	h := newHarness(t, "ask", nil, turnJSON("hi"))
	if err := os.RemoveAll(filepath.Join(h.ws, ".git")); err != nil {
		t.Fatal(err)
	}
	h.probe(func(m *model) { m.orient() })
	if s := h.screen(); !strings.Contains(s, "not a git repository") || !strings.Contains(s, "/checkpoints") {
		t.Fatalf("no warning outside git:\n%s", s)
	}
}

// What the transcript showed is printed for the scrollback when the
// session ends: every item, not only the window.
func TestScrollbackHasTheTranscript(t *testing.T) {
	var long strings.Builder
	for i := 1; i <= 80; i++ {
		long.WriteString("- row " + string(rune('a'+i%26)) + "\n")
	}
	h := newHarness(t, "ask", nil, turnJSON("FIRST-ANSWER"), turnJSON(long.String()+"\nLAST-ANSWER"))
	h.text("one")
	h.enter()
	h.idle()
	h.text("two")
	h.enter()
	h.until("the second answer", func(m *model) bool { return strings.Contains(h.screenOf(m), "LAST-ANSWER") })
	h.idle()
	if strings.Contains(h.screen(), "FIRST-ANSWER") {
		t.Fatal("the first answer is still in the window: the test shows nothing")
	}
	var buf bytes.Buffer
	h.probe(func(m *model) { m.scrollback(&buf) })
	out := stripANSI(buf.String())
	for _, want := range []string{"agent · ", "one", "FIRST-ANSWER", "two", "LAST-ANSWER"} {
		if !strings.Contains(out, want) {
			t.Errorf("the scrollback lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "Ask, or /") {
		t.Error("the composer went to the scrollback")
	}
}
