package tui

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"

	"agent/internal/event"
	"agent/internal/tui/composer"
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

// A folded paste shows in the transcript as its label and an @file as its
// name; the model gets both whole. A reopened run (no composer display)
// names the attached files instead of printing them.
func TestPasteAndAttachmentFoldedInTranscript(t *testing.T) {
	big := strings.Repeat("attached body line\n", 200)
	h := newHarness(t, "ask", map[string]string{"main.go": greet["main.go"], "notes.txt": big},
		turnJSON("Pasted text seen."), turnJSON("File seen."))
	var lines []string
	for i := 0; i < 500; i++ {
		lines = append(lines, fmt.Sprintf("log line %03d: something happened", i))
	}
	h.pr.p.Send(tea.PasteMsg{Content: strings.Join(lines, "\n")})
	h.until("the paste folded", func(m *model) bool { return strings.Contains(stripANSI(m.input.View()), "[Pasted 500 lines") })
	h.text(" explain this")
	h.enter()
	h.until("the answer", func(m *model) bool {
		return m.phase == phaseIdle && strings.Contains(stripANSI(m.View().Content), "Pasted text seen")
	})
	h.pr.p.Send(composer.SubmitMsg{Text: "read @notes.txt please", Display: "read @notes.txt please", Attachments: []string{"notes.txt"}})
	h.until("the second answer", func(m *model) bool {
		return m.phase == phaseIdle && strings.Contains(stripANSI(m.View().Content), "File seen")
	})
	h.probe(func(m *model) {
		var users []string
		for _, e := range m.tr.entries {
			if e.kind == itemUser {
				users = append(users, e.text)
			}
		}
		all := strings.Join(users, "\n")
		if strings.Contains(all, "log line 250") || !strings.Contains(all, "[Pasted 500 lines") {
			t.Errorf("the paste is printed whole in the transcript, not as its label:\n%.600s", all)
		}
		if strings.Contains(all, "attached body line") || !strings.Contains(all, "read @notes.txt please") {
			t.Errorf("the attached file is printed in the transcript:\n%.600s", all)
		}
	})
	var sent []string
	for _, ev := range h.events() {
		if u, ok := ev.Data.(*event.UserMessageData); ok {
			sent = append(sent, u.Text)
		}
	}
	if len(sent) != 2 || !strings.Contains(sent[0], "log line 250") || !strings.Contains(sent[1], "attached body line") {
		t.Errorf("the model did not get the paste and the file whole: %d messages", len(sent))
	}
	if got := foldAttachments(sent[1]); strings.Contains(got, "attached body line") || !strings.Contains(got, "[attached: notes.txt]") {
		t.Errorf("a reopened run's message shows %q, want the file named, not printed", got)
	}
}
