// Package tuitest owns what the TUI components' tests share: golden files
// of a stripped view (rewritten with -update), the key presses a terminal
// sends, running a command's messages, and finding colour escapes in a view.
// Only tests import it; it must not import any TUI component.
package tuitest

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/colorprofile"
	"github.com/charmbracelet/x/ansi"
)

// update is the -update flag of every test binary that imports tuitest.
var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// Updating reports whether -update asks the golden files to be rewritten.
func Updating() bool { return *update }

// Golden compares got with testdata/name.golden (or rewrites it).
func Golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name+".golden")
	if *update {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to write it)", err)
	}
	if got != string(want) {
		t.Errorf("%s differs from the view:\n--- want\n%s\n--- got\n%s", path, want, got)
	}
}

// Key builds the key press a terminal would send for s ("1", "tab", "esc", ...).
func Key(s string) tea.KeyPressMsg {
	switch s {
	case "enter":
		return tea.KeyPressMsg{Code: tea.KeyEnter}
	case "esc":
		return tea.KeyPressMsg{Code: tea.KeyEscape}
	case "tab":
		return tea.KeyPressMsg{Code: tea.KeyTab}
	case "up":
		return tea.KeyPressMsg{Code: tea.KeyUp}
	case "down":
		return tea.KeyPressMsg{Code: tea.KeyDown}
	case "pgup":
		return tea.KeyPressMsg{Code: tea.KeyPgUp}
	case "pgdown":
		return tea.KeyPressMsg{Code: tea.KeyPgDown}
	case "home":
		return tea.KeyPressMsg{Code: tea.KeyHome}
	case "end":
		return tea.KeyPressMsg{Code: tea.KeyEnd}
	case "space":
		return tea.KeyPressMsg{Code: tea.KeySpace, Text: " "}
	case "backspace":
		return tea.KeyPressMsg{Code: tea.KeyBackspace}
	}
	r := []rune(s)
	if len(r) != 1 {
		panic("key: " + s)
	}
	return tea.KeyPressMsg{Code: r[0], Text: s}
}

// Msgs runs cmd and flattens batches into the messages it yields.
func Msgs(cmd tea.Cmd) []tea.Msg {
	if cmd == nil {
		return nil
	}
	msg := cmd()
	if b, ok := msg.(tea.BatchMsg); ok {
		var out []tea.Msg
		for _, c := range b {
			out = append(out, Msgs(c)...)
		}
		return out
	}
	if msg == nil {
		return nil
	}
	return []tea.Msg{msg}
}

var sgr = regexp.MustCompile("\x1b\\[([0-9;:]*)m")

// ColourEscapes lists the SGR sequences in s that set a colour.
func ColourEscapes(s string) []string {
	var bad []string
	for _, m := range sgr.FindAllStringSubmatch(s, -1) {
		params := strings.FieldsFunc(m[1], func(r rune) bool { return r == ';' || r == ':' })
		for _, p := range params {
			n, _ := strconv.Atoi(p)
			if (n >= 30 && n <= 49) || (n >= 90 && n <= 107) {
				bad = append(bad, fmt.Sprintf("%q", m[0]))
				break
			}
		}
	}
	return bad
}

// Rows is the stripped view split into lines.
func Rows(view string) []string { return strings.Split(ansi.Strip(view), "\n") }

// Palettes are the colour profiles the colour goldens are taken in: what a
// terminal with 16 million, 256 and 16 colours receives.
var Palettes = []colorprofile.Profile{colorprofile.TrueColor, colorprofile.ANSI256, colorprofile.ANSI}

// PaletteName names a profile in a golden file's name.
func PaletteName(p colorprofile.Profile) string {
	switch p {
	case colorprofile.TrueColor:
		return "truecolor"
	case colorprofile.ANSI256:
		return "256"
	case colorprofile.ANSI:
		return "16"
	}
	return "plain"
}

// InPalette is view as a terminal of profile p receives it: the program
// downsamples every colour on its way out, as this does.
func InPalette(view string, p colorprofile.Profile) string {
	var b strings.Builder
	w := &colorprofile.Writer{Forward: &b, Profile: p}
	_, _ = w.WriteString(view)
	return b.String()
}

// Escaped shows a view's escape sequences as text ("\e[1m"), so a golden
// file with colour reads and diffs as text.
func Escaped(view string) string { return strings.ReplaceAll(view, "\x1b", `\e`) + "\n" }

// GoldenPalettes compares view, as each palette receives it, with
// testdata/name-PALETTE.golden (escapes shown as \e).
func GoldenPalettes(t *testing.T, name, view string) {
	t.Helper()
	for _, p := range Palettes {
		Golden(t, name+"-"+PaletteName(p), Escaped(InPalette(view, p)))
	}
}
