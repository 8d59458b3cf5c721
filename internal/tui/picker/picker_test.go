package picker

import (
	"fmt"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"agent/internal/tui/theme"
)

func press(m *Model, keys ...string) tea.Msg {
	var last tea.Msg
	for _, k := range keys {
		var msg tea.KeyPressMsg
		switch k {
		case "enter":
			msg = tea.KeyPressMsg{Code: tea.KeyEnter}
		case "esc":
			msg = tea.KeyPressMsg{Code: tea.KeyEscape}
		case "down":
			msg = tea.KeyPressMsg{Code: tea.KeyDown}
		case "up":
			msg = tea.KeyPressMsg{Code: tea.KeyUp}
		default:
			msg = tea.KeyPressMsg{Code: rune(k[0]), Text: k}
		}
		_, cmd := m.Update(msg)
		last = nil
		if cmd != nil {
			last = cmd()
		}
	}
	return last
}

func TestChooseAndAct(t *testing.T) {
	m := New(Options{Theme: theme.New(true, true), Title: "Grants", Empty: "no grants", Choose: "resume",
		Actions: []Action{{Key: "d", Label: "revoke"}}})
	m.SetSize(60, 10)
	if v := ansi.Strip(m.View()); !strings.Contains(v, "no grants") {
		t.Fatalf("empty list does not say so:\n%s", v)
	}
	var items []Item
	for i := 0; i < 20; i++ {
		items = append(items, Item{ID: fmt.Sprint(i), Title: fmt.Sprintf("row %d", i), Detail: "detail"})
	}
	m.SetItems(items)
	if got := press(m, "down", "down", "enter"); got != (ChosenMsg{Item: items[2]}) {
		t.Fatalf("enter gave %#v", got)
	}
	if got := press(m, "d"); got != (ChosenMsg{Item: items[2], Action: "d"}) {
		t.Fatalf("d gave %#v", got)
	}
	for i := 0; i < 15; i++ {
		press(m, "down")
	}
	v := ansi.Strip(m.View())
	if !strings.Contains(v, "› row 17") || strings.Contains(v, "row 0 ") {
		t.Fatalf("the list did not scroll to the selection:\n%s", v)
	}
	if !strings.Contains(v, "more") {
		t.Errorf("rows below are not announced:\n%s", v)
	}
	for i, l := range strings.Split(v, "\n") {
		if w := ansi.StringWidth(l); w != 60 {
			t.Errorf("line %d is %d columns: %q", i, w, l)
		}
	}
	if got := len(strings.Split(v, "\n")); got > 10 {
		t.Errorf("the view is %d lines, more than its 10", got)
	}
	if _, ok := press(m, "esc").(ClosedMsg); !ok {
		t.Error("esc did not close")
	}
}

// Untrusted titles cannot drive the terminal.
func TestRowsAreVisibleText(t *testing.T) {
	m := New(Options{Theme: theme.New(true, true), Title: "Runs"})
	m.SetSize(50, 8)
	m.SetItems([]Item{{ID: "x", Title: "fix \x1b]0;pwned\x07 it", Detail: "a\u202eb"}})
	v := m.View()
	if strings.Contains(v, "\x1b]0;") || strings.Contains(v, "\u202e") {
		t.Fatalf("control sequences reached the view: %q", v)
	}
}
