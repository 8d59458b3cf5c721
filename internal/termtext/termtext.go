// Package termtext owns what untrusted text may put on a person's terminal:
// the one sanitiser shared by the TUI and the headless commands. Command
// output, file content, model text, tool names, provider and MCP error
// messages all pass through it before they are written where a terminal
// would interpret them. Control characters and escape sequences (CSI, OSC,
// DCS, C1 controls) are shown as visible escapes such as \x1b[2J, bidi
// overrides and zero-width characters as \uNNNN, invalid UTF-8 bytes as
// \xNN; nothing of such text can move the cursor, clear the screen, set
// the window title or the clipboard, or read differently from what it
// holds. Strip is the policy for prose the TUI renders as Markdown: the
// sequences and controls are removed rather than shown. Styling the agent
// adds on purpose is applied after: sanitise the pieces, then style them.
// It holds no state and imports no other package of the agent.
package termtext

import (
	"io"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/term"
)

// Visible returns s with every rune that would not show as itself made
// visible: control characters (an ESC would let a command, a file or the
// model drive the terminal; a CR or backspace would overwrite what was
// shown) as \xNN, C1 controls (U+0080–U+009F) as \xNN too, bidirectional
// embeddings, overrides and isolates, zero-width and other format
// characters as \uNNNN, and invalid UTF-8 bytes as \xNN. Tabs and newlines
// are kept; everything else valid is kept as it is. A string that needs
// nothing is returned as it is, without a copy.
func Visible(s string) string { return visible(s, "\t", "\n") }

// VisibleSpaced is Visible with each tab as four spaces, for text laid out
// in columns the caller measures (the TUI's panels).
func VisibleSpaced(s string) string { return visible(s, "    ", "\n") }

// Field returns s made Visible as one field of a line or a cell of a
// table: a tab and a newline are shown as \x09 and \x0a too, and all else
// of its spacing is kept, so a path or a rule reads exactly as it is.
func Field(s string) string { return visible(s, `\x09`, `\x0a`) }

// OneLine returns s made Visible on one line: every run of white space,
// newlines and tabs included, becomes one space, and the ends are trimmed.
func OneLine(s string) string {
	return strings.Join(strings.Fields(Visible(s)), " ")
}

// Line returns s made Visible with each newline as a space, keeping the
// rest of its spacing: a line whose layout is the caller's (an indent, two
// spaces between fields) and whose pieces may hold newlines.
func Line(s string) string {
	return strings.ReplaceAll(Visible(s), "\n", " ")
}

// Clean reports whether s shows as itself: Visible(s) == s.
func Clean(s string) bool { return clean(s, true, true) }

func clean(s string, tabs, newlines bool) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < utf8.RuneSelf {
			if c < 0x20 && (c != '\n' || !newlines) && (c != '\t' || !tabs) || c == 0x7f {
				return false
			}
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && n <= 1 || Hidden(r) {
			return false
		}
		i += n - 1
	}
	return true
}

const hex = "0123456789abcdef"

func visible(s, tab, newline string) string {
	if clean(s, tab == "\t", newline == "\n") {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 16)
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && n <= 1:
			byteEscape(&b, s[i])
		case r == '\t':
			b.WriteString(tab)
		case r == '\n':
			b.WriteString(newline)
		case r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0):
			byteEscape(&b, byte(r))
		case Hidden(r):
			b.WriteString(`\u`)
			for shift := 12; shift >= 0; shift -= 4 {
				b.WriteByte(hex[(r>>shift)&0xf])
			}
		default:
			b.WriteString(s[i : i+n])
		}
		i += n
	}
	return b.String()
}

func byteEscape(b *strings.Builder, c byte) {
	b.WriteString(`\x`)
	b.WriteByte(hex[c>>4])
	b.WriteByte(hex[c&0xf])
}

// Hidden reports runes that change how text reads without showing: C1
// controls, the soft hyphen, bidi embeddings, overrides and isolates
// (U+202A–U+202E, U+2066–U+2069), zero-width characters, the line and
// paragraph separators and other format characters (Unicode Cf).
func Hidden(r rune) bool {
	switch {
	case r >= 0x80 && r < 0xa0:
		return true
	case r == 0xad: // soft hyphen
		return true
	case r >= 0x200b && r <= 0x200f, r >= 0x202a && r <= 0x202e,
		r >= 0x2060 && r <= 0x2069, r == 0xfeff, r == 0x2028, r == 0x2029:
		return true
	}
	return unicode.Is(unicode.Cf, r)
}

// tabWidth is the tab stop used when tabs are expanded (CommonMark's).
const tabWidth = 4

// Strip is the other policy, for text rendered as prose (the TUI's
// Markdown): it removes escape sequences and every C0 and C1 control
// character but the newline instead of showing them, expands tabs to the
// next multiple of four columns (a raw tab would break the cell grid of the
// frame), and drops invalid UTF-8 (or, past the sequences, replaces it
// with U+FFFD). It keeps everything else, placeholders of redacted secrets
// included.
func Strip(s string) string {
	if isClean(s) {
		return s
	}
	s = ansi.Strip(s)
	var b strings.Builder
	b.Grow(len(s))
	col := 0
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		i += size
		switch {
		case r == '\n':
			b.WriteByte('\n')
			col = 0
		case r == '\t':
			n := tabWidth - col%tabWidth
			b.WriteString("    "[:n])
			col += n
		case r == utf8.RuneError && size == 1:
			b.WriteRune(utf8.RuneError)
			col++
		case r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0):
			// a control character: dropped
		default:
			b.WriteRune(r)
			col += runeCells(r)
		}
	}
	return b.String()
}

// runeCells is the width of a rune for tab stops (wide runes count two).
func runeCells(r rune) int {
	if r < 0x1100 {
		return 1
	}
	return max(ansi.StringWidth(string(r)), 0)
}

// isClean reports whether s has nothing Strip would change (the common case:
// printable ASCII, newlines and well-formed UTF-8 without controls).
func isClean(s string) bool {
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if (c < 0x20 && c != '\n') || c == 0x7f {
				return false
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if (r == utf8.RuneError && size == 1) || (r >= 0x80 && r < 0xa0) {
			return false
		}
		i += size
	}
	return true
}

// IsTerminal reports whether w is a terminal: an *os.File (or a writer
// that says which file it writes to) on a tty.
func IsTerminal(w io.Writer) bool {
	if f, ok := w.(interface{ Fd() uintptr }); ok {
		return term.IsTerminal(f.Fd())
	}
	return false
}

// ForTerminal returns s made Visible when w is a terminal, and s as it is
// otherwise: data a person may redirect to a file (the final answer, a
// patch) stays byte-exact there and cannot drive the terminal here.
func ForTerminal(w io.Writer, s string) string {
	if IsTerminal(w) {
		return Visible(s)
	}
	return s
}

// Writer makes Visible what is written through it, as one stream: a rune
// split across two writes is decoded whole. Close writes what is held of
// an incomplete rune at the end (as escapes); it does not close the
// underlying writer.
type Writer struct {
	w    io.Writer
	tail []byte // the start of a rune the last write ended in
}

// NewWriter returns a Writer to w.
func NewWriter(w io.Writer) *Writer { return &Writer{w: w} }

// WriterFor returns w itself when it is not a terminal, and a Writer to it
// when it is, with the Close to call after the last write.
func WriterFor(w io.Writer) (io.Writer, func() error) {
	if !IsTerminal(w) {
		return w, func() error { return nil }
	}
	tw := NewWriter(w)
	return tw, tw.Close
}

// Write writes p made Visible; it reports len(p) when all of it was taken.
func (t *Writer) Write(p []byte) (int, error) {
	buf := append(t.tail, p...)
	cut := len(buf)
	// hold back the start of a rune that the next write may complete
	for i := len(buf) - 1; i >= 0 && i >= len(buf)-utf8.UTFMax+1; i-- {
		if utf8.RuneStart(buf[i]) {
			if buf[i] >= utf8.RuneSelf && !utf8.FullRune(buf[i:]) {
				cut = i
			}
			break
		}
	}
	t.tail = append([]byte(nil), buf[cut:]...)
	if _, err := io.WriteString(t.w, Visible(string(buf[:cut]))); err != nil {
		return 0, err
	}
	return len(p), nil
}

// Close writes the incomplete rune held back, if any, as escapes.
func (t *Writer) Close() error {
	if len(t.tail) == 0 {
		return nil
	}
	s := Visible(string(t.tail))
	t.tail = nil
	_, err := io.WriteString(t.w, s)
	return err
}
