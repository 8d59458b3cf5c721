package tui

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"agent/internal/event"
	"agent/internal/tui/drawer"
)

func (h *harness) escEsc() {
	h.key(tea.KeyPressMsg{Code: tea.KeyEscape})
	h.key(tea.KeyPressMsg{Code: tea.KeyEscape})
}

// Esc Esc lists the person's messages with the files changed since each;
// choosing the first one rewinds files and conversation to just before it,
// puts the message back in the composer, and the rewind is undoable from
// the per-call checkpoints, one key (k) away.
func TestEscEscRewindsToFirstMessage(t *testing.T) {
	h, main := twoEditingMessages(t)
	if !strings.Contains(readFile(t, main), `"Hey"`) {
		t.Fatal("the edits did not happen")
	}
	h.escEsc()
	h.until("the rewind list", func(m *model) bool { return m.overlay == overlayRewind && len(m.rw.Prompts()) == 2 })
	s := h.screen()
	for _, want := range []string{"FIRSTMSG greet less formally", "SECONDMSG shorter still", "1 file changed since: main.go"} {
		if !strings.Contains(s, want) {
			t.Errorf("the rewind list lacks %q:\n%s", want, s)
		}
	}
	if strings.Contains(s, "call_") || strings.Contains(s, "c1") {
		t.Errorf("the rewind list shows call ids:\n%s", s)
	}
	h.key(tea.KeyPressMsg{Code: tea.KeyUp})
	h.until("the first message selected", func(m *model) bool { p, ok := m.rw.Selected(); return ok && strings.HasPrefix(p.Text, "FIRSTMSG") })
	h.enter()
	h.until("the confirmation", func(m *model) bool { return m.rw.Confirming() })
	if s := h.screen(); !strings.Contains(s, "rewind the files and the conversation to just before") {
		t.Errorf("no confirmation on screen:\n%s", s)
	}
	h.key(keyRune('y'))
	h.until("the rewind done", func(m *model) bool { return m.overlay == overlayNone && strings.Contains(m.input.Value(), "FIRSTMSG") })
	if got := readFile(t, main); !strings.Contains(got, `"Hello"`) {
		t.Fatalf("main.go after the rewind = %s, want the text before the first message", got)
	}
	var rb *event.RollbackData
	for _, ev := range h.events() {
		if d, ok := ev.Data.(*event.RollbackData); ok {
			rb = d
		}
	}
	if rb == nil || !rb.Conversation || rb.Before == "" {
		t.Fatalf("rollback event %+v, want a conversation rollback with a checkpoint of the state before", rb)
	}
	h.probe(func(m *model) {
		for i, e := range m.tr.entries {
			if e.kind == itemUser && strings.Contains(e.text, "FIRSTMSG") && !m.tr.view.Dimmed(i) {
				t.Error("the rewound first message is not dimmed in the transcript")
			}
		}
	})
	// undo: the per-call checkpoints are one key away from the list
	h.probe(func(m *model) { m.input.Reset() })
	h.escEsc()
	h.until("the rewind list", func(m *model) bool { return m.overlay == overlayRewind })
	h.key(keyRune('k'))
	h.until("the checkpoints", func(m *model) bool { return m.overlay == overlayCheckpoints })
	h.selectCheckpoint("undo rollback", func(c drawer.Checkpoint) bool { return c.Kind == event.CheckpointRollback })
	h.key(keyRune('c'))
	h.until("the confirmation", func(m *model) bool { return m.cpDrawer.Confirming() })
	h.key(keyRune('y'))
	h.until("the rewind undone", func(m *model) bool { return strings.Contains(readFileQuiet(main), `"Hey"`) })
}

// A single Esc while a step runs interrupts it, and does not pair with a
// second one into the rewind list.
func TestEscWhileRunningInterrupts(t *testing.T) {
	h := newHarness(t, "ask", greet, turnJSON("Changing it.", edit("c1", `"Hello"`, `"Hi"`)), turnJSON("Done."))
	h.text("change it")
	h.enter()
	h.ask()
	h.key(keyRune('3')) // deny: the turn stops
	h.idle()
	h.probe(func(m *model) { m.phase = phaseRunning })
	h.key(tea.KeyPressMsg{Code: tea.KeyEscape})
	h.until("interrupting", func(m *model) bool { return strings.Contains(m.flash, "interrupting") })
	h.probe(func(m *model) { m.phase = phaseIdle; h.clock = h.clock.Add(time.Second) })
	h.key(tea.KeyPressMsg{Code: tea.KeyEscape})
	h.probe(func(m *model) {
		if m.overlay == overlayRewind {
			t.Error("an Esc that interrupted paired with the next into the rewind list")
		}
	})
}

// twoEditingMessages runs two messages of the person's (FIRSTMSG,
// SECONDMSG), each answered by an edit of main.go ("Hello" → "Hi" → "Hey"),
// and returns once the second answer is on screen, with main.go's path.
func twoEditingMessages(t *testing.T) (*harness, string) {
	t.Helper()
	h := newHarness(t, "full-auto", greet,
		turnJSON("Changing it.", edit("c1", `"Hello"`, `"Hi"`)), turnJSON("Done one."),
		turnJSON("Again.", edit("c2", `"Hi"`, `"Hey"`)), turnJSON("Done two."))
	main := filepath.Join(h.ws, "main.go")
	h.text("FIRSTMSG greet less formally")
	h.enter()
	h.idle()
	h.text("SECONDMSG shorter still")
	h.enter()
	h.until("the second answer", func(m *model) bool {
		return m.phase == phaseIdle && strings.Contains(stripANSI(m.View().Content), "Done two.")
	})
	return h, main
}
