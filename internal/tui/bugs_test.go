package tui

import (
	"path/filepath"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"

	"agent/internal/tui/drawer"
)

// The "undo rollback" entry is counted (what undoing brings back, not
// "+0 −0"), and its preview says what undoing changes, in that direction:
// the edit comes back as added lines.
func TestUndoRollbackPreviewDirectionAndCounts(t *testing.T) {
	h := newHarness(t, "full-auto", greet, turnJSON("Changing it.", edit("c1", `"Hello"`, `"Hi"`)), turnJSON("Done."))
	main := filepath.Join(h.ws, "main.go")
	h.text("change the greeting")
	h.enter()
	h.idle()
	h.slashCmd("/checkpoints")
	h.selectCheckpoint("before c1", func(c drawer.Checkpoint) bool { return c.Kind == drawer.KindBefore && c.CallID == "c1" })
	h.enter() // preview: what rolling back does, the edit undone
	h.until("the rollback preview", func(m *model) bool {
		s := stripANSI(m.View().Content)
		return strings.Contains(s, "rolling back to step") && strings.Contains(s, `println("Hello")`)
	})
	h.probe(func(m *model) {
		s := stripANSI(m.View().Content)
		if !lineWith(s, `println("Hello")`, "+") || !lineWith(s, `println("Hi")`, "-") {
			t.Errorf("the rollback preview does not add Hello and remove Hi:\n%s", s)
		}
	})
	h.key(keyRune('c'))
	h.until("the confirmation", func(m *model) bool { return m.cpDrawer.Confirming() })
	h.key(keyRune('y'))
	h.until("the files rolled back", func(m *model) bool { return strings.Contains(m.flash, "rolled back") })
	if !strings.Contains(readFile(t, main), `"Hello"`) {
		t.Fatal("the rollback did not happen")
	}
	h.selectCheckpoint("undo rollback", func(c drawer.Checkpoint) bool { return c.Kind == drawer.KindRollback })
	h.probe(func(m *model) {
		c, _ := m.cpDrawer.Selected()
		if c.Added != 1 || c.Removed != 1 {
			t.Errorf("the undo rollback entry counts +%d −%d, want +1 −1 (what undoing brings back)", c.Added, c.Removed)
		}
		if s := stripANSI(m.View().Content); strings.Contains(s, "+0 −0") {
			t.Errorf("an entry shows +0 −0:\n%s", s)
		}
	})
	h.enter()
	h.until("the undo preview", func(m *model) bool {
		return strings.Contains(stripANSI(m.View().Content), "undoing the rollback changes")
	})
	h.until("the undo diff", func(m *model) bool { return strings.Contains(stripANSI(m.View().Content), `println("Hi")`) })
	h.probe(func(m *model) {
		s := stripANSI(m.View().Content)
		if !lineWith(s, `println("Hi")`, "+") || !lineWith(s, `println("Hello")`, "-") {
			t.Errorf("the undo preview does not bring Hi back (as added) over Hello (removed):\n%s", s)
		}
	})
}

// lineWith reports whether a line of s holds both text and sign (the diff
// view's + or − column).
func lineWith(s, text, sign string) bool {
	alt := map[string]string{"+": "+", "-": "−"}[sign]
	for _, l := range strings.Split(s, "\n") {
		if strings.Contains(l, text) && (strings.Contains(l, " "+sign+" ") || strings.Contains(l, " "+alt+" ") || strings.Contains(l, sign+"func") || strings.Contains(l, alt+"func")) {
			return true
		}
	}
	return false
}

// In the session, alt+↑ reaches an earlier card and ctrl+o expands that
// one, not the last.
func TestCtrlOExpandsAnEarlierCard(t *testing.T) {
	h := newHarness(t, "full-auto", greet,
		turnJSON("Changing it.", edit("c1", `"Hello"`, `"Hi"`)),
		turnJSON("Again.", edit("c2", `"Hi"`, `"Hey"`)), turnJSON("Done."))
	h.text("change it twice")
	h.enter()
	h.idle()
	h.key(tea.KeyPressMsg{Code: tea.KeyUp, Mod: tea.ModAlt})
	h.key(tea.KeyPressMsg{Code: tea.KeyUp, Mod: tea.ModAlt})
	h.key(tea.KeyPressMsg{Code: 'o', Mod: tea.ModCtrl})
	h.until("the first card expanded", func(m *model) bool {
		c := m.tr.view.Card("c1")
		return c != nil && c.Expanded()
	})
	h.probe(func(m *model) {
		if c := m.tr.view.Card("c2"); c == nil || c.Expanded() {
			t.Error("ctrl+o expanded the last card too")
		}
	})
}

// The help overlay is never cut: at 80x24 and 120x40 its box, title and
// bottom border are on screen above the composer.
func TestHelpOverlayNotClipped(t *testing.T) {
	for _, size := range [][2]int{{80, 24}, {120, 40}} {
		h := newHarness(t, "ask", greet, turnJSON("unused"))
		h.pr.p.Send(tea.WindowSizeMsg{Width: size[0], Height: size[1]})
		h.until("the size", func(m *model) bool { return m.width == size[0] && m.height == size[1] })
		h.key(keyRune('?'))
		h.until("the help", func(m *model) bool { return m.overlay == overlayHelp })
		s := h.screen()
		rows := strings.Split(s, "\n")
		if len(rows) != size[1] {
			t.Errorf("%dx%d: the screen has %d rows", size[0], size[1], len(rows))
		}
		if !strings.HasPrefix(strings.TrimSpace(rows[0]), "╭") || !strings.Contains(rows[1], "Help") {
			t.Errorf("%dx%d: the help box's top is cut:\n%s", size[0], size[1], s)
		}
		bottom := 0
		for _, r := range rows {
			if strings.HasPrefix(strings.TrimSpace(r), "╰") {
				bottom++
			}
		}
		if bottom < 2 { // the help's box and the composer's
			t.Errorf("%dx%d: the help box's bottom border is missing:\n%s", size[0], size[1], s)
		}
	}
}
