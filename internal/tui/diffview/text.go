package diffview

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/charmbracelet/x/ansi"
)

// maxDisplayRunes bounds how much of one line is prepared for display: no
// terminal is this wide, and a megabyte-long line must not cost a frame.
const maxDisplayRunes = 2048

// displayText makes s safe and measurable on a terminal: tabs become spaces
// to the next tab stop, control characters (an escape sequence in a file
// could otherwise drive the terminal) become their visible Control Pictures
// (␛, ␍, ...), C1 controls and invalid UTF-8 become "�", and characters
// that change how text reads without showing (bidirectional overrides and
// isolates, zero-width characters, other format characters, line and
// paragraph separators: "Trojan Source") become their code point, as
// "<U+202E>". It keeps at most maxDisplayRunes runes.
func displayText(s string, tabWidth int) string {
	if tabWidth <= 0 {
		tabWidth = 4
	}
	if plain(s) {
		if len(s) > maxDisplayRunes {
			return s[:maxDisplayRunes]
		}
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 8)
	col, n := 0, 0
	for i, r := range s {
		if n == maxDisplayRunes {
			break
		}
		n++
		switch {
		case r == '\t':
			spaces := tabWidth - col%tabWidth
			b.WriteString(strings.Repeat(" ", spaces))
			col += spaces
			continue
		case r == utf8.RuneError && isInvalid(s[i:]):
			r = '\uFFFD'
		case r < 0x20:
			r = 0x2400 + r // U+2400..U+241F: ␀ ... ␟
		case r == 0x7f:
			r = '\u2421' // ␡
		case r >= 0x80 && r < 0xa0:
			r = '\uFFFD'
		case hidden(r):
			at := b.Len()
			fmt.Fprintf(&b, "<U+%04X>", r)
			col += b.Len() - at
			continue
		}
		b.WriteRune(r)
		if r < utf8.RuneSelf {
			col++
		} else {
			col += ansi.StringWidth(string(r))
		}
	}
	return b.String()
}

// hidden reports the runes that change how text reads without showing
// themselves: format characters (soft hyphen, zero-width space and joiners,
// bidirectional marks, embeddings, overrides and isolates, the byte order
// mark, tags) and the line and paragraph separators.
func hidden(r rune) bool {
	switch {
	case r < 0xad:
		return false
	case r >= 0x200b && r <= 0x200f, r >= 0x2028 && r <= 0x202e, r >= 0x2060 && r <= 0x2069, r == 0xfeff:
		return true
	}
	return unicode.Is(unicode.Cf, r)
}

// plain reports whether s is printable ASCII (the fast, common case).
func plain(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c >= 0x7f {
			return false
		}
	}
	return true
}

func isInvalid(s string) bool {
	r, size := utf8.DecodeRuneInString(s)
	return r == utf8.RuneError && size <= 1
}

// width is the number of columns s takes: quick for ASCII and the few
// narrow symbols the view draws itself, ansi.StringWidth otherwise.
func width(s string) int {
	n := 0
	for _, r := range s {
		switch {
		case r >= 0x20 && r < 0x7f, r == '·', r == '–', r == '…', r == '│', r == '→', r == '↑', r == '↓':
			n++
		default:
			return ansi.StringWidth(s)
		}
	}
	return n
}

// fit cuts s (plain text) to cols columns, ending it with "…" when it is
// cut, and pads it with spaces to exactly cols.
func fit(s string, cols int) string {
	if cols <= 0 {
		return ""
	}
	w := width(s)
	if w > cols {
		s = ansi.Truncate(s, cols, "…")
		w = ansi.StringWidth(s)
	}
	if w < cols {
		s += strings.Repeat(" ", cols-w)
	}
	return s
}

// fitLeft cuts s from the left ("…/dir/file.go") to at most width columns.
func fitLeft(s string, width int) string {
	if width <= 0 {
		return ""
	}
	w := ansi.StringWidth(s)
	if w <= width {
		return s
	}
	if width == 1 {
		return "…"
	}
	return "…" + ansi.TruncateLeft(s, w-width+1, "")
}

// digits is the number of decimal digits of n (at least 1).
func digits(n int) int {
	d := 1
	for n >= 10 {
		n /= 10
		d++
	}
	return d
}
