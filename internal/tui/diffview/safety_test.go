package diffview

import (
	"fmt"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"agent/internal/tui/theme"
)

// hostile is a patch an attacker controls every byte of: names, modes,
// hunk sections and lines with escape sequences (CSI, OSC with BEL and ST,
// a bare ESC), C0 and C1 controls, a carriage return mid-line, CRLF line
// ends, NUL, DEL, invalid UTF-8, bidirectional overrides and isolates
// ("Trojan Source"), zero-width characters, a byte order mark, a line
// separator, tabs, wide and combining characters and a 1 MB line.
var hostile = "diff --git a/\x1b[31mred\u202e.go b/\x1b[31mred\u202e.go\n" +
	"old mode 100644\x1b]8;;http://evil\x07\n" +
	"new mode 100755\x1b[2J\n" +
	"--- a/\x1b[31mred\u202e.go\n+++ b/\x1b[31mred\u202e.go\n" +
	"@@ -1,5 +1,6 @@ func \x1b]0;title\x1b\\x() {\u2066\n" +
	" \tif isAdmin\u202e\u2066 { // check\u2069\u2066 begin admins only\n" +
	"-\x1b[1A\x1b[2Kerased the line above\r\n" +
	"+ok\rOVERWRITTEN\n" +
	"+\x00nul\x7fdel\x9bc1\u009bc1 too\x1bbare esc\n" +
	" \xff\xfe\xc3(invalid utf-8)\u200b\u200d\ufeff\u2028\u00ad\n" +
	"+" + strings.Repeat("wide世界e\u0301", 100000) + "\n" +
	"-\tx\t:= 1\t// tabs\n" +
	" end\r\n"

// unsafeOutput returns the first thing in s that is not plain text or an
// SGR sequence (\x1b[ digits and semicolons m), or "".
func unsafeOutput(s string) string {
	if !utf8.ValidString(s) {
		return "invalid UTF-8"
	}
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == 0x1b:
			j := i + 1
			if j >= len(s) || s[j] != '[' {
				return "an escape that is not CSI: " + strings.ToValidUTF8(s[i:min(i+8, len(s))], "?")
			}
			j++
			for j < len(s) && (s[j] >= '0' && s[j] <= '9' || s[j] == ';') {
				j++
			}
			if j >= len(s) || s[j] != 'm' {
				return "a CSI sequence that is not SGR: " + s[i:min(j+1, len(s))]
			}
			i = j + 1
			continue
		case r == '\n':
		case r < 0x20, r == 0x7f, r >= 0x80 && r < 0xa0:
			return fmt.Sprintf("the control character %U", r)
		case unicode.Is(unicode.Cf, r), r == 0x2028, r == 0x2029:
			return fmt.Sprintf("the hidden character %U", r)
		}
		i += n
	}
	return ""
}

func TestUnsafeOutputCatches(t *testing.T) {
	for _, bad := range []string{"\x1b]0;t\x07", "\x1b[2J", "a\rb", "\x9b1m", "\u202e", "\u200b", "\xff", "\x1bc"} {
		if unsafeOutput("ok \x1b[0;31mred\x1b[m "+bad) == "" {
			t.Errorf("the check lets %q through", bad)
		}
	}
	if s := unsafeOutput("ok \x1b[0;1;38;2;1;2;3mx\x1b[m\n世界"); s != "" {
		t.Errorf("the check refuses plain SGR: %s", s)
	}
}

func checkSafe(t *testing.T, what, out string, w int) {
	t.Helper()
	if bad := unsafeOutput(out); bad != "" {
		t.Fatalf("%s passes %s through to the terminal", what, bad)
	}
	assertWidths(t, out, w)
}

// TestHostileDiffIsSafe: whatever the patch holds, the model view, the
// card and the prompt's body write only text and colours, every line
// exactly the width, at every width from 1 to 200, in both layouts.
func TestHostileDiffIsSafe(t *testing.T) {
	for _, th := range []*theme.Theme{theme.New(true, false), theme.New(false, false), theme.New(true, true)} {
		r := NewRenderer(Options{Theme: th})
		m := New(hostile, Options{Theme: th})
		if err := m.Err(); err != nil {
			t.Fatal(err)
		}
		for w := 1; w <= 200; w += 3 {
			for _, mode := range []Mode{Unified, Split} {
				m.SetMode(mode)
				m.SetSize(w, 12)
				send(t, m, "n")
				checkSafe(t, "the view", m.View(), w)
				send(t, m, "end")
				checkSafe(t, "the view at the end", m.View(), w)
			}
			checkSafe(t, "a card", r.Card("x.go", hostile, w, 6), w)
			checkSafe(t, "the prompt's body", r.Render(hostile, w, 10), w)
		}
	}
}

// TestHostileDiffShowsWhatIsThere: the characters that would have acted
// are shown, so a person approving the change can see them.
func TestHostileDiffShowsWhatIsThere(t *testing.T) {
	m := New(hostile, Options{})
	m.SetSize(200, 0)
	s := screen(m.View())
	for _, want := range []string{
		"␛[31mred<U+202E>.go  mode 100644␛]8;;http://evil␇ → 100755␛[2J", // the file header
		"func ␛]0;title␛\\x() {<U+2066>",                                 // the hunk section
		"if isAdmin<U+202E><U+2066> { // check<U+2069><U+2066> begin admins only",
		"- ␛[1A␛[2Kerased the line above",
		"+ ok␍OVERWRITTEN",
		"+ ␀nul␡del�c1�c1 too␛bare esc",
		"���(invalid utf-8)<U+200B><U+200D><U+FEFF><U+2028><U+00AD>",
		"-     x   := 1    // tabs",
		"+ wide世界e\u0301wide",
	} {
		if !strings.Contains(s, want) {
			t.Errorf("the view does not show %q:\n%s", want, s)
		}
	}
	// The CRLF lines keep their text; the mixed endings are named.
	if !strings.Contains(s, "mixed line endings") || !strings.Contains(s, "end␍") {
		t.Errorf("the line endings are not shown:\n%s", s)
	}
}

// TestLongLineCostsBoundedWork: a line of megabytes is cut once to what a
// terminal can show; the view does not hold it whole.
func TestLongLineCostsBoundedWork(t *testing.T) {
	long := strings.Repeat("a", 8<<20)
	m := New("--- a/x\n+++ b/x\n@@ -1 +1 @@\n-"+long+"\n+b\n", Options{})
	m.SetSize(120, 0)
	v := m.View()
	assertWidths(t, v, 120)
	if d := m.display(0); len(d.text) > maxDisplayRunes*utf8.UTFMax {
		t.Errorf("the line is kept for display at %d bytes", len(d.text))
	}
	if !strings.Contains(screen(v), "- aaaa") || !strings.Contains(screen(v), "a…") {
		t.Errorf("the long line is not cut with …:\n%s", screen(v))
	}
}
