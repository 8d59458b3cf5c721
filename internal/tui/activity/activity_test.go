package activity

import (
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"

	"agent/internal/tui/theme"
	"agent/internal/tui/tuitest"
)

type clock struct{ t time.Time }

func (c *clock) now() time.Time { return c.t }

func newLine(dark bool) (*Model, *clock) {
	c := &clock{t: time.Date(2026, 1, 1, 9, 0, 0, 0, time.UTC)}
	return New(Options{Theme: theme.New(dark, false), Now: c.now}), c
}

// scenarios: what the golden files show, one line each.
func scenarios(m *Model, c *clock) []string {
	var out []string
	shot := func(st State, after time.Duration, notice string, warn bool, w int) {
		m.Set(State{})
		m.Set(st)
		c.t = c.t.Add(after)
		m.SetNotice(notice, warn)
		out = append(out, ansi.Strip(m.View(w))+"|")
	}
	for _, w := range []int{40, 80, 120, 200} {
		shot(State{Kind: Thinking, Key: "1"}, 3*time.Second, "", false, w)
		shot(State{Kind: Writing, Key: "1"}, 12*time.Second, "", false, w)
		shot(State{Kind: Tool, Key: "c1", Label: "go test ./internal/tui/... -run TestSomethingLong -count=1"}, 65*time.Second, "", false, w)
		shot(State{Kind: Thinking, Key: "2"}, 6*time.Second, "retrying in 4s (2/5): connection refused", true, w)
		shot(State{Kind: Thinking, Key: "3"}, 31*time.Second, "the model has sent nothing for 31s", true, w)
		shot(State{Kind: Compacting}, 2*time.Hour+3*time.Minute, "", false, w)
	}
	return out
}

func TestGolden(t *testing.T) {
	for _, dark := range []bool{true, false} {
		m, c := newLine(dark)
		name := map[bool]string{true: "dark", false: "light"}[dark]
		tuitest.Golden(t, "activity_"+name, strings.Join(scenarios(m, c), "\n")+"\n")
	}
}

// The line never passes its width, and keeps the elapsed time as it
// narrows.
func TestFitsWidth(t *testing.T) {
	m, c := newLine(true)
	m.Set(State{Kind: Tool, Key: "c1", Label: strings.Repeat("long command ", 30)})
	c.t = c.t.Add(7 * time.Second)
	m.SetNotice("retrying in 4s (2/5): rate limited", true)
	for w := 1; w <= 220; w++ {
		v := m.View(w)
		if got := ansi.StringWidth(v); got > w {
			t.Fatalf("width %d: the line takes %d columns: %q", w, got, ansi.Strip(v))
		}
		if w >= 60 && !strings.Contains(ansi.Strip(v), "7s") {
			t.Fatalf("width %d: the elapsed time was cut: %q", w, ansi.Strip(v))
		}
	}
}

// Nothing running: no tick is scheduled, and a tick of a chain that ran
// schedules no next one; running again starts one chain, not two.
func TestTicksOnlyWhileRunning(t *testing.T) {
	m, _ := newLine(true)
	if cmd := m.Set(State{}); cmd != nil || m.Ticking() {
		t.Fatal("an idle line schedules a tick")
	}
	if m.View(80) != "" || m.Height() != 0 {
		t.Fatal("an idle line draws something")
	}
	first := m.Set(State{Kind: Thinking, Key: "1"})
	if first == nil || !m.Ticking() {
		t.Fatal("a running line schedules no tick")
	}
	if again := m.Set(State{Kind: Tool, Key: "c1"}); again != nil {
		t.Fatal("a second chain started while one runs")
	}
	tick := TickMsg{gen: m.gen}
	if next := m.Update(tick); next == nil {
		t.Fatal("the chain stopped while something runs")
	}
	m.Set(State{})
	if next := m.Update(tick); next != nil || m.Ticking() {
		t.Fatal("the chain went on with nothing running")
	}
	if stale := m.Update(TickMsg{gen: m.gen - 1}); stale != nil {
		t.Fatal("a replaced chain went on")
	}
	if m.Set(State{Kind: Thinking, Key: "2"}) == nil {
		t.Fatal("running again schedules no tick")
	}
}

// The elapsed time starts anew with each activity, not with each update of
// the same one.
func TestElapsedPerActivity(t *testing.T) {
	m, c := newLine(true)
	m.Set(State{Kind: Tool, Key: "c1", Label: "make"})
	c.t = c.t.Add(5 * time.Second)
	m.Set(State{Kind: Tool, Key: "c1", Label: "make"})
	if got := m.Elapsed(); got != 5*time.Second {
		t.Fatalf("elapsed %s after an update of the same call", got)
	}
	m.Set(State{Kind: Tool, Key: "c2", Label: "make test"})
	if got := m.Elapsed(); got != 0 {
		t.Fatalf("elapsed %s for a new call", got)
	}
}

func TestDuration(t *testing.T) {
	for d, want := range map[time.Duration]string{0: "0s", 999 * time.Millisecond: "0s", 59 * time.Second: "59s",
		61 * time.Second: "1m 01s", 3599 * time.Second: "59m 59s", 3601 * time.Second: "1h 00m", -time.Second: "0s"} {
		if got := Duration(d); got != want {
			t.Errorf("Duration(%s) = %q, want %q", d, got, want)
		}
	}
}

// NO_COLOR: the glyphs and words carry the meaning, no colour escape.
func TestNoColor(t *testing.T) {
	m := New(Options{Theme: theme.New(true, true)})
	m.Set(State{Kind: Thinking})
	m.SetNotice("retrying in 4s (2/5): rate limited", true)
	if bad := tuitest.ColourEscapes(m.View(120)); len(bad) > 0 {
		t.Fatalf("colour escapes under NO_COLOR: %q", bad)
	}
}
