package transcript

import (
	"strings"
	"testing"
)

// Any card can be focused with alt+↑/alt+↓ and expanded with ctrl+o, not
// only the last one: the first alt+↑ focuses the last card and the next ones walk back, scrolls an
// early card into a small window, and walking past the last card goes back
// to the default target.
func TestFocusAnyCardAndExpandIt(t *testing.T) {
	m := newModel(t, true, false, Options{})
	fill(m)
	m.SetSize(80, 12)
	press(m, "alt+up") // the first press focuses the default target, the last card
	if m.Focused() != "c10" {
		t.Fatalf("the first alt+↑ focused %q, want the last card c10", m.Focused())
	}
	for i := 0; i < 9; i++ { // c10 → c1
		press(m, "alt+up")
	}
	if m.Focused() != "c1" {
		t.Fatalf("after ten alt+↑ the focus is %q, want c1", m.Focused())
	}
	press(m, "alt+up")
	if m.Focused() != "c1" {
		t.Fatalf("alt+↑ on the first card moved the focus to %q", m.Focused())
	}
	v := plain(m.View())
	if !strings.Contains(v, "internal/store/journal.go") {
		t.Fatalf("the focused first card is not scrolled into view:\n%s", v)
	}
	cmd := press(m, "ctrl+o")
	if msg, ok := cmd().(CardToggledMsg); !ok || msg.CallID != "c1" || !msg.Expanded {
		t.Fatalf("ctrl+o on the focused first card: %#v, want c1 expanded", cmd())
	}
	if m.Card("c10").Expanded() {
		t.Error("ctrl+o expanded the last card, not the focused one")
	}
	// the focused header is highlighted (the theme's selection style)
	sel := m.ctx.Theme.Selected.Render("x")
	pre := sel[:strings.Index(sel, "x")]
	found := false
	for _, l := range strings.Split(m.View(), "\n") {
		if strings.HasPrefix(l, pre) && strings.Contains(l, "edit_file") {
			found = true
		}
	}
	if !found {
		t.Error("the focused card's header is not highlighted")
	}
	press(m, "alt+down")
	if m.Focused() != "c2" {
		t.Fatalf("alt+↓ moved the focus to %q, want c2", m.Focused())
	}
	for i := 0; i < 20; i++ {
		press(m, "alt+down")
	}
	if m.Focused() != "" {
		t.Fatalf("past the last card the focus is %q, want none", m.Focused())
	}
}
