package transcript

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"agent/internal/tui/markdown"
	"agent/internal/tui/theme"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/")

func newModel(t testing.TB, dark, noColor bool, opts Options) *Model {
	t.Helper()
	opts.Theme = theme.New(dark, noColor)
	m, err := New(opts)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func newMarkdown(t testing.TB, dark bool, hook func(string)) *markdown.Renderer {
	t.Helper()
	r, err := markdown.New(markdown.Options{Theme: theme.New(dark, false), OnRender: hook})
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// plain is the view as a person reads it: no escapes, no trailing spaces.
func plain(view string) string {
	lines := strings.Split(ansi.Strip(view), "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRight(l, " ")
	}
	return strings.Join(lines, "\n")
}

// plainLines is plain split into lines.
func plainLines(view string) []string { return strings.Split(plain(view), "\n") }

func press(m *Model, keys ...string) tea.Cmd {
	var cmd tea.Cmd
	for _, k := range keys {
		_, cmd = m.Update(keyMsg(k))
	}
	return cmd
}

func keyMsg(k string) tea.KeyPressMsg {
	switch k {
	case "pgup":
		return tea.KeyPressMsg{Code: tea.KeyPgUp}
	case "pgdown":
		return tea.KeyPressMsg{Code: tea.KeyPgDown}
	case "home":
		return tea.KeyPressMsg{Code: tea.KeyHome}
	case "end":
		return tea.KeyPressMsg{Code: tea.KeyEnd}
	case "ctrl+o":
		return tea.KeyPressMsg{Code: 'o', Mod: tea.ModCtrl}
	case "alt+up":
		return tea.KeyPressMsg{Code: tea.KeyUp, Mod: tea.ModAlt}
	case "alt+down":
		return tea.KeyPressMsg{Code: tea.KeyDown, Mod: tea.ModAlt}
	}
	panic("no key " + k)
}

func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name+".golden")
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to write it)", err)
	}
	if string(want) != got {
		t.Errorf("%s differs from the view (go test -update rewrites it; review by eye):\n--- want\n%s\n--- got\n%s", path, want, got)
	}
}
