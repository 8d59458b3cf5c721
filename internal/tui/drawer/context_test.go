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
		Step: 4, Budget: 100000, Window: 128000, Total: 41250,
		Layers: []Layer{
			{Name: "system", Tokens: 1250, Items: 1},
			{Name: "tools", Tokens: 3400, Items: 9},
			{Name: "repo map", Tokens: 6000, Items: 212},
			{Name: "history", Tokens: 30200, Items: 37, Dropped: []string{
				"budget: 3 tool outputs of steps 1–2 (12,400 tokens)",
				"duplicate: a second read of internal/greet/greet.go",
			}},
			{Name: "user", Tokens: 400, Items: 1},
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
		"history   30,200  23.6%    37", // 30,200 / 128,000
		"− dropped budget: 3 tool outputs of steps 1–2 (12,400 tokens)",
		"free      86,750  67.8%",
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
		case strings.Contains(l, "history"):
			hist = n
		case strings.Contains(l, "system"):
			sys = n
		}
	}
	if hist <= sys || hist == 0 {
		t.Errorf("bar cells: history %d, system %d", hist, sys)
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
