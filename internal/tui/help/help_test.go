package help

import (
	"fmt"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"agent/internal/tui/theme"
	"agent/internal/tui/tuitest"
)

func commands() []Command {
	return []Command{
		{Name: "/help", Summary: "this help"},
		{Name: "/context", Summary: "the context drawer"},
		{Name: "/checkpoints", Summary: "the checkpoint drawer (also /rewind)"},
		{Name: "/diff", Summary: "the run's changes so far"},
		{Name: "/status", Summary: "the run, the model, the tokens"},
		{Name: "/model", Args: "[NAME]", Summary: "show or switch the model"},
		{Name: "/approvals", Summary: "approval mode and this run's grants (revocable)"},
		{Name: "/resume", Summary: "pick a run of this workspace"},
		{Name: "/new", Summary: "start another run"},
		{Name: "/export", Summary: "export the run"},
		{Name: "/quit", Summary: "quit"},
	}
}

func open(th *theme.Theme, w, h int) *Model {
	m := New(Options{Theme: th, Commands: commands()})
	m.SetSize(w, h)
	return m
}

func TestGolden(t *testing.T) {
	for _, dark := range []bool{true, false} {
		mode := map[bool]string{true: "dark", false: "light"}[dark]
		for _, w := range []int{40, 80, 120, 200} {
			tuitest.Golden(t, fmt.Sprintf("help_%d_%s", w, mode), ansi.Strip(open(theme.New(dark, false), w, 0).View()))
		}
	}
	tuitest.Golden(t, "help_80x20_scrolled", func() string {
		m := open(nil, 80, 20)
		m.Update(tuitest.Key("pgdown"))
		return ansi.Strip(m.View())
	}())

}

// Every key the issue names, and every command given, is listed.
func TestListsTheKeysAndCommands(t *testing.T) {
	v := ansi.Strip(open(nil, 200, 0).View())
	for _, want := range []string{
		"esc", "interrupt the current step", "ctrl+c ctrl+c", "quit", "ctrl+o", "expand or collapse the focused", "alt+↑ alt+↓", "esc esc · /rewind", "rewind code, conversation or both",
		"ctrl+x c", "context drawer", "ctrl+x k", "checkpoints", "ctrl+x m", "mouse capture",
		"?", "this help", "pgup pgdn home end", "shift+enter ctrl+j alt+enter",
		"t", "unified or split", "f", "fullscreen", "] [", "next or previous hunk",
		"1 y", "allow once", "2 a", "allow for this run", "3 n esc", "deny", "4 tab", "deny with a note",
	} {
		if !strings.Contains(v, want) {
			t.Errorf("missing %q", want)
		}
	}
	for _, c := range commands() {
		if !strings.Contains(v, c.Name) || !strings.Contains(v, c.Summary) {
			t.Errorf("command %s is not listed", c.Name)
		}
	}
	if !strings.Contains(v, "/model [NAME]") {
		t.Error("a command's arguments are not shown")
	}
}

func TestCloses(t *testing.T) {
	for _, k := range []string{"esc", "?", "q"} {
		_, cmd := open(nil, 80, 30).Update(tuitest.Key(k))
		if got := tuitest.Msgs(cmd); len(got) != 1 || got[0] != (CloseMsg{}) {
			t.Fatalf("%s: %v, want a CloseMsg", k, got)
		}
	}
	if _, cmd := open(nil, 80, 30).Update(tuitest.Key("x")); cmd != nil {
		t.Fatal("another key closed the help")
	}
}

func TestScrollsWithTitleAndHintPinned(t *testing.T) {
	m := open(nil, 80, 20)
	first := tuitest.Rows(m.View())
	if len(first) != 20 || !strings.Contains(first[1], "Help") || !strings.Contains(first[18], "rows 1–") {
		t.Fatalf("20 rows with the title on top and the position at the bottom:\n%s", strings.Join(first, "\n"))
	}
	m.Update(tuitest.Key("end"))
	v := tuitest.Rows(m.View())
	if len(v) != 20 || !strings.Contains(strings.Join(v, "\n"), "/quit") || v[1] != first[1] {
		t.Fatalf("end does not show the last command:\n%s", strings.Join(v, "\n"))
	}
	m.Update(tea.MouseWheelMsg{Button: tea.MouseWheelUp})
	m.Update(tuitest.Key("home"))
	if v := tuitest.Rows(m.View()); v[3] != first[3] {
		t.Fatal("home does not return to the top")
	}
}

func TestFitsWidth(t *testing.T) {
	for _, w := range []int{16, 40, 63, 80, 99, 104, 120, 200} {
		for i, l := range tuitest.Rows(open(nil, w, 0).View()) {
			if got := ansi.StringWidth(l); got != w {
				t.Errorf("width %d: row %d is %d wide: %q", w, i, got, l)
			}
		}
	}
}

func TestNoColor(t *testing.T) {
	if bad := tuitest.ColourEscapes(open(theme.New(true, true), 120, 0).View()); len(bad) > 0 {
		t.Fatalf("colour escapes with NO_COLOR: %v", bad)
	}
	if len(tuitest.ColourEscapes(open(theme.New(true, false), 120, 0).View())) == 0 {
		t.Fatal("the dark theme sets no colour")
	}
}

func TestOwnSections(t *testing.T) {
	m := New(Options{Sections: []Section{{Title: "Only", Bindings: []Binding{{"x", "does x"}}}}})
	v := ansi.Strip(m.View())
	if !strings.Contains(v, "does x") || strings.Contains(v, "ctrl+o") || strings.Contains(v, "Slash commands") {
		t.Fatalf("given sections are not the ones shown:\n%s", v)
	}
	m.SetCommands([]Command{{Name: "/x", Summary: "run x"}})
	if !strings.Contains(ansi.Strip(m.View()), "/x  run x") {
		t.Fatal("SetCommands is not shown")
	}
}
