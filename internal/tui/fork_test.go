package tui

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"

	"agent/internal/app"
	"agent/internal/event"
)

// f on a message of the rewind list, then y: a new run from that
// message's checkpoint, here: the files of that instant, the conversation
// up to it, the session in the fork; the run forked from keeps its journal,
// and the fork's files are undone by rolling back to the checkpoint taken
// before it.
func TestForkFromHereInTheRewindList(t *testing.T) {
	h, main := twoEditingMessages(t)
	parent := ""
	h.probe(func(m *model) { parent = m.runID() })
	before := len(h.events())
	h.escEsc()
	h.until("the rewind list", func(m *model) bool { return m.overlay == overlayRewind && len(m.rw.Prompts()) == 2 })
	h.until("the second message selected", func(m *model) bool { p, ok := m.rw.Selected(); return ok && strings.HasPrefix(p.Text, "SECONDMSG") })
	h.key(keyRune('f'))
	h.until("the confirmation", func(m *model) bool { return m.rw.Confirming() })
	if s := h.screen(); !strings.Contains(s, "fork from") || !strings.Contains(s, "SECONDMSG") {
		t.Fatalf("no fork confirmation on screen:\n%s", s)
	}
	h.key(keyRune('y'))
	h.until("the session in the fork", func(m *model) bool {
		return m.phase == phaseIdle && m.run != nil && m.run.ID() != parent
	})
	if got := readFile(t, main); !strings.Contains(got, `"Hi"`) {
		t.Fatalf("main.go in the fork = %s, want the text when SECONDMSG was sent", got)
	}
	s := h.screen()
	for _, want := range []string{"forked run " + parent, "FIRSTMSG", "agent rollback "} {
		if !strings.Contains(s, want) {
			t.Errorf("the fork's screen lacks %q:\n%s", want, s)
		}
	}
	var rs *event.RunStartedData
	var pre string
	for _, ev := range h.events() {
		switch d := ev.Data.(type) {
		case *event.RunStartedData:
			rs = d
		case *event.CheckpointData:
			if d.Kind == event.CheckpointRollback {
				pre = d.CheckpointID
			}
		}
	}
	if rs == nil || rs.ParentRun != parent || rs.ParentCheckpoint == "" || pre == "" {
		t.Fatalf("the fork's run_started %+v (checkpoint before %q), want its parent and checkpoint", rs, pre)
	}
	evs, err := h.pr.svc.Home().Events(context.Background(), parent)
	if err != nil || len(evs) != before {
		t.Fatalf("the parent's journal has %d events (want %d untouched): %v", len(evs), before, err)
	}
	// undo: the workspace as it was before the fork (the session lets go
	// of the fork first, as quitting would)
	h.probe(func(m *model) { m.run.Close(); m.run = nil })
	if _, err := h.pr.svc.Home().Rollback(context.Background(), pre, app.RollbackOptions{Files: true}); err != nil {
		t.Fatal(err)
	}
	if got := readFile(t, main); !strings.Contains(got, `"Hey"`) {
		t.Fatalf("main.go after undoing the fork = %s", got)
	}
}

// f in the checkpoint drawer forks from the selected checkpoint; a run in
// progress or a missing checkpoint refuses with a reason, changing nothing.
func TestForkFromTheCheckpointDrawer(t *testing.T) {
	h := newHarness(t, "full-auto", greet,
		turnJSON("Changing it.", edit("c1", `"Hello"`, `"Hi"`)), turnJSON("Done one."))
	main := filepath.Join(h.ws, "main.go")
	h.probe(func(m *model) { m.forkFrom("") }) // no run yet
	h.until("the refusal", func(m *model) bool { return strings.Contains(m.flash, "Esc interrupts") })
	h.text("ONLYMSG greet less formally")
	h.enter()
	h.idle()
	parent := ""
	h.probe(func(m *model) { parent = m.runID(); m.forkFrom("") })
	h.until("the refusal", func(m *model) bool { return strings.Contains(m.flash, "nothing to fork from") && m.run != nil })
	h.key(tea.KeyPressMsg{Code: 'x', Mod: tea.ModCtrl})
	h.key(keyRune('k'))
	h.until("the drawer", func(m *model) bool {
		return m.overlay == overlayCheckpoints && func() bool { _, ok := m.cpDrawer.Selected(); return ok }()
	})
	h.until("the before checkpoint selected", func(m *model) bool {
		c, ok := m.cpDrawer.Selected()
		if ok && c.Kind != "before" {
			m.cpDrawer.Update(tea.KeyPressMsg{Code: tea.KeyDown})
		}
		return ok && c.Kind == "before"
	})
	h.key(keyRune('f'))
	h.until("the confirmation", func(m *model) bool { return m.cpDrawer.Confirming() })
	h.key(keyRune('y'))
	h.until("the session in the fork", func(m *model) bool { return m.phase == phaseIdle && m.run != nil && m.run.ID() != parent })
	if got := readFile(t, main); !strings.Contains(got, `"Hello"`) {
		t.Fatalf("main.go in the fork = %s, want the file before c1", got)
	}
}
