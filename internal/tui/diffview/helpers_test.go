package diffview

import (
	"fmt"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
)

// press builds the key message a terminal sends for a key name.
func press(name string) tea.KeyPressMsg {
	special := map[string]rune{
		"up": tea.KeyUp, "down": tea.KeyDown, "pgup": tea.KeyPgUp, "pgdown": tea.KeyPgDown,
		"home": tea.KeyHome, "end": tea.KeyEnd, "esc": tea.KeyEscape, "enter": tea.KeyEnter,
	}
	if c, ok := special[name]; ok {
		return tea.KeyPressMsg{Code: c}
	}
	if c, ok := strings.CutPrefix(name, "ctrl+"); ok {
		return tea.KeyPressMsg{Code: rune(c[0]), Mod: tea.ModCtrl}
	}
	r := []rune(name)[0]
	return tea.KeyPressMsg{Code: r, Text: name}
}

// send drives the model with keys and returns the last command.
func send(t *testing.T, m *Model, keys ...string) tea.Cmd {
	t.Helper()
	var cmd tea.Cmd
	for _, k := range keys {
		msg := press(k)
		if msg.String() != k {
			t.Fatalf("test key %q builds a message that reads %q", k, msg.String())
		}
		m, cmd = m.Update(msg)
	}
	return cmd
}

// lines is the view as a person reads it, one string per line.
func lines(m *Model) []string {
	return strings.Split(strings.TrimSuffix(screen(m.View()), "\n"), "\n")
}

// genPatch returns a git patch of one Go file that is n lines long: notes
// that pad it to n lines, then hunks of 8 old and 8 new lines 40 lines
// apart; the last line is the last added line of the last hunk, last.
func genPatch(n int) (patch, last string) {
	var b strings.Builder
	head := "diff --git a/big/gen.go b/big/gen.go\nindex 1111111..2222222 100644\n--- a/big/gen.go\n+++ b/big/gen.go\n"
	written := 4
	old, nw := 1, 1
	for h := 0; written+11 <= n; h++ {
		fmt.Fprintf(&b, "@@ -%d,8 +%d,8 @@ func f%d() {\n", old, nw, h)
		for i := 0; i < 3; i++ {
			fmt.Fprintf(&b, " \tctx%d := %d // unchanged\n", h, old+i)
		}
		fmt.Fprintf(&b, "-\tv%d := \"old value\"\n-\tw%d := v%d\n", h, h, h)
		last = fmt.Sprintf("\tw%d := v%d + \"!\" // the end of hunk %d", h, h, h)
		fmt.Fprintf(&b, "+\tv%d := \"new value\"\n", h)
		ctx := ""
		for i := 0; i < 3; i++ {
			ctx += fmt.Sprintf(" \tdone%d := %d\n", h, old+5+i)
		}
		b.WriteString(ctx)
		fmt.Fprintf(&b, "+%s\n", last)
		written += 11
		old += 40
		nw += 40
	}
	pad := strings.Repeat("# padding\n", max(n-written, 0)) // notes before the file
	return pad + head + b.String(), last
}

// genLast is the line number (old and new) of genPatch(n)'s last line.
func genLast(n int) int {
	hunks := (n - 4) / 11
	return 40*(hunks-1) + 8
}

// sgrParams lists the parameters of every SGR sequence in s.
func sgrParams(s string) [][]string {
	var out [][]string
	for i := 0; i < len(s); i++ {
		if s[i] != 0x1b || i+1 >= len(s) || s[i+1] != '[' {
			continue
		}
		j := i + 2
		for j < len(s) && (s[j] >= '0' && s[j] <= '9' || s[j] == ';') {
			j++
		}
		if j < len(s) && s[j] == 'm' {
			out = append(out, strings.Split(s[i+2:j], ";"))
		}
		i = j
	}
	return out
}

// hasColour reports whether any SGR sequence of s sets a colour
// (30–39, 40–49, 90–97, 100–107, and 38/48 for 256 and true colour).
func hasColour(s string) (string, bool) {
	for _, ps := range sgrParams(s) {
		for _, p := range ps {
			var n int
			if _, err := fmt.Sscan(p, &n); err != nil {
				continue
			}
			if n >= 30 && n <= 49 || n >= 90 && n <= 107 {
				return strings.Join(ps, ";"), true
			}
		}
	}
	return "", false
}
