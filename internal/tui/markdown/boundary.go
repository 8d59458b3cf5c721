package markdown

import "strings"

// splitter finds the last stable block boundary of a growing markdown text:
// an offset (at a line start) such that text[:offset] renders, on its own,
// exactly as it renders inside any longer text, so that its render can be
// kept while the rest streams in.
//
// A boundary is
//   - a blank line outside a fenced code block or a multi-line HTML block,
//     once the next line has arrived and it starts a new top-level block:
//     it is not indented (a list item's continuation, indented code), it is
//     not a list item after a list (a loose list is one list);
//   - the end of a closed fenced code block that starts in the first column
//     (a fence cannot belong to a list item or a quote there).
//
// A link reference definition anywhere makes every link of the text depend
// on it, so once one is seen the text has no boundary at all. A definition
// (a line starting with ':') can pull the paragraphs after it into its
// definition list, so no boundary comes after one.
//
// It reads only complete lines, each once: feeding a longer text costs the
// new lines only.
type splitter struct {
	scanned int    // bytes classified so far, always at a line start
	stable  int    // the latest boundary
	pending int    // a blank line ended here, waiting for the next line; -1 if none
	fence   fence  // the open fenced code block, if any
	htmlEnd string // the end marker of an open HTML block that spans blank lines
	list    bool   // the current block is, or continues, a list
	noSplit bool   // a link reference definition or a definition was seen
}

type fence struct {
	open   bool
	char   byte
	length int
	indent int
}

func newSplitter() splitter { return splitter{pending: -1} }

// feed classifies the complete lines of text after what was already read.
// text must extend the text of the previous call.
func (s *splitter) feed(text string) {
	for {
		nl := strings.IndexByte(text[s.scanned:], '\n')
		if nl < 0 {
			return
		}
		start, end := s.scanned, s.scanned+nl+1
		s.scanned = end
		s.line(strings.TrimSuffix(text[start:end-1], "\r"), end)
	}
}

// line classifies one line; end is the offset after its newline.
func (s *splitter) line(line string, end int) {
	if s.fence.open {
		if s.fence.closedBy(line) {
			s.fence.open = false
			if s.fence.indent == 0 && !s.noSplit {
				s.stable = end
				s.list = false
			}
		}
		return
	}
	if s.htmlEnd != "" {
		if containsFold(line, s.htmlEnd) {
			s.htmlEnd = ""
		}
		return
	}
	indent, rest := splitIndent(line)
	if rest == "" {
		s.pending = end
		return
	}
	if indent <= 3 && rest[0] == ':' {
		// A definition: its list can take in the paragraphs that follow,
		// blank lines or not, so nothing after it is stable.
		s.noSplit = true
	}
	if s.pending >= 0 {
		marker := isListMarker(rest)
		if !s.noSplit && indent == 0 && !(s.list && marker) {
			s.stable = s.pending
		}
		s.pending = -1
		if indent == 0 && !marker {
			s.list = false
		}
	}
	if f, ok := openFence(rest, indent); ok {
		s.fence = f
		return
	}
	if indent <= 3 {
		if m := htmlBlockEnd(rest); m != "" && !containsFold(rest[1:], m) {
			s.htmlEnd = m
		}
		if isLinkRefDefinition(rest) {
			s.noSplit = true
			s.stable = 0
		}
	}
	if isListMarker(rest) {
		s.list = true
	}
}

// splitIndent returns the indentation of a line in columns and the rest.
func splitIndent(line string) (int, string) {
	col := 0
	for i := 0; i < len(line); i++ {
		switch line[i] {
		case ' ':
			col++
		case '\t':
			col += tabWidth - col%tabWidth
		default:
			return col, line[i:]
		}
	}
	return col, ""
}

// openFence reports whether a line (its indentation removed) opens a fenced
// code block. Fences at any indentation count: inside a list item they are
// indented, and a false one only makes the splitter more careful.
func openFence(rest string, indent int) (fence, bool) {
	if len(rest) < 3 || (rest[0] != '`' && rest[0] != '~') {
		return fence{}, false
	}
	c := rest[0]
	n := 0
	for n < len(rest) && rest[n] == c {
		n++
	}
	if n < 3 {
		return fence{}, false
	}
	if c == '`' && strings.IndexByte(rest[n:], '`') >= 0 {
		return fence{}, false // inline code, not a fence
	}
	return fence{open: true, char: c, length: n, indent: indent}, true
}

// closedBy reports whether a line closes the fence: the same character, at
// least as many, nothing after but spaces; a first-column fence is closed
// only by a line indented less than four columns (more is its content).
func (f fence) closedBy(line string) bool {
	indent, rest := splitIndent(line)
	if f.indent <= 3 && indent > 3 {
		return false
	}
	n := 0
	for n < len(rest) && rest[n] == f.char {
		n++
	}
	return n >= f.length && strings.TrimRight(rest[n:], " \t") == ""
}

// isListMarker reports whether a line (its indentation removed) starts a
// list item: "-", "*" or "+", or up to nine digits and "." or ")", followed
// by a space, a tab or the end of the line.
func isListMarker(rest string) bool {
	if rest == "" {
		return false
	}
	i := 0
	switch rest[0] {
	case '-', '*', '+':
		i = 1
	default:
		for i < len(rest) && i < 10 && rest[i] >= '0' && rest[i] <= '9' {
			i++
		}
		if i == 0 || i > 9 || i >= len(rest) || (rest[i] != '.' && rest[i] != ')') {
			return false
		}
		i++
	}
	return i == len(rest) || rest[i] == ' ' || rest[i] == '\t'
}

// htmlBlockEnd returns the end marker of an HTML block that a line opens if
// that block may span blank lines (CommonMark's kinds 1 to 5), else "".
func htmlBlockEnd(rest string) string {
	if len(rest) < 2 || rest[0] != '<' {
		return ""
	}
	switch {
	case strings.HasPrefix(rest, "<!--"):
		return "-->"
	case strings.HasPrefix(rest, "<?"):
		return "?>"
	case strings.HasPrefix(rest, "<![CDATA["):
		return "]]>"
	case rest[1] == '!' && len(rest) > 2 && isLetter(rest[2]):
		return ">"
	}
	low := strings.ToLower(rest)
	for _, tag := range []string{"script", "pre", "style", "textarea"} {
		if strings.HasPrefix(low[1:], tag) {
			next := low[1+len(tag):]
			if next == "" || next[0] == ' ' || next[0] == '\t' || next[0] == '>' {
				return "</" + tag + ">"
			}
		}
	}
	return ""
}

func isLetter(c byte) bool { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') }

func containsFold(s, sub string) bool {
	return strings.Contains(strings.ToLower(s), sub)
}

// isLinkRefDefinition reports whether a line (its indentation removed)
// starts like a link reference definition: "[label]:".
func isLinkRefDefinition(rest string) bool {
	if len(rest) < 4 || rest[0] != '[' {
		return false
	}
	end := strings.IndexByte(rest, ']')
	return end >= 2 && end+1 < len(rest) && rest[end+1] == ':'
}
