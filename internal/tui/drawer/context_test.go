package drawer

import (
	"fmt"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"agent/internal/tui/theme"
	"agent/internal/tui/tuitest"
)

func sampleContext() Context {
	return Context{
		Step: 4, Budget: 100000, Window: 128000, Reserve: 8192, Margin: 2560, Ratio: 1.08, Total: 41250,
		Counting:     "o200k_base, corrected ×1.08 from 3 provider reports",
		FirstChanged: "L6 summary and older rounds", PrefixHash: "1a2b3c4d5e6f7a8b", Compacted: 212,
		Layers: []Layer{
			{ID: "tools", Name: "tools", Tokens: 3400, Items: 9},
			{ID: "L1", Name: "instructions", Tokens: 1250, Items: 1, Note: "AGENTS.md"},
			{ID: "L5a", Name: "repo map", Budget: 21000, Tokens: 6000, Items: 1, Note: "212 files, refreshed at step 4 (compaction)"},
			{ID: "L6", Name: "summary and older rounds", Budget: 16800, Tokens: 3200, Items: 1, Note: "summary of the run through seq 180 (deterministic)", Cuts: []Cut{
				{Reason: "folded into the summary", What: "41 messages, seq 3–180", Before: 12400, After: 0},
			}},
			{ID: "L3", Name: "recent rounds", Budget: 37800, Tokens: 27000, Items: 36, Cuts: []Cut{
				{Reason: "old tool output masked", What: "tool result call_9, seq 190", Before: 1450, After: 12},
				{Reason: "superseded read", What: "tool result call_11 internal/greet/greet.go, seq 196", Before: 900, After: 14},
			}},
			{ID: "L5b", Name: "file snippets", Budget: 15000, Tokens: 0, Items: 0},
			{ID: "L4", Name: "task state", Tokens: 0, Items: 0},
			{ID: "L2", Name: "your message", Tokens: 400, Items: 1},
		},
	}
}

func openContext(th *theme.Theme, w, h int, c *Context) *ContextDrawer {
	d := NewContext(Options{Theme: th})
	d.SetSize(w, h)
	if c != nil {
		d.SetContext(*c)
	}
	return d
}

func TestContextGolden(t *testing.T) {
	c := sampleContext()
	for _, dark := range []bool{true, false} {
		mode := map[bool]string{true: "dark", false: "light"}[dark]
		for _, w := range []int{40, 80, 120, 200} {
			d := openContext(theme.New(dark, false), w, 30, &c)
			tuitest.Golden(t, fmt.Sprintf("context_%d_%s", w, mode), ansi.Strip(d.View()))
		}
	}
	tuitest.Golden(t, "context_empty_80", ansi.Strip(openContext(nil, 80, 30, nil).View()))
	noWindow := sampleContext()
	noWindow.Window = 0
	tuitest.Golden(t, "context_nowindow_80", ansi.Strip(openContext(nil, 80, 30, &noWindow).View()))
}

func TestContextShowsSharesOfTheWindow(t *testing.T) {
	c := sampleContext()
	v := ansi.Strip(openContext(nil, 120, 0, &c).View())
	for _, want := range []string{
		"last model request, step 4",
		"41,250 tokens · 32.2% of the 128,000-token window · budget 100,000 (41.2% used)",
		"budget = (window 128,000 − reserve 8,192 − margin 2,560) ÷ provider ratio 1.08",
		"counted: o200k_base, corrected ×1.08 from 3 provider reports",
		"first layer changed since the previous request: L6 summary and older rounds",
		"compacted before this request (seq 212)",
		"prefix hash (tools, L1, L5a): 1a2b3c4d5e6f7a8b",
		"L3 recent rounds             37,800  27,000  21.1%    36", // 27,000 / 128,000
		"    summary of the run through seq 180 (deterministic)",
		"  − folded into the summary: 41 messages, seq 3–180 (12,400 → 0)",
		"  − old tool output masked: tool result call_9, seq 190 (1,450 → 12)",
		"free                                 86,750  67.8%",
		"never sent to the model",
	} {
		if !strings.Contains(v, want) {
			t.Errorf("missing %q in\n%s", want, v)
		}
	}
	// The bars are proportional: history's is longer than system's.
	var hist, sys int
	for _, l := range strings.Split(v, "\n") {
		n := strings.Count(l, "█")
		switch {
		case strings.Contains(l, "L3 recent"):
			hist = n
		case strings.Contains(l, "L1 instructions"):
			sys = n
		}
	}
	if hist <= sys || hist == 0 {
		t.Errorf("bar cells: recent rounds %d, instructions %d", hist, sys)
	}
}

// A compaction after the request is said above the table; the cuts of a
// long report scroll, their rows wrapped to the width.
func TestContextSinceAndLongCuts(t *testing.T) {
	c := sampleContext()
	c.Since = "compacted since (seq 240, forced): 41,250 → 20,100 tokens; the next request uses it"
	for i := range 30 {
		c.Layers[4].Cuts = append(c.Layers[4].Cuts, Cut{Reason: "old tool output masked", What: fmt.Sprintf("tool result call_%d, seq %d", 20+i, 300+i), Before: 800, After: 12})
	}
	d := openContext(nil, 80, 24, &c)
	v := ansi.Strip(d.View())
	if !strings.Contains(v, "compacted since (seq 240, forced): 41,250 → 20,100 tokens") {
		t.Fatalf("no line about the compaction since the request:\n%s", v)
	}
	if strings.Contains(v, "call_49") {
		t.Fatalf("the last cut shows before scrolling:\n%s", v)
	}
	d.Update(tuitest.Key("end"))
	v = ansi.Strip(d.View())
	if !strings.Contains(v, "tool result call_49, seq 329 (800 → 12)") || !strings.Contains(v, "prefix hash") {
		t.Fatalf("end does not reach the last cut and the facts:\n%s", v)
	}
	for i, l := range tuitest.Rows(d.View()) {
		if w := ansi.StringWidth(l); w != 80 {
			t.Errorf("row %d is %d wide: %q", i, w, l)
		}
	}
}

// A report from before the layers had ids and budgets still reads.
func TestContextLegacyReport(t *testing.T) {
	c := Context{Step: 2, Budget: 100000, Window: 128000, Total: 1500,
		Layers: []Layer{{Name: "system", Tokens: 1000, Items: 1}, {Name: "conversation", Tokens: 500, Items: 3}}}
	v := ansi.Strip(openContext(nil, 80, 0, &c).View())
	for _, bad := range []string{"budget =", "counted:", "prefix hash", "first layer"} {
		if strings.Contains(v, bad) {
			t.Errorf("%q shown for a report without it:\n%s", bad, v)
		}
	}
	if !strings.Contains(v, "conversation") || !strings.Contains(v, "1,500") {
		t.Errorf("the layers are missing:\n%s", v)
	}
}

func TestContextOverTheWindow(t *testing.T) {
	c := Context{Step: 1, Window: 1000, Total: 1500, Layers: []Layer{{Name: "history", Tokens: 1500, Items: 3}}}
	if v := ansi.Strip(openContext(nil, 80, 0, &c).View()); !strings.Contains(v, "over the window by 500 tokens") {
		t.Fatalf("no warning when the request exceeds the window:\n%s", v)
	}
}

func TestContextEmpty(t *testing.T) {
	v := ansi.Strip(openContext(nil, 80, 0, nil).View())
	if !strings.Contains(v, "no model request yet") {
		t.Fatalf("no empty state:\n%s", v)
	}
}

func TestContextEscCloses(t *testing.T) {
	d := openContext(nil, 80, 30, nil)
	_, cmd := d.Update(tuitest.Key("esc"))
	if got := tuitest.Msgs(cmd); len(got) != 1 || got[0] != (CloseMsg{Which: ContextDrawerID}) {
		t.Fatalf("esc: %v, want a CloseMsg for the context drawer", got)
	}
}

// Many layers scroll under a pinned header and total.
func TestContextScrolls(t *testing.T) {
	c := Context{Step: 9, Window: 200000, Total: 0}
	for i := range 40 {
		c.Layers = append(c.Layers, Layer{Name: fmt.Sprintf("layer %02d", i), Tokens: 100 * (i + 1), Items: i})
		c.Total += 100 * (i + 1)
	}
	d := openContext(nil, 80, 20, &c)
	first := tuitest.Rows(d.View())
	if len(first) != 20 {
		t.Fatalf("%d rows, want 20", len(first))
	}
	for _, k := range []string{"pgdown", "down", "end"} {
		d.Update(tuitest.Key(k))
		now := tuitest.Rows(d.View())
		if now[1] != first[1] || now[len(now)-4] != first[len(first)-4] {
			t.Fatalf("after %s the title or the total moved:\n%s", k, strings.Join(now, "\n"))
		}
	}
	v := ansi.Strip(d.View())
	if !strings.Contains(v, "layer 39") || strings.Contains(v, "layer 00") || !strings.Contains(v, "of 40") {
		t.Fatalf("end does not show the last layer:\n%s", v)
	}
	d.Update(tea.MouseWheelMsg{Button: tea.MouseWheelUp})
	d.Update(tuitest.Key("home"))
	if v := ansi.Strip(d.View()); !strings.Contains(v, "layer 00") {
		t.Fatalf("home does not show the first layer:\n%s", v)
	}
}

func TestContextFitsWidth(t *testing.T) {
	c := sampleContext()
	c.Layers[0].Name = "a very long layer name that does not fit anywhere"
	for _, w := range []int{20, 40, 63, 80, 120, 200} {
		for i, l := range tuitest.Rows(openContext(nil, w, 30, &c).View()) {
			if got := ansi.StringWidth(l); got != w {
				t.Errorf("width %d: row %d is %d wide: %q", w, i, got, l)
			}
		}
	}
}

func TestContextNoColor(t *testing.T) {
	c := sampleContext()
	if bad := tuitest.ColourEscapes(openContext(theme.New(false, true), 80, 30, &c).View()); len(bad) > 0 {
		t.Fatalf("colour escapes with NO_COLOR: %v", bad)
	}
	if len(tuitest.ColourEscapes(openContext(theme.New(false, false), 80, 30, &c).View())) == 0 {
		t.Fatal("the light theme sets no colour")
	}
}
