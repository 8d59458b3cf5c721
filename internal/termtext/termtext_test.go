package termtext

import (
	"bytes"
	"strings"
	"testing"
	"unicode/utf8"
)

// Untrusted text a person must read exactly: nothing in it may drive the
// terminal or read differently from what it holds.
func TestVisible(t *testing.T) {
	for _, c := range []struct{ name, in, want string }{
		{"plain", "plain text", "plain text"},
		{"valid UTF-8 kept", "naïve café — 日本語 🙂", "naïve café — 日本語 🙂"},
		{"tabs and newlines kept", "a\tb\nc\n", "a\tb\nc\n"},
		{"CSI erase screen and scrollback", "x\x1b[2J\x1b[3J\x1b[Hy", `x\x1b[2J\x1b[3J\x1b[Hy`},
		{"CSI colour", "\x1b[31mred\x1b[0m", `\x1b[31mred\x1b[0m`},
		{"OSC 52 clipboard, BEL", "\x1b]52;c;Q0xJUA==\x07", `\x1b]52;c;Q0xJUA==\x07`},
		{"OSC 2 title, ST", "\x1b]2;pwned\x1b\\", `\x1b]2;pwned\x1b\`},
		{"OSC 8 hyperlink", "\x1b]8;;http://evil\x1b\\click\x1b]8;;\x1b\\", `\x1b]8;;http://evil\x1b\click\x1b]8;;\x1b\`},
		{"DCS", "\x1bPq#0;2;0;0;0\x1b\\", `\x1bPq#0;2;0;0;0\x1b\`},
		{"lone ESC", "a\x1b", `a\x1b`},
		{"C1 CSI in UTF-8", "c1 \u009b31m", `c1 \x9b31m`},
		{"C1 OSC and ST in UTF-8", "\u009d2;t\u009c", `\x9d2;t\x9c`},
		{"C1 NEL", "a\u0085b", `a\x85b`},
		{"CR overwrites a line", "rm -rf /\rls -la   ", `rm -rf /\x0dls -la   `},
		{"CRLF", "a\r\n", "a\\x0d\n"},
		{"backspace", "curl x | sh\b\b\b\b\b\b\b\b\b\b\bls", `curl x | sh\x08\x08\x08\x08\x08\x08\x08\x08\x08\x08\x08ls`},
		{"DEL", "a\x7fb", `a\x7fb`},
		{"NUL and BEL", "a\x00b\x07", `a\x00b\x07`},
		{"right-to-left override", "a\u202eb", `a\u202eb`},
		{"left-to-right embedding", "\u202a", `\u202a`},
		{"pop directional formatting", "\u202c", `\u202c`},
		{"isolates", "\u2066x\u2067y\u2068z\u2069", `\u2066x\u2067y\u2068z\u2069`},
		{"zero-width space", "zero\u200bwidth", `zero\u200bwidth`},
		{"zero-width joiner and non-joiner", "a\u200db\u200cc", `a\u200db\u200cc`},
		{"word joiner and BOM", "\u2060\ufeff", `\u2060\ufeff`},
		{"soft hyphen", "pass\u00adword", `pass\u00adword`},
		{"line separator", "a\u2028b", `a\u2028b`},
		{"invalid byte", "bad \xff byte", `bad \xff byte`},
		{"raw C1 byte (not UTF-8)", "a\x9bb", `a\x9bb`},
		{"truncated rune", "ok \xe6\x97", `ok \xe6\x97`},
		{"overlong encoding", "\xc0\xaf", `\xc0\xaf`},
		{"surrogate half", "\xed\xa0\x80", `\xed\xa0\x80`},
	} {
		t.Run(c.name, func(t *testing.T) {
			got := Visible(c.in)
			if got != c.want {
				t.Errorf("Visible(%q) = %q, want %q", c.in, got, c.want)
			}
			if strings.ContainsAny(got, "\x1b\r\b\x07\x00\x7f") || !utf8.ValidString(got) {
				t.Errorf("Visible(%q) = %q still holds a control byte or invalid UTF-8", c.in, got)
			}
			for _, r := range got {
				if Hidden(r) {
					t.Errorf("Visible(%q) = %q still holds hidden rune %U", c.in, got, r)
				}
			}
			if Visible(got) != got {
				t.Errorf("Visible is not idempotent on %q", got)
			}
			if Clean(c.in) != (c.in == c.want) {
				t.Errorf("Clean(%q) = %v", c.in, Clean(c.in))
			}
		})
	}
}

func TestVisibleSpacedLineOneLine(t *testing.T) {
	if got, want := VisibleSpaced("a\tb\x1b[2J\n"), "a    b\\x1b[2J\n"; got != want {
		t.Errorf("VisibleSpaced = %q, want %q", got, want)
	}
	if got, want := Line("  x\ny\x1b]2;t\x07"), `  x y\x1b]2;t\x07`; got != want {
		t.Errorf("Line = %q, want %q", got, want)
	}
	if got, want := Field("my  dir\tx\ny\x1b"), `my  dir\x09x\x0ay\x1b`; got != want {
		t.Errorf("Field = %q, want %q", got, want)
	}
	if got, want := OneLine("  a \t b\n\x1b[2Jc  "), `a b \x1b[2Jc`; got != want {
		t.Errorf("OneLine = %q, want %q", got, want)
	}
}

// A stream split at every byte comes out as the whole string would.
func TestWriterSplitsRunes(t *testing.T) {
	in := "héllo \x1b]52;c;QQ==\x07 日本 🙂\u202e end \xff"
	for step := 1; step <= 5; step++ {
		var out bytes.Buffer
		w := NewWriter(&out)
		for i := 0; i < len(in); i += step {
			if _, err := w.Write([]byte(in[i:min(len(in), i+step)])); err != nil {
				t.Fatal(err)
			}
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		if got, want := out.String(), Visible(in); got != want {
			t.Errorf("step %d: wrote %q, want %q", step, got, want)
		}
	}
	// a rune left incomplete at the end is shown, not dropped
	var out bytes.Buffer
	w := NewWriter(&out)
	w.Write([]byte("x\xe6\x97"))
	w.Close()
	if got := out.String(); got != `x\xe6\x97` {
		t.Errorf("incomplete end: %q", got)
	}
}

// Not a terminal: the bytes are left exactly as they are.
func TestForTerminalLeavesPipesExact(t *testing.T) {
	var b bytes.Buffer
	s := "\x1b[31mexact\x1b[0m\r\n"
	if got := ForTerminal(&b, s); got != s {
		t.Errorf("ForTerminal on a buffer changed the text: %q", got)
	}
	w, done := WriterFor(&b)
	w.Write([]byte(s))
	done()
	if b.String() != s {
		t.Errorf("WriterFor on a buffer changed the text: %q", b.String())
	}
}

// Prose the TUI renders: sequences and controls removed, tabs to stops,
// invalid bytes gone, everything else kept.
func TestStrip(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"plain [REDACTED:aws-key]", "plain [REDACTED:aws-key]"},
		{"a\x1b[2J\x1b[3Jb", "ab"},
		{"\x1b]52;c;QQ==\x07t\x1b]2;x\x1b\\", "t"},
		{"c1\u009b31m.", "c131m."},
		{"cr\rbs\b.", "crbs."},
		{"a\tb\n\tc", "a   b\n    c"},
		{"日\tx", "日  x"},
		{"bad \xff", "bad "}, // ansi.Strip drops the byte
	} {
		if got := Strip(c.in); got != c.want {
			t.Errorf("Strip(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}
