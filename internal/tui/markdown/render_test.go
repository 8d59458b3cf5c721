package markdown

import (
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"agent/internal/termtext"
)

// TestStreamRendersOnlyTheTail: streamed in 4-byte deltas, each frame makes
// at most two glamour passes — a newly stable chunk, once, and the tail after
// the last boundary — and no pass ever covers text before that boundary.
func TestStreamRendersOnlyTheTail(t *testing.T) {
	corpus := readCorpus(t)
	var passes []string
	r := newRenderer(t, true, false, func(src string) { passes = append(passes, src) })
	s := NewStream(r)
	chunked := 0 // bytes rendered as stable chunks
	for i := 0; i < len(corpus); i += 4 {
		before := s.Stable()
		s.Append(corpus[i:min(i+4, len(corpus))])
		passes = passes[:0]
		s.Lines(80)
		after := s.Stable()
		text := s.Text()
		want := 0
		if after > before {
			want++ // the new stable chunk
			if passes[0] != termtext.Strip(text[before:after]) {
				t.Fatalf("at %d: first pass %q, want the new chunk %q", i, passes[0], text[before:after])
			}
			chunked += after - before
		}
		if after < len(text) {
			want++ // the tail
			if got := passes[len(passes)-1]; got != termtext.Strip(text[after:]) {
				t.Fatalf("at %d: last pass %q, want the tail %q", i, got, text[after:])
			}
		}
		if len(passes) != want {
			t.Fatalf("at %d: %d glamour passes, want %d: %q", i, len(passes), want, passes)
		}
	}
	if chunked != s.Stable() || s.Stable() < len(corpus)/2 {
		t.Fatalf("stable chunks covered %d bytes, stable prefix %d of %d", chunked, s.Stable(), len(corpus))
	}

	// The same frame again renders the tail only; the prefix is cached.
	passes = passes[:0]
	s.Lines(80)
	if len(passes) != 1 || passes[0] != termtext.Strip(s.Text()[s.Stable():]) {
		t.Fatalf("a repeated frame made passes %q, want only the tail", passes)
	}
}

// TestStreamCachesPrefixPerWidth: a resize renders the stable prefix once at
// the new width; going back to the previous width reuses its cache.
func TestStreamCachesPrefixPerWidth(t *testing.T) {
	corpus := readCorpus(t)
	n := 0
	r := newRenderer(t, true, false, func(string) { n++ })
	s := NewStream(r)
	s.Append(corpus[:len(corpus)-10]) // ends mid-paragraph: there is a tail
	for _, tc := range []struct {
		width, passes int
	}{
		{80, 2},  // the stable prefix, the tail
		{80, 1},  // the tail
		{120, 2}, // a new width: its prefix, the tail
		{80, 1},  // back: cached
		{60, 2},  // a third width evicts the least recent (120)
		{120, 2},
	} {
		n = 0
		lines := s.Lines(tc.width)
		if n != tc.passes {
			t.Errorf("width %d: %d glamour passes, want %d", tc.width, n, tc.passes)
		}
		if want := r.Render(s.Text(), tc.width); !slices.Equal(lines, want) {
			t.Errorf("width %d: lines differ from a full render", tc.width)
		}
		for _, l := range lines {
			if w := ansi.StringWidth(l); w > tc.width {
				t.Errorf("width %d: a line is %d cells wide: %q", tc.width, w, ansi.Strip(l))
			}
		}
	}
}

// TestFinishedStreamKeepsNoCache: a finished message's lines are a full
// render, and it holds no prefix render (the transcript caches lines).
func TestFinishedStreamKeepsNoCache(t *testing.T) {
	r := newRenderer(t, true, false, nil)
	s := NewStream(r)
	s.Append("para one\n\npara two\n\ntail")
	s.Lines(80)
	s.Finish()
	if s.caches != nil {
		t.Fatal("a finished stream keeps its prefix cache")
	}
	if got, want := s.Lines(80), r.Render(s.Text(), 80); !slices.Equal(got, want) {
		t.Fatalf("finished lines %q, want %q", got, want)
	}
}

var sgr = regexp.MustCompile(`\x1b\[([0-9;:]*)m`)

// colourEscapes returns the SGR sequences of s that set a colour.
func colourEscapes(s string) []string {
	var found []string
	for _, m := range sgr.FindAllStringSubmatch(s, -1) {
		params := strings.FieldsFunc(m[1], func(r rune) bool { return r == ';' || r == ':' })
		for i := 0; i < len(params); i++ {
			p, _ := strconv.Atoi(params[i])
			switch {
			case p == 38 || p == 48 || p == 58:
				found = append(found, m[0])
			case (p >= 30 && p <= 37) || (p >= 40 && p <= 47) || (p >= 90 && p <= 97) || (p >= 100 && p <= 107):
				found = append(found, m[0])
			default:
				continue
			}
			break
		}
	}
	return found
}

const sample = "# Title\n\nSome *text* with `code` and a [link](https://example.com).\n\n```go\nfunc main() {\n\tfmt.Println(\"hi\")\n}\n```\n\n> quoted\n\n- a\n- b\n"

// TestNoColorHasNoColourEscapes: the NO_COLOR theme's render sets no colour
// (bold and italic stay), and code is not highlighted.
func TestNoColorHasNoColourEscapes(t *testing.T) {
	r := newRenderer(t, true, true, nil)
	out := r.RenderString(sample, 80)
	if c := colourEscapes(out); len(c) > 0 {
		t.Fatalf("NO_COLOR render has colour escapes %q in:\n%s", c, out)
	}
	if !strings.Contains(ansi.Strip(out), `fmt.Println("hi")`) {
		t.Fatalf("code block missing:\n%s", ansi.Strip(out))
	}
	s := NewStream(r)
	s.Append(sample)
	if c := colourEscapes(strings.Join(s.Lines(80), "\n")); len(c) > 0 {
		t.Fatalf("NO_COLOR stream has colour escapes %q", c)
	}
}

// TestThemesColourCode: dark and light renders differ, and code blocks are
// highlighted (several colours on the code's lines).
func TestThemesColourCode(t *testing.T) {
	dark := newRenderer(t, true, false, nil).Render(sample, 80)
	light := newRenderer(t, false, false, nil).Render(sample, 80)
	if slices.Equal(dark, light) {
		t.Fatal("dark and light renders are the same")
	}
	for name, lines := range map[string][]string{"dark": dark, "light": light} {
		var code string
		for _, l := range lines {
			if strings.Contains(ansi.Strip(l), "func main()") {
				code = l
			}
		}
		colours := map[string]bool{}
		for _, c := range colourEscapes(code) {
			colours[c] = true
		}
		if len(colours) < 3 {
			t.Errorf("%s: the code line %q has %d colours, want highlighting", name, code, len(colours))
		}
	}
	if strings.Join(dark, "\n") == ansi.Strip(strings.Join(dark, "\n")) {
		t.Fatal("dark render has no escapes at all")
	}
}

// TestUntrustedTextIsCleaned: escape sequences and control characters in the
// model's text never reach the terminal; a tab becomes spaces; a redaction
// placeholder is shown exactly as it came.
func TestUntrustedTextIsCleaned(t *testing.T) {
	r := newRenderer(t, true, true, nil)
	src := "clip\x1b]52;c;ZXZpbA==\x07board \x1b[2Jclear\x07 bell\x9b1m c1\n\n```\n\tindented\n```\n\nkey [REDACTED:github-token:0123abcd] here"
	out := strings.Join(r.Render(src, 80), "\n")
	plain := ansi.Strip(out)
	for _, bad := range []string{"\x1b]", "\x1b[2J", "\x07", "\x9b", "\t", "ZXZpbA"} {
		if strings.Contains(out, bad) {
			t.Errorf("render contains %q:\n%q", bad, out)
		}
	}
	for _, want := range []string{"clipboard clear bell c1", "    indented", "[REDACTED:github-token:0123abcd]"} {
		if !strings.Contains(plain, want) {
			t.Errorf("render lacks %q:\n%s", want, plain)
		}
	}
}

// TestNarrowWidth: a width under the minimum is raised, never a panic, and
// a long word is wrapped to the width.
func TestNarrowWidth(t *testing.T) {
	r := newRenderer(t, true, false, nil)
	for _, w := range []int{-1, 0, 1, 8, 9} {
		lines := r.Render("a verylongwordthatcannotbreak and `code span` here\n\n```\nlong code line that exceeds\n```", w)
		if len(lines) == 0 {
			t.Fatalf("width %d: no lines", w)
		}
		for _, l := range lines {
			if sw := ansi.StringWidth(l); sw > max(w, minWidth) {
				t.Errorf("width %d: line of %d cells: %q", w, sw, ansi.Strip(l))
			}
		}
	}
}

func TestNewNeedsTheme(t *testing.T) {
	if _, err := New(Options{}); err == nil || !strings.Contains(err.Error(), "theme.New") {
		t.Fatalf("New without a theme: err = %v, want one naming theme.New", err)
	}
}
