package diffview

import (
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"agent/internal/tui/theme"
)

// tickClock is a clock that moves on by step each time it is read: every
// highlighted line costs one step.
func tickClock(step time.Duration) func() time.Time {
	t := time.Unix(0, 0)
	return func() time.Time {
		t = t.Add(step)
		return t
	}
}

// commentRows counts the lines of a view that show a comment in the
// comment colour (every code row of genPatch's context has one).
func commentRows(m *Model, view string) (highlighted, plain int) {
	for _, l := range strings.Split(view, "\n") {
		if !strings.Contains(l, "// unchanged") {
			continue
		}
		if strings.Contains(l, m.pal.code[kCtx][classComment]+"// unchanged") {
			highlighted++
		} else {
			plain++
		}
	}
	return highlighted, plain
}

// TestSlowHighlightingIsSpreadOverFrames: when chroma is slow, a frame
// highlights what its budget allows, shows the rest in the plain add and
// delete colours, and the HighlightMsg the key returned finishes the screen
// in later frames; nothing plain is kept.
func TestSlowHighlightingIsSpreadOverFrames(t *testing.T) {
	th := theme.New(true, false)
	patch, _ := genPatch(2000)
	m := New(patch, Options{Theme: th, ID: "preview"})
	m.budget.now = tickClock(time.Millisecond) // each highlighted line costs 1 ms
	m.SetSize(120, 40)
	m.View()
	_, cmd := m.Update(press("pgdown"))
	if cmd == nil {
		t.Fatal("pgdown to lines never seen returned no command")
	}
	hl, plain := commentRows(m, m.View())
	if hl == 0 || plain == 0 || hl > int(frameBudget.Milliseconds())/2+frameFloor {
		t.Fatalf("a slow frame highlighted %d and left %d context rows plain", hl, plain)
	}
	assertWidths(t, m.View(), 120)
	for i := 0; cmd != nil; i++ {
		if i > 40 {
			t.Fatal("the highlighting never finishes")
		}
		msg := cmd()
		if hm, ok := msg.(HighlightMsg); !ok || hm.ID != "preview" {
			t.Fatalf("the command sent %#v", msg)
		}
		_, cmd = m.Update(msg)
		m.View()
	}
	got := m.View()
	if hl, plain := commentRows(m, got); plain != 0 || hl == 0 {
		t.Fatalf("after the HighlightMsgs %d context rows are still plain", plain)
	}
	// The same screen rendered with a fast clock: nothing differs.
	fast := New(patch, Options{Theme: th})
	fast.budget.now = func() time.Time { return time.Unix(0, 0) }
	fast.SetSize(120, 40)
	fast.Update(press("pgdown"))
	if want := fast.View(); got != want {
		t.Errorf("the finished screen differs from one highlighted at once")
	}
	// A view with another ID ignores the message; a still key sends none.
	if _, cmd := m.Update(HighlightMsg{ID: "other"}); cmd != nil {
		t.Error("a HighlightMsg for another view did something")
	}
	if _, cmd := m.Update(press("f")); cmd == nil {
		t.Fatal("f sent nothing")
	} else if _, ok := cmd().(FullscreenMsg); !ok {
		t.Error("f sent something other than FullscreenMsg")
	}
}

// TestStaticRenderingsHighlightAtOnce: a card or the prompt's body has no
// later frame, so it is highlighted whole (up to staticLines lines), never
// left half plain by the frame budget.
func TestStaticRenderingsHighlightAtOnce(t *testing.T) {
	th := theme.New(true, false)
	patch, _ := genPatch(300)
	r := NewRenderer(Options{Theme: th})
	out := r.Render(patch, 120, 10)
	probe := New(patch, Options{Theme: th})
	if hl, plain := commentRows(probe, out); plain != 0 || hl == 0 {
		t.Errorf("Render left %d of %d context rows plain", plain, hl+plain)
	}
	big, _ := genPatch(3000)
	out = r.Render(big, 120, 10)
	hl, plain := commentRows(probe, out)
	if hl == 0 || plain == 0 || hl > staticLines {
		t.Errorf("a whole 3,000-line diff: %d context rows highlighted, %d plain", hl, plain)
	}
}

// TestInitFinishesTheFirstScreen: a parent that shows a new view returns
// Init's command, which leads to a highlighted first screen.
func TestInitFinishesTheFirstScreen(t *testing.T) {
	patch, _ := genPatch(2000)
	m := New(patch, Options{Theme: theme.New(false, false)})
	m.budget.now = tickClock(time.Millisecond)
	m.SetSize(120, 40)
	cmd := m.Init()
	m.View()
	for i := 0; cmd != nil; i++ {
		if i > 40 {
			t.Fatal("Init's highlighting never finishes")
		}
		var msg tea.Msg = cmd()
		_, cmd = m.Update(msg)
	}
	if hl, plain := commentRows(m, m.View()); plain != 0 || hl == 0 {
		t.Errorf("after Init %d rows are plain", plain)
	}
	if New("", Options{}).Init() != nil {
		t.Error("an empty view has highlighting to do")
	}
}
