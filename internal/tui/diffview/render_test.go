package diffview

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/alecthomas/chroma/v2/lexers"
	"github.com/charmbracelet/x/ansi"

	"agent/internal/tui/theme"
)

// everyState renders a view in the states a person can bring it to: both
// layouts, a jumped-to hunk header, compact, the split fallback notice.
func everyState(t *testing.T, th *theme.Theme) string {
	t.Helper()
	var all strings.Builder
	for _, w := range []int{40, 120} {
		m := mixed(t, Options{Theme: th})
		m.SetSize(w, 12)
		all.WriteString(m.View())
		send(t, m, "]")
		all.WriteString(m.View())
		send(t, m, "t", "G")
		all.WriteString(m.View())
		m.SetSize(w, 0)
		all.WriteString(m.View())
		m.SetCompact(4)
		all.WriteString(m.View())
	}
	return all.String()
}

func TestNoColorThemeSetsNoColour(t *testing.T) {
	plain := everyState(t, theme.New(true, true))
	if seq, ok := hasColour(plain); ok {
		t.Fatalf("a NoColor view sets a colour: \\x1b[%sm", seq)
	}
	for _, bad := range []string{"\x1b[3", "38;5", "38;2", "\x1b[9", "48;"} {
		if strings.Contains(plain, bad) {
			t.Fatalf("a NoColor view contains %q", bad)
		}
	}
	// Meaning does not depend on colour: the markers are there.
	for _, want := range []string{"+ ", "- ", "@@ -3,11 +3,12 @@", `\ No newline at end of file`} {
		if !strings.Contains(plain, want) {
			t.Errorf("the NoColor view lacks %q", want)
		}
	}
	// The check itself can fail: the colour themes do set colours.
	for _, dark := range []bool{true, false} {
		if _, ok := hasColour(everyState(t, theme.New(dark, false))); !ok {
			t.Fatalf("the dark=%v colour theme sets no colour: the check is broken", dark)
		}
	}
}

func TestSyntaxHighlighting(t *testing.T) {
	th := theme.New(true, false)
	m := New("--- a/x.go\n+++ b/x.go\n@@ -1 +1 @@\n-func a() {}\n+func b() {}\n", Options{Theme: th})
	m.SetSize(60, 0)
	v := m.View()
	// "func" on an added line: the accent colour on the add background.
	keyword := "\x1b[0;" + strings.Join(ansi.Style{}.ForegroundColor(th.Accent).BackgroundColor(th.AddBg), ";") + "mfunc"
	if !strings.Contains(v, keyword) {
		t.Errorf("the keyword func is not in the theme's accent colour: %q", v)
	}
	plain := New("--- a/x.go\n+++ b/x.go\n@@ -1 +1 @@\n-func a() {}\n+func b() {}\n", Options{Theme: th, NoHighlight: true})
	plain.SetSize(60, 0)
	if strings.Contains(plain.View(), keyword) {
		t.Error("NoHighlight still highlights")
	}
	if ansi.Strip(plain.View()) != ansi.Strip(v) {
		t.Error("highlighting changed the text")
	}
}

func TestLexerTableNamesRealLexers(t *testing.T) {
	for _, ext := range []string{".go", ".py", ".pyi", ".js", ".mjs", ".cjs", ".ts", ".tsx", ".mts", ".cts", ".jsx", ".rs", ".java", ".c", ".h", ".cc", ".cpp", ".cxx", ".hpp", ".hh", ".rb", ".sh", ".bash", ".zsh", ".json", ".yaml", ".yml", ".toml", ".md", ".markdown", ".html", ".htm", ".css", ".sql", ".kt", ".swift", ".php", ".lua", ".cs", ".xml", ".txt"} {
		name := lexerName(ext)
		l := lexers.Get(name)
		if name == "" || l == nil || !strings.EqualFold(l.Config().Name, name) && name != "TSX" {
			t.Errorf("%s: lexer %q resolves to %v", ext, name, l)
		}
	}
	h := NewHighlighter()
	for file, want := range map[string]string{"a/b/Makefile": "Makefile", "Dockerfile": "Docker", "x.GO": "Go", "noext": "", "weird.zzz": ""} {
		got := ""
		if l := h.lexer(file); l != nil {
			got = l.Config().Name
		}
		if got != want {
			t.Errorf("lexer(%q) = %q, want %q", file, got, want)
		}
	}
}

func TestControlCharactersCannotDriveTheTerminal(t *testing.T) {
	in := "--- a/evil.txt\n+++ b/evil.txt\n@@ -1 +1 @@\n-\x1b]0;pwned\x07title\n+\x1b[2J\x1b[31mred\x9b1m\rback\u009b\n"
	for _, th := range []*theme.Theme{theme.New(true, true), theme.New(true, false)} {
		m := New(in, Options{Theme: th})
		m.SetSize(80, 0)
		v := m.View()
		for _, bad := range []string{"\x1b]0", "\x07", "\x1b[2J", "\x1b[31m", "\r"} {
			if strings.Contains(v, bad) {
				t.Errorf("the view passes %q through to the terminal", bad)
			}
		}
		if !utf8.ValidString(v) || strings.ContainsFunc(v, func(r rune) bool { return r >= 0x80 && r < 0xa0 }) {
			t.Errorf("the view passes a C1 control or invalid UTF-8 through: %q", v)
		}
		s := screen(v)
		for _, want := range []string{"␛]0;pwned␇title", "␛[2J␛[31mred�1m␍back�"} {
			if !strings.Contains(s, want) {
				t.Errorf("the view does not show %q visibly:\n%s", want, s)
			}
		}
	}
}

func TestTabsWideRunesAndLongLines(t *testing.T) {
	in := "--- a/t.go\n+++ b/t.go\n@@ -1,2 +1,2 @@\n \tx := 1\n-a\tb\n+世界世界世界世界世界世界世界世界世界世界世界世界世界世界世界世界世界世界\n"
	m := New(in, Options{TabWidth: 4})
	for w := 1; w <= 120; w++ {
		for _, mode := range []Mode{Unified, Split} {
			m.SetMode(mode)
			m.SetSize(w, 0)
			assertWidths(t, m.View(), w)
		}
	}
	m.SetMode(Unified)
	m.SetSize(30, 0)
	s := screen(m.View())
	for _, want := range []string{"1 1       x := 1\n", "2   - a   b\n", "  2 + 世界世界世界世界世界世…\n"} {
		if !strings.Contains(s, want) {
			t.Errorf("the view lacks %q:\n%s", want, s)
		}
	}
	if strings.Contains(s, "\t") {
		t.Error("a tab reached the screen")
	}
}

func TestEveryWidthIsExact(t *testing.T) {
	for _, dark := range []bool{true, false} {
		m := mixed(t, Options{Theme: theme.New(dark, false)})
		for w := 1; w <= 200; w += 7 {
			for _, mode := range []Mode{Unified, Split} {
				m.SetMode(mode)
				m.SetSize(w, 15)
				send(t, m, "]")
				assertWidths(t, m.View(), w)
			}
		}
	}
}

func TestMixedLineEndingsAreMarked(t *testing.T) {
	m := New("--- a/w.txt\n+++ b/w.txt\n@@ -1,2 +1,2 @@\n one\r\n-two\r\n+two\n", Options{})
	m.SetSize(60, 0)
	s := screen(m.View())
	for _, want := range []string{"w.txt  +1 -1 · mixed line endings (␍ marks CRLF)", "- two␍", "+ two\n"} {
		if !strings.Contains(s, want) {
			t.Errorf("the view lacks %q:\n%s", want, s)
		}
	}
}

func TestUnreadableDiffIsShownAsText(t *testing.T) {
	m := New("--- a\n+++ b\n@@ not a header @@\n+x\n", Options{})
	if m.Err() == nil {
		t.Fatal("no error")
	}
	m.SetSize(200, 0)
	s := screen(m.View())
	if !strings.HasPrefix(s, "cannot read this as a diff (diffview: line 3:") || !strings.Contains(s, "@@ not a header @@\n+x\n") {
		t.Errorf("the view does not say why and show the text:\n%s", s)
	}
}

func TestEmptyDiff(t *testing.T) {
	m := New("", Options{})
	m.SetSize(40, 0)
	if got := lines(m); len(got) != 1 || got[0] != "no changes" {
		t.Errorf("an empty diff shows %q", got)
	}
	_, _ = m.Update(press("]"))
	_, _ = m.Update(press("t"))
	m.View()
}

func TestSetThemeRecolours(t *testing.T) {
	m := mixed(t, Options{Theme: theme.New(true, false)})
	m.SetSize(80, 10)
	if _, ok := hasColour(m.View()); !ok {
		t.Fatal("no colour")
	}
	m.SetTheme(theme.New(false, true))
	if seq, ok := hasColour(m.View()); ok {
		t.Fatalf("after SetTheme(NoColor) the cached rows still set \\x1b[%sm", seq)
	}
}
