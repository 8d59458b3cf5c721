package composer

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/charmbracelet/x/ansi"
)

// Fold thresholds: a paste of more lines or characters than these is shown
// as one token and sent in full.
const (
	FoldLines = 10
	FoldChars = 2000
)

// A fold is stored in the buffer as one rune of Supplementary Private Use
// Area-B (plane 16): foldBase+k for fold k. Typed and pasted text never
// holds such a rune (sanitize replaces them), so a fold cannot be forged.
const (
	foldBase = 0x100000
	foldMax  = 0x10FFFD
)

func isFold(r rune) bool  { return r >= foldBase && r <= foldMax }
func foldRune(k int) rune { return rune(foldBase + k) }
func foldID(r rune) int   { return int(r - foldBase) }
func foldLabel(n, k int) string {
	unit := "lines"
	if n == 1 {
		unit = "line"
	}
	return fmt.Sprintf("[Pasted %d %s #%d]", n, unit, k)
}

// fold is one folded paste: its full text and how many lines it has.
type fold struct {
	text  string
	lines int
}

// normalizePaste makes pasted text safe to keep and show: line endings
// become "\n" (terminals send "\r" for a newline in a bracketed paste),
// ANSI escape sequences and other control characters but '\t' and '\n'
// are removed, and plane-16 private-use runes (the fold marks) become
// U+FFFD.
func normalizePaste(s string) string {
	s = strings.ReplaceAll(s, "\r\n", "\n")
	s = strings.ReplaceAll(s, "\r", "\n")
	if strings.ContainsRune(s, 0x1b) {
		s = ansi.Strip(s)
	}
	return sanitize(s, true)
}

// sanitize removes control characters ('\n' survives only when newlines is
// set, '\t' always does) and replaces fold-mark runes.
func sanitize(s string, newlines bool) string {
	clean := true
	for _, r := range s {
		if badRune(r, newlines) || isFold(r) {
			clean = false
			break
		}
	}
	if clean {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	for _, r := range s {
		switch {
		case isFold(r):
			b.WriteRune(unicode.ReplacementChar)
		case badRune(r, newlines):
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

func badRune(r rune, newlines bool) bool {
	if r == '\t' || (r == '\n' && newlines) {
		return false
	}
	return unicode.IsControl(r)
}

// countLines is the number of lines of s (a final newline ends the last
// line rather than starting another).
func countLines(s string) int {
	if s == "" {
		return 0
	}
	return strings.Count(strings.TrimSuffix(s, "\n"), "\n") + 1
}

// shouldFold reports whether a paste is big enough to fold.
func shouldFold(s string) bool {
	return countLines(s) > FoldLines || utf8.RuneCountInString(s) > FoldChars
}
