package diffview

import (
	"fmt"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"

	"agent/internal/tui/theme"
)

func mixed(t *testing.T, opts Options) *Model {
	t.Helper()
	if opts.Theme == nil {
		opts.Theme = theme.New(true, false)
	}
	m := New(readFixture(t, "mixed.patch"), opts)
	if err := m.Err(); err != nil {
		t.Fatal(err)
	}
	return m
}

func TestToggleSplit(t *testing.T) {
	m := mixed(t, Options{})
	m.SetSize(120, 20)
	if m.Effective() != Unified || strings.Contains(m.View(), " │ ") {
		t.Fatalf("a new view is not unified:\n%s", screen(m.View()))
	}
	send(t, m, "t")
	v := screen(m.View())
	if m.Effective() != Split || !strings.Contains(v, " 3   import (") || !strings.Contains(v, " │ ") {
		t.Fatalf("t did not show the split view:\n%s", v)
	}
	if !strings.Contains(lines(m)[len(lines(m))-1], "split") {
		t.Errorf("the status line does not say split: %q", lines(m)[len(lines(m))-1])
	}
	send(t, m, "t")
	if m.Effective() != Unified || strings.Contains(m.View(), " │ ") {
		t.Fatalf("t again did not go back to unified:\n%s", screen(m.View()))
	}
}

func TestSplitFallsBackWhenNarrow(t *testing.T) {
	m := mixed(t, Options{Mode: Split})
	m.SetSize(40, 0)
	ls := lines(m)
	foot := ls[len(ls)-1]
	if m.Effective() != Unified || !m.SplitFallback() {
		t.Fatalf("at 40 columns the view is %v", m.Effective())
	}
	want := fmt.Sprintf("split needs %d columns, showing unified", m.SplitMinWidth())
	if !strings.HasPrefix(foot, want) {
		t.Errorf("the status line %q does not say %q", foot, want)
	}
	for _, l := range ls {
		if strings.Contains(l, " │ ") {
			t.Fatalf("a split row at 40 columns: %q", l)
		}
	}
	m.SetSize(m.SplitMinWidth(), 0)
	if m.Effective() != Split || m.SplitFallback() {
		t.Errorf("at %d columns split does not show", m.SplitMinWidth())
	}
}

func TestHunkJumpsLandOnHeaders(t *testing.T) {
	headers := []string{"@@ -3,11 +3,12 @@ package main", "@@ -20,6 +21,6 @@ func main() {", "@@ -3,4 +3,4 @@"}
	for _, mode := range []Mode{Unified, Split} {
		t.Run(mode.String(), func(t *testing.T) {
			m := mixed(t, Options{Mode: mode})
			m.SetSize(120, 8)
			for i, h := range headers {
				key := "]"
				send(t, m, key)
				if got := lines(m)[0]; got != h {
					t.Fatalf("after %s the top line is %q, want %q", key, got, h)
				}
				if cur, _ := m.Hunk(); cur != i+1 {
					t.Errorf("after jump %d Hunk() = %d", i+1, cur)
				}
			}
			send(t, m, "[")
			if got := lines(m)[0]; got != headers[1] {
				t.Fatalf("[: top line %q, want %q", got, headers[1])
			}
			send(t, m, "[")
			if got := lines(m)[0]; got != headers[0] {
				t.Fatalf("[: top line %q, want %q", got, headers[0])
			}
			// Scrolling into a hunk then p goes to that hunk's header.
			send(t, m, "]", "j", "j", "[")
			if got := lines(m)[0]; got != headers[1] {
				t.Fatalf("j j p: top line %q, want %q", got, headers[1])
			}
			if !strings.Contains(lines(m)[len(lines(m))-1], "hunk 2/") {
				t.Errorf("the status line does not name the hunk: %q", lines(m)[len(lines(m))-1])
			}
		})
	}
}

func TestHunkJumpStopsAtTheLast(t *testing.T) {
	m := mixed(t, Options{})
	m.SetSize(80, 10)
	_, total := m.Hunk()
	for range total {
		if !m.NextHunk() {
			t.Fatal("NextHunk stopped early")
		}
	}
	if m.NextHunk() {
		t.Error("NextHunk went past the last hunk")
	}
	if !m.AtBottom() {
		t.Error("the last hunk is not at the bottom")
	}
	m.GotoTop()
	if m.PrevHunk() {
		t.Error("PrevHunk moved above the first hunk")
	}
}

func TestScrollTo2000LineEnd(t *testing.T) {
	patch, last := genPatch(2000)
	if n := strings.Count(patch, "\n"); n != 2000 {
		t.Fatalf("the generated diff has %d lines", n)
	}
	m := New(patch, Options{Theme: theme.New(true, false)})
	m.SetSize(80, 30)
	if strings.Contains(screen(m.View()), strings.TrimSpace(last)) {
		t.Fatal("the last line is already on the first screen")
	}
	send(t, m, "end")
	ls := lines(m)
	if len(ls) != 30 {
		t.Fatalf("the view has %d lines, want 30", len(ls))
	}
	body := strings.Join(ls[:29], "\n")
	if !strings.Contains(body, strings.TrimSpace(last)) {
		t.Fatalf("end does not show the last line %q:\n%s", last, body)
	}
	foot := ls[29]
	want := fmt.Sprintf("%d–%d of %d", m.Rows()-28, m.Rows(), m.Rows())
	if !strings.Contains(foot, want) {
		t.Errorf("the status line %q does not say %q", foot, want)
	}
	send(t, m, "home")
	if m.Offset() != 0 {
		t.Fatalf("home: offset %d", m.Offset())
	}
	// Page by page to the end, as a person would.
	for i := 0; !m.AtBottom(); i++ {
		if i > m.Rows() {
			t.Fatal("pgdown never reached the bottom")
		}
		send(t, m, "pgdown")
	}
	if !strings.Contains(screen(m.View()), strings.TrimSpace(last)) {
		t.Fatal("pgdown to the bottom does not show the last line")
	}
	send(t, m, "pgdown", "down", "j")
	if !strings.Contains(screen(m.View()), strings.TrimSpace(last)) || !m.AtBottom() {
		t.Fatal("scrolling past the end moved the view")
	}
}

func TestScrollKeysAndWheel(t *testing.T) {
	patch, _ := genPatch(300)
	m := New(patch, Options{})
	m.SetSize(80, 21) // 20 rows and the status line
	steps := []struct {
		do   func()
		want int
	}{
		{func() { send(t, m, "j") }, 1},
		{func() { send(t, m, "down") }, 2},
		{func() { send(t, m, "k") }, 1},
		{func() { send(t, m, "pgdown") }, 20},
		{func() { send(t, m, "pgup") }, 1},
		{func() { send(t, m, "ctrl+d") }, 11},
		{func() { send(t, m, "ctrl+u") }, 1},
		{func() { m.Update(tea.MouseWheelMsg{Button: tea.MouseWheelDown}) }, 4},
		{func() { m.Update(tea.MouseWheelMsg{Button: tea.MouseWheelUp}) }, 1},
		{func() { send(t, m, "G") }, m.Rows() - 20},
		{func() { send(t, m, "g") }, 0},
		{func() { send(t, m, "up") }, 0},
	}
	for i, s := range steps {
		s.do()
		if m.Offset() != s.want {
			t.Fatalf("step %d: offset %d, want %d", i, m.Offset(), s.want)
		}
	}
}

func TestCompactModeFooter(t *testing.T) {
	m := mixed(t, Options{Compact: 6})
	m.SetSize(80, 40)
	ls := lines(m)
	if len(ls) != 7 {
		t.Fatalf("compact 6 shows %d lines:\n%s", len(ls), strings.Join(ls, "\n"))
	}
	want := fmt.Sprintf("… %d more lines", m.Rows()-6)
	if ls[6] != want {
		t.Errorf("the last line is %q, want %q", ls[6], want)
	}
	if ls[0] != "cmd/main.go  +4 -3" {
		t.Errorf("the first line is %q", ls[0])
	}
	if m.ContentHeight() != 7 {
		t.Errorf("ContentHeight %d, want 7", m.ContentHeight())
	}
	send(t, m, "j", "pgdown", "end")
	if got := lines(m); got[0] != ls[0] {
		t.Errorf("a compact view scrolled: %q", got[0])
	}
	m.SetCompact(0)
	m.SetSize(80, 0)
	if got := lines(m); len(got) != m.Rows() || strings.Contains(strings.Join(got, "\n"), "more lines") {
		t.Errorf("after SetCompact(0) the view has %d of %d rows", len(got), m.Rows())
	}
	// A diff shorter than the limit has no footer.
	small := New("a.txt: +1 -1 lines\n@@ -1 +1 @@\n-a\n+b\n", Options{Compact: 6})
	if got := lines(small); len(got) != 4 || strings.Contains(got[len(got)-1], "more") {
		t.Errorf("a short compact diff: %q", got)
	}
}

func TestFullscreenKeyReports(t *testing.T) {
	m := mixed(t, Options{ID: "approval-1"})
	cmd := send(t, m, "f")
	if cmd == nil {
		t.Fatal("f returned no command")
	}
	if msg, ok := cmd().(FullscreenMsg); !ok || msg != (FullscreenMsg{ID: "approval-1", Fullscreen: true}) || !m.Fullscreen() {
		t.Fatalf("f: %#v, Fullscreen() = %v", cmd(), m.Fullscreen())
	}
	if msg := send(t, m, "f")().(FullscreenMsg); msg.Fullscreen || m.Fullscreen() {
		t.Fatalf("f again: %#v", msg)
	}
}

func TestToggleKeepsThePlace(t *testing.T) {
	patch, _ := genPatch(600)
	m := New(patch, Options{})
	m.SetSize(160, 20)
	send(t, m, "]", "]", "]", "]", "j", "j", "j", "j", "j") // into the 4th hunk's changes
	top := lines(m)[0]
	num := strings.Fields(top)[0]
	send(t, m, "t")
	if got := strings.Fields(lines(m)[0])[0]; got != num {
		t.Fatalf("unified top %q, split top %q: the place was lost", top, lines(m)[0])
	}
	send(t, m, "t")
	if got := lines(m)[0]; got != top {
		t.Fatalf("back to unified the top is %q, was %q", got, top)
	}
}

func TestHandles(t *testing.T) {
	keys := DefaultKeyMap()
	keys.NextHunk.SetKeys("]")
	m := mixed(t, Options{Keys: &keys})
	if !m.Handles(press("]")) || m.Handles(press("n")) || m.Handles(press("y")) {
		t.Error("Handles does not follow the key map")
	}
	m.SetSize(80, 10)
	send(t, m, "n")
	if m.Offset() != 0 {
		t.Error("an unbound n moved the view")
	}
}
