package markdown

import (
	"strings"
	"unicode/utf8"

	"github.com/charmbracelet/x/ansi"
)

// tabWidth is CommonMark's tab stop (termtext.Strip expands tabs to it too).
const tabWidth = 4

// trimLine drops what glamour pads a line with: the spaces after its last
// visible character and the escape sequences around them (each padding cell
// comes as its own styled space, ~20 bytes). Hyperlink sequences (OSC) after
// the cut are kept so that a link is closed; a reset ends a line that had
// any style. A line without a visible character becomes "".
func trimLine(line string) string {
	end, hasEsc := 0, false
	for i := 0; i < len(line); {
		if line[i] == ansi.ESC {
			hasEsc = true
			i += seqLen(line[i:])
			continue
		}
		r, size := utf8.DecodeRuneInString(line[i:])
		i += size
		if r != ' ' {
			end = i
		}
	}
	if end == 0 {
		return ""
	}
	if !hasEsc {
		return line[:end]
	}
	var osc strings.Builder
	for i := end; i < len(line); {
		if line[i] != ansi.ESC {
			i++
			continue
		}
		n := seqLen(line[i:])
		if n > 1 && line[i+1] == ']' {
			osc.WriteString(line[i : i+n])
		}
		i += n
	}
	return line[:end] + osc.String() + "\x1b[m"
}

// seqLen is the length of the escape sequence at the start of s (which
// starts with ESC): CSI up to its final byte, OSC up to BEL or ST, any other
// up to the byte after ESC.
func seqLen(s string) int {
	if len(s) < 2 {
		return len(s)
	}
	switch s[1] {
	case '[':
		for i := 2; i < len(s); i++ {
			if s[i] >= 0x40 && s[i] <= 0x7e {
				return i + 1
			}
		}
		return len(s)
	case ']':
		for i := 2; i < len(s); i++ {
			if s[i] == 0x07 {
				return i + 1
			}
			if s[i] == ansi.ESC && i+1 < len(s) && s[i+1] == '\\' {
				return i + 2
			}
		}
		return len(s)
	default:
		return 2
	}
}

// appendLines splits raw rendered output at its newlines (as strings.Split
// does) into trimmed lines and appends them to dst; a line wider than width
// is hard-wrapped so that no line ever exceeds the width it was rendered for.
func appendLines(dst []string, raw string, width int) []string {
	for {
		nl := strings.IndexByte(raw, '\n')
		if nl < 0 {
			return appendLine(dst, raw, width)
		}
		dst = appendLine(dst, raw[:nl], width)
		raw = raw[nl+1:]
	}
}

func appendLine(dst []string, line string, width int) []string {
	line = trimLine(line)
	if ansi.StringWidth(line) <= width {
		return append(dst, line)
	}
	return append(dst, strings.Split(ansi.Hardwrap(line, width, true), "\n")...)
}

// trimBlank returns lines without its leading and trailing blank lines.
func trimBlank(lines []string) []string {
	for len(lines) > 0 && lines[0] == "" {
		lines = lines[1:]
	}
	for len(lines) > 0 && lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	return lines
}
