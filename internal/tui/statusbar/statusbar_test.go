package statusbar

import (
	"fmt"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"agent/internal/tui/theme"
	"agent/internal/tui/tuitest"
)

func full() Status {
	return Status{
		Model: "gpt-5.1-codex", Approval: "ask", State: Streaming,
		TokensIn: 41250, TokensOut: 1310, Cost: 0.0423,
		ContextTokens: 41250, ContextWindow: 128000,
		RunID: "20261129T203216-3f9a1c", Mouse: true, Hint: "? help",
	}
}

// scenarios are the statuses the golden files show, one per line.
func scenarios() []Status {
	a := full()
	b := full()
	b.State, b.Approval, b.Cost, b.Mouse = AwaitingApproval, "full-auto", -1, false
	b.ContextTokens = 120000
	c := Status{Model: "local-model", Approval: "read-only", State: Idle, Cost: -1, Hint: "? help"}
	d := full()
	d.State, d.ContextWindow, d.Cost = Interrupted, 0, 12.5
	return []Status{a, b, c, d}
}

func TestGolden(t *testing.T) {
	for _, dark := range []bool{true, false} {
		mode := map[bool]string{true: "dark", false: "light"}[dark]
		for _, w := range []int{40, 80, 120, 200} {
			var b strings.Builder
			for _, s := range scenarios() {
				b.WriteString(ansi.Strip(Render(theme.New(dark, false), s, w)) + "|\n")
			}
			tuitest.Golden(t, fmt.Sprintf("statusbar_%d_%s", w, mode), b.String())
		}
	}
}

func TestOneLineOfExactWidth(t *testing.T) {
	for _, s := range scenarios() {
		for w := 1; w <= 220; w++ {
			v := Render(theme.New(true, false), s, w)
			if strings.Contains(v, "\n") || ansi.StringWidth(v) != w {
				t.Fatalf("width %d: %d wide, %q", w, ansi.StringWidth(v), ansi.Strip(v))
			}
		}
	}
	if Render(nil, full(), 0) != "" {
		t.Fatal("a zero width renders something")
	}
}

// Less important fields go first; the state stays at any width.
func TestDropsLeastImportantFirst(t *testing.T) {
	fields := []string{"streaming", "approval ask", "gpt-5.1-codex", "ctx 41k/128k 32%", "41k in · 1.3k out", "$0.042", "run 20261129T203216-3f9a1c", "mouse on", "? help"}
	seen := map[int]bool{}
	for w := 220; w >= 12; w-- {
		v := ansi.Strip(Render(theme.New(true, false), full(), w))
		present := make([]bool, len(fields))
		for i, f := range fields {
			present[i] = strings.Contains(v, f)
		}
		if !present[0] {
			t.Fatalf("width %d: the state is gone: %q", w, v)
		}
		for i := 1; i < len(fields); i++ {
			if present[i] && !present[i-1] {
				t.Fatalf("width %d: %q is shown but the more important %q is not: %q", w, fields[i], fields[i-1], v)
			}
		}
		n := 0
		for _, p := range present {
			if p {
				n++
			}
		}
		seen[n] = true
	}
	for n := 1; n <= len(fields); n++ {
		if !seen[n] {
			t.Errorf("no width shows exactly %d fields", n)
		}
	}
	if v := ansi.Strip(Render(nil, full(), 200)); !strings.HasSuffix(v, "mouse on · ? help") {
		t.Errorf("the hint is not at the right edge: %q", v)
	}
}

func TestStatesHaveGlyphAndWord(t *testing.T) {
	words := map[State]string{
		Idle: "○ idle", Thinking: "◌ thinking", Streaming: "» streaming", RunningTool: "● running tool",
		AwaitingApproval: "? awaiting approval", Interrupted: "! interrupted", Done: "✓ done", Failed: "✗ failed",
	}
	glyphs := map[string]bool{}
	for st, want := range words {
		v := ansi.Strip(Render(theme.New(true, true), Status{State: st, Cost: -1}, 40))
		if !strings.HasPrefix(v, want) {
			t.Errorf("%v: %q, want it to start with %q", st, v, want)
		}
		glyphs[st.Glyph()] = true
	}
	if len(glyphs) != len(words) {
		t.Errorf("two states share a glyph: %v", glyphs)
	}
}

func TestFields(t *testing.T) {
	cases := []struct {
		s    Status
		want []string
		not  []string
	}{
		{Status{Cost: -1, TokensIn: 950, TokensOut: 12}, []string{"950 in · 12 out"}, []string{"$"}},
		{Status{Cost: 0}, []string{"$0.00"}, nil},
		{Status{Cost: 1234.567}, []string{"$1234.57"}, nil},
		{Status{Cost: -1, ContextTokens: 5000}, []string{"ctx 5k"}, []string{"/"}},
		{Status{Cost: -1, ContextTokens: 1_260_000, ContextWindow: 2_000_000}, []string{"ctx 1.3M/2M 63%"}, nil},
		{Status{Cost: -1, Model: "evil\x1b[2Jmodel", RunID: "r\nid"}, []string{`evil\x1b[2Jmodel`, "run r id"}, nil},
		{Status{Cost: -1}, nil, []string{"mouse", "run ", "ctx", "approval", " in "}},
	}
	for _, tc := range cases {
		v := ansi.Strip(Render(nil, tc.s, 200))
		for _, w := range tc.want {
			if !strings.Contains(v, w) {
				t.Errorf("%+v: missing %q in %q", tc.s, w, v)
			}
		}
		for _, w := range tc.not {
			if strings.Contains(v, w) {
				t.Errorf("%+v: unexpected %q in %q", tc.s, w, v)
			}
		}
	}
}

func TestModel(t *testing.T) {
	m := New(nil)
	m.SetWidth(80)
	if v := ansi.Strip(m.View()); !strings.HasPrefix(v, "○ idle") || strings.Contains(v, "$") {
		t.Fatalf("a new bar: %q", v)
	}
	m.SetStatus(full())
	if m.Status() != full() || !strings.Contains(ansi.Strip(m.View()), "gpt-5.1-codex") {
		t.Fatal("SetStatus is not shown")
	}
}

func TestNoColor(t *testing.T) {
	for _, s := range scenarios() {
		if bad := tuitest.ColourEscapes(Render(theme.New(true, true), s, 200)); len(bad) > 0 {
			t.Fatalf("colour escapes with NO_COLOR: %v", bad)
		}
	}
	if len(tuitest.ColourEscapes(Render(theme.New(true, false), full(), 200))) == 0 {
		t.Fatal("the dark theme sets no colour")
	}
}
