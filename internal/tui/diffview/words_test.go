package diffview

import (
	"fmt"
	"strings"
	"testing"

	"github.com/charmbracelet/colorprofile"

	"agent/internal/tui/theme"
	"agent/internal/tui/tuitest"
)

func texts(s string, rs []rng) []string {
	var out []string
	for _, r := range rs {
		out = append(out, s[r.from:r.to])
	}
	return out
}

func TestChangedWords(t *testing.T) {
	for _, c := range []struct {
		a, b string
		want []string
	}{
		{`	return "hello, " + strings.TrimSpace(name) + "!"`, `	return "hello, " + name`, []string{`strings.TrimSpace(`, `) + "!"`}},
		{`	return "hello, " + name`, `	return "hello, " + strings.TrimSpace(name) + "!"`, nil},
		{`	y := 3`, `	y := 2`, []string{"3"}},
		{`fmt.Println("Hi")`, `fmt.Println("Hello")`, []string{"Hi"}},
		{`completely different`, `nothing alike here at all`, nil}, // too different: no highlight
		{`same`, `same`, nil},
	} {
		if got := texts(c.a, changedWords(c.a, c.b)); strings.Join(got, "|") != strings.Join(c.want, "|") {
			t.Errorf("changedWords(%q, %q) = %q, want %q", c.a, c.b, got, c.want)
		}
	}
	long := strings.Repeat("a ", maxWordTokens)
	if changedWords(long, long+"b") != nil {
		t.Error("a line past the token bound was compared")
	}
}

const oneLine = `--- a/main.go
+++ b/main.go
@@ -1,5 +1,5 @@
 package main

 func main() {
-	fmt.Println("Hello, world")
+	fmt.Println("Hello, tui")
 }
`

// sgrParams lists the SGR parameter strings of view's escapes.
func bgOf(view, text string) string {
	i := strings.Index(view, text)
	if i < 0 {
		return ""
	}
	j := strings.LastIndex(view[:i], "\x1b[")
	return view[j:i]
}

// The removed and the added line get backgrounds that differ in every
// palette (under 256 colours they used to fall on the same grey 234), and
// the changed word a deeper one than its line; NO_COLOR has no colour.
func TestDistinctBackgroundsInEveryPalette(t *testing.T) {
	for _, p := range tuitest.Palettes {
		for _, dark := range []bool{true, false} {
			th := theme.NewFor(dark, false, p)
			m := New(oneLine, Options{Theme: th, NoHighlight: true})
			m.SetSize(80, 0)
			v := tuitest.InPalette(m.View(), p)
			del, delWord := bgOf(v, `fmt.Println("Hello, `), bgOf(v, "world")
			after := v[strings.Index(v, "world"):]
			add := bgOf(after, `fmt.Println("Hello, `)
			name := fmt.Sprintf("%s dark=%v", tuitest.PaletteName(p), dark)
			if del == "" || add == "" || del == add {
				t.Errorf("%s: removed line %q, added line %q: not distinct", name, del, add)
			}
			if delWord == "" || delWord == del {
				t.Errorf("%s: the changed word %q is not set apart from its line %q", name, delWord, del)
			}
		}
	}
	m := New(oneLine, Options{Theme: theme.NewFor(true, true, colorprofile.ANSI256)})
	m.SetSize(80, 0)
	if bad := tuitest.ColourEscapes(m.View()); len(bad) > 0 {
		t.Errorf("NO_COLOR: colour escapes %v", bad)
	}
	if v := screen(m.View()); !strings.Contains(v, "- ") || !strings.Contains(v, "+ ") {
		t.Errorf("NO_COLOR: no +/- glyphs:\n%s", v)
	}
}

// The diff view with word highlights and syntax colour, at 40, 80, 120 and
// 200 columns, dark and light, stripped and as terminals of 16 million, 256
// and 16 colours receive it.
func TestGoldenWords(t *testing.T) {
	patch := readFixture(t, "mixed.patch")
	for _, w := range goldenWidths {
		for _, dark := range []bool{true, false} {
			shade := map[bool]string{true: "dark", false: "light"}[dark]
			name := fmt.Sprintf("words-%d-%s", w, shade)
			t.Run(name, func(t *testing.T) {
				var stripped string
				for _, p := range tuitest.Palettes {
					m := New(patch, Options{Theme: theme.NewFor(dark, false, p), Mode: Unified})
					m.budget.static = true
					m.SetSize(w, 0)
					v := m.View()
					assertWidths(t, v, w)
					if stripped == "" {
						stripped = screen(v)
						checkGolden(t, name, stripped)
					}
					checkGolden(t, name+"-"+tuitest.PaletteName(p), tuitest.Escaped(tuitest.InPalette(v, p)))
				}
			})
		}
	}
}
