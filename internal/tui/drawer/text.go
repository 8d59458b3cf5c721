package drawer

import (
	"fmt"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/charmbracelet/x/ansi"
)

// visible returns s with every rune that would not show as itself made
// visible: control characters (an ESC would let a command or diff drive the
// terminal) as \xNN, bidirectional overrides and zero-width characters (which
// can make text read differently from what runs) as \uNNNN, and invalid
// UTF-8 bytes as \xNN. Tabs become four spaces; newlines are kept.
// A person approving a call must see exactly what it holds.
func visible(s string) string {
	clean := true
	for _, r := range s {
		if r == utf8.RuneError || hidden(r) || (r < 0x20 && r != '\n') || r == 0x7f {
			clean = false
			break
		}
	}
	if clean {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && n <= 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case r == '\t':
			b.WriteString("    ")
		case r == '\n':
			b.WriteByte('\n')
		case r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0):
			fmt.Fprintf(&b, `\x%02x`, r)
		case hidden(r):
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteRune(r)
		}
		i += n
	}
	return b.String()
}

// hidden reports runes that change how text reads without showing: C1
// controls, bidi embeddings, overrides and isolates, zero-width characters
// and other format characters.
func hidden(r rune) bool {
	switch {
	case r >= 0x80 && r < 0xa0:
		return true
	case r == 0xad: // soft hyphen
		return true
	case r >= 0x200b && r <= 0x200f, r >= 0x202a && r <= 0x202e,
		r >= 0x2060 && r <= 0x2069, r == 0xfeff:
		return true
	}
	return unicode.Is(unicode.Cf, r)
}

// oneLine returns s on one line (newlines as spaces), made visible.
func oneLine(s string) string {
	return strings.Join(strings.Fields(visible(s)), " ")
}

// wrap breaks plain text into lines of at most width columns (words where
// possible, long words cut), keeping its own newlines. Nothing is dropped.
func wrap(s string, width int) []string {
	if width < 1 {
		width = 1
	}
	var out []string
	for _, line := range strings.Split(s, "\n") {
		w := ansi.Wrap(line, width, "/")
		out = append(out, strings.Split(w, "\n")...)
	}
	return out
}

// fit truncates s to width columns with an ellipsis and pads it to width.
func fit(s string, width int) string {
	if width < 1 {
		return ""
	}
	if ansi.StringWidth(s) > width {
		s = ansi.Truncate(s, width, "…")
	}
	return s + strings.Repeat(" ", max(0, width-ansi.StringWidth(s)))
}

// shorten cuts plain text to n columns with an ellipsis.
func shorten(s string, n int) string {
	if ansi.StringWidth(s) <= n {
		return s
	}
	return ansi.Truncate(s, n, "…")
}

// count formats n with thousands separators: 128,000.
func count(n int) string {
	s := strconv.Itoa(n)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	var b strings.Builder
	for i, r := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(r)
	}
	if neg {
		return "-" + b.String()
	}
	return b.String()
}

// padLeft right-aligns s in width columns.
func padLeft(s string, width int) string {
	return strings.Repeat(" ", max(0, width-ansi.StringWidth(s))) + s
}

// spread puts left and right on one row of width columns, left cut first.
func spread(left, right string, width int) string {
	rw := ansi.StringWidth(right)
	if rw >= width {
		return fit(right, width)
	}
	lw := width - rw - 1
	if ansi.StringWidth(left) > lw {
		left = ansi.Truncate(left, lw, "…")
	}
	return left + strings.Repeat(" ", width-ansi.StringWidth(left)-rw) + right
}
