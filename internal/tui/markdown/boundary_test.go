package markdown

import (
	"strings"
	"testing"
)

// TestSplitterBoundaries: where the stable prefix ends for texts that test
// each rule; "§" marks the expected boundary (none: the text has none).
func TestSplitterBoundaries(t *testing.T) {
	for _, tc := range []struct {
		name, text string
	}{
		{"paragraphs", "one\n\n§two\n"},
		{"next line not yet complete", "one\n\ntw"},
		{"blank line awaits its next line", "one\n\n"},
		{"latest of several", "a\n\nb\n\n§c\n"},
		{"blank lines inside a fence", "```\na\n\nb\n"},
		{"a closed fence is a boundary", "```go\nx\n```\n§after"},
		{"a tilde fence", "~~~\na\n\n~~~\n§b"},
		{"a longer closing fence", "```\na\n`````\n§b"},
		{"a shorter run does not close", "````\na\n```\n\nb\n"},
		{"an indented fence is content", "```\na\n    ```\n\nb\n"},
		{"inline code is not a fence", "```x`y```\n\n§b\n"},
		{"loose list stays one", "- a\n\n- b\n"},
		{"ordered loose list stays one", "1. a\n\n2. b\n"},
		{"list then paragraph", "- a\n- b\n\n§after\n"},
		{"list item continuation", "- a\n\n  more\n"},
		{"continuation then list item", "- a\n\n  more\n\n- b\n"},
		{"indented code across a blank", "    a\n\n    b\n"},
		{"fence inside a list item", "- a\n\n  ```\n  x\n  ```\n"},
		{"definition after its term", "Term\n\n: def\n"},
		{"nothing is stable after a definition", "a\n\n§Term\n: def\n\nmore\n\n: def\n\nlast\n"},
		{"html comment across blank lines", "<!-- a\n\nb -->\n"},
		{"html comment closed", "<!-- a\n\nb -->\n\n§c\n"},
		{"html comment on one line", "<!-- a -->\n\n§c\n"},
		{"pre block", "<pre>\n\nx\n</pre>\n\n§y\n"},
		{"link reference definition", "a\n\nb\n\n[x]: https://example.com\n\nc\n"},
		{"heading", "# Title\n\n§text\n"},
		{"quote", "> a\n\n§b\n"},
		{"table", "| a |\n|---|\n| 1 |\n\n§b\n"},
		{"crlf", "a\r\n\r\n§b\r\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			text, want := tc.text, 0
			if i := strings.Index(text, "§"); i >= 0 {
				text, want = text[:i]+text[i+len("§"):], i
			}
			s := newSplitter()
			s.feed(text)
			if s.stable != want {
				t.Fatalf("stable = %d, want %d in %q", s.stable, want, text)
			}
			// Feeding the same text a byte at a time finds the same boundary.
			s2 := newSplitter()
			for i := 1; i <= len(text); i++ {
				s2.feed(text[:i])
			}
			if s2.stable != s.stable {
				t.Fatalf("byte by byte: stable = %d, at once %d", s2.stable, s.stable)
			}
		})
	}
}
