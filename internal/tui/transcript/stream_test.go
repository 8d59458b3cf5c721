package transcript

import (
	"regexp"
	"strconv"
	"strings"
	"testing"

	"agent/internal/termtext"
)

// TestStreamingRendersOnlyTheTail: while the last answer streams, a frame
// re-renders that item alone (every other item comes from the cache), and
// its markdown passes cover only the tail after the last stable block.
func TestStreamingRendersOnlyTheTail(t *testing.T) {
	var passes []string
	md := newMarkdown(t, true, func(src string) { passes = append(passes, src) })
	var items []int
	m := newModel(t, true, false, Options{Markdown: md, OnItemRender: func(i int) { items = append(items, i) }})
	fill(m)
	a := NewAssistant("")
	m.Append(a)
	m.SetSize(80, 30)
	if v := plainLines(m.View()); v[len(v)-1] != "  …" {
		t.Fatalf("an empty streaming answer shows %q, want \"  …\"", v[len(v)-1])
	}
	last := m.Len() - 1

	text := "First paragraph of the answer.\n\nSecond one, then code:\n\n```go\nfunc f() int {\n\treturn 1\n}\n```\n\nAnd the closing words of a long answer."
	for i := 0; i < len(text); i += 4 {
		items, passes = nil, nil
		a.Append(text[i:min(i+4, len(text))])
		m.View()
		if len(items) != 1 || items[0] != last {
			t.Fatalf("after %d bytes a frame rendered items %v, want only %d", i, items, last)
		}
		stable := a.stream.Stable()
		if n := len(passes); n > 2 || n == 0 {
			t.Fatalf("after %d bytes: %d markdown passes %q, want the tail (and a newly stable chunk)", i, n, passes)
		}
		if tail := termtext.Strip(a.Text()[stable:]); tail != "" && passes[len(passes)-1] != tail {
			t.Fatalf("after %d bytes the last pass was %q, want the tail %q", i, passes[len(passes)-1], tail)
		}
		if len(passes) == 2 && !strings.HasSuffix(termtext.Strip(a.Text()[:stable]), passes[0]) {
			t.Fatalf("after %d bytes the first pass %q is not the newly stable chunk", i, passes[0])
		}
	}
	a.Finish()
	items = nil
	got := plain(m.View())
	want := newModel(t, true, false, Options{})
	fill(want)
	want.Append(NewAssistantDone(text))
	want.SetSize(80, 30)
	if got != plain(want.View()) {
		t.Fatalf("the streamed answer differs from the same answer rendered whole:\n%s\nwant\n%s", got, plain(want.View()))
	}
}

// TestResizeMidStream: a resize while the answer streams renders it at the
// new width, and streaming goes on there.
func TestResizeMidStream(t *testing.T) {
	m := newModel(t, true, false, Options{})
	a := NewAssistant("A paragraph that is long enough to wrap differently at forty and at a hundred columns.\n\n")
	m.Append(a)
	m.SetSize(100, 20)
	m.View()
	m.SetSize(40, 20)
	a.Append("More text after the resize.")
	for _, l := range strings.Split(plain(m.View()), "\n") {
		if len([]rune(l)) > 40 {
			t.Fatalf("line wider than 40 after a resize mid-stream: %q", l)
		}
	}
	if v := plain(m.View()); !strings.Contains(v, "More text after the resize.") {
		t.Fatalf("the delta after the resize is missing:\n%s", v)
	}
}

// TestSecretPlaceholderShownAsIs: the transcript shows a redaction
// placeholder exactly as the root fed it, in a tool's output and in the
// model's text; it never un-redacts.
func TestSecretPlaceholderShownAsIs(t *testing.T) {
	const ph = "[REDACTED:github-token:0123abcd]"
	m := newModel(t, true, false, Options{})
	m.Append(NewAssistantDone("I found the token " + ph + " in `.env`."))
	c := NewToolCard(CardData{Tool: "read_file", CallID: "c1", Summary: ".env", Status: StatusOK, Output: "GITHUB_TOKEN=" + ph + "\n"})
	m.Append(c)
	m.SetSize(80, 20)
	for _, expanded := range []bool{false, true} {
		c.SetExpanded(expanded)
		v := plain(m.View())
		if n := strings.Count(v, ph); n != 2 {
			t.Fatalf("expanded=%v: the placeholder appears %d times, want 2:\n%s", expanded, n, v)
		}
		if !strings.Contains(v, "GITHUB_TOKEN="+ph) {
			t.Fatalf("the output line changed:\n%s", v)
		}
	}
}

// TestToolOutputCannotDriveTheTerminal: escape sequences and control
// characters in a tool's output (a clipboard write, a screen clear) never
// reach the frame.
func TestToolOutputCannotDriveTheTerminal(t *testing.T) {
	m := newModel(t, true, true, Options{})
	c := NewToolCard(CardData{Tool: "run_command", CallID: "c1", Summary: "cat x\x1b[2J", Status: StatusOK, Exit: ExitCode(0),
		Output: "a\x1b]52;c;ZXZpbA==\x07b\n\x1b[31mred\x1b[0m\rc\x00d\n"})
	m.Append(c)
	m.Append(NewUser("hi\x1b]0;title\x07 there"))
	m.SetSize(80, 10)
	c.SetExpanded(true)
	v := m.View()
	for _, bad := range []string{"\x1b]", "\x1b[2J", "\x1b[31m", "\x07", "\r", "\x00", "ZXZpbA"} {
		if strings.Contains(v, bad) {
			t.Errorf("the frame contains %q: %q", bad, v)
		}
	}
	for _, want := range []string{"ab", "redcd", "hi there"} {
		if !strings.Contains(plain(v), want) {
			t.Errorf("the frame lacks %q:\n%s", want, plain(v))
		}
	}
}

var sgr = regexp.MustCompile(`\x1b\[([0-9;:]*)m`)

// colourEscapes returns the SGR sequences of s that set a colour.
func colourEscapes(s string) []string {
	var found []string
	for _, m := range sgr.FindAllStringSubmatch(s, -1) {
		for _, p := range strings.FieldsFunc(m[1], func(r rune) bool { return r == ';' || r == ':' }) {
			n, _ := strconv.Atoi(p)
			if n == 38 || n == 48 || n == 58 || (n >= 30 && n <= 37) || (n >= 40 && n <= 47) || (n >= 90 && n <= 97) || (n >= 100 && n <= 107) {
				found = append(found, m[0])
				break
			}
		}
	}
	return found
}

// TestNoColor: a NoColor theme's frame sets no colour at all, while every
// status keeps its glyph.
func TestNoColor(t *testing.T) {
	m := newModel(t, true, true, Options{})
	fill(m)
	m.SetSize(100, 300)
	press(m, "home")
	m.Card("c2").SetExpanded(true)
	v := m.View()
	if c := colourEscapes(v); len(c) > 0 {
		t.Fatalf("NO_COLOR frame has colour escapes %q", c[:min(len(c), 5)])
	}
	for _, g := range []string{"✓ edit_file", "✗ run_command", "? run_command", "● run_command", "⊘ run_command", "! run_command", "✗ edit_file"} {
		if !strings.Contains(plain(v), g) {
			t.Errorf("NO_COLOR frame lacks %q", g)
		}
	}
	colour := newModel(t, true, false, Options{})
	fill(colour)
	colour.SetSize(100, 300)
	if len(colourEscapes(colour.View())) == 0 {
		t.Fatal("the colour theme's frame has no colour: the check above proves nothing")
	}
}

// TestFailedExitInErrorColour: "exit 1" is drawn in the theme's error
// style, and a zero exit in the OK style, whatever the status says.
func TestFailedExitInErrorColour(t *testing.T) {
	m := newModel(t, true, false, Options{})
	m.SetSize(80, 10)
	th := m.ctx.Theme
	c := NewToolCard(CardData{Tool: "run_command", CallID: "c1", Summary: "false", Status: StatusOK, Exit: ExitCode(1)})
	header := c.Render(m.ctx)[0]
	if !strings.Contains(header, th.ErrorText.Render("exit 1")) || !strings.Contains(header, th.ErrorText.Render("✗")) {
		t.Fatalf("exit 1 header %q lacks the error style", header)
	}
	c.Update(CardData{Tool: "run_command", CallID: "c1", Summary: "true", Status: StatusOK, Exit: ExitCode(0)})
	if header := c.Render(m.ctx)[0]; !strings.Contains(header, th.OKText.Render("exit 0")) {
		t.Fatalf("exit 0 header %q lacks the OK style", header)
	}
}

// TestDiffThroughRootFunc: an edit card draws its diff with the function
// the root passes, at the card's inner width.
func TestDiffThroughRootFunc(t *testing.T) {
	var gotDiff string
	var gotWidth int
	m := newModel(t, true, false, Options{Diff: func(diff string, width int) string {
		gotDiff, gotWidth = diff, width
		return "DIFFVIEW line 1\nDIFFVIEW line 2 " + strings.Repeat("x", 200)
	}})
	m.Append(NewToolCard(CardData{Tool: "edit_file", CallID: "c1", Summary: "a.go", Status: StatusOK, Diff: "@@ -1 +1 @@\n-a\n+b\n"}))
	m.SetSize(60, 10)
	v := m.View()
	if gotDiff != "@@ -1 +1 @@\n-a\n+b" || gotWidth != 58 {
		t.Fatalf("DiffFunc got (%q, %d), want the diff at 58", gotDiff, gotWidth)
	}
	if !strings.Contains(plain(v), "  DIFFVIEW line 1") {
		t.Fatalf("the card does not show the DiffFunc's lines:\n%s", plain(v))
	}
	for _, l := range strings.Split(plain(v), "\n") {
		if len([]rune(l)) > 60 {
			t.Fatalf("a diff line overflows: %q", l)
		}
	}
}
