package transcript

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"agent/internal/tui/theme"
)

// notices builds a transcript of n one-line notices: with the gap line
// before each, the whole text is 2n-1 lines.
func notices(t *testing.T, n, width, height int) *Model {
	t.Helper()
	m := newModel(t, true, false, Options{})
	for i := range n {
		m.Append(NewNotice(NoticeInfo, fmt.Sprintf("item %d", i)))
	}
	m.SetSize(width, height)
	return m
}

// whole is every line of the transcript at width.
func whole(t *testing.T, build func() *Model, width int) []string {
	t.Helper()
	full := build()
	return strings.Split(strings.TrimRight(fullView(full, width), "\n"), "\n")
}

func TestPagingKeys(t *testing.T) {
	const n, w, h = 50, 60, 10
	all := whole(t, func() *Model { return notices(t, n, w, h) }, w)
	if len(all) != 2*n-1 {
		t.Fatalf("whole transcript is %d lines, want %d", len(all), 2*n-1)
	}
	window := func(from int) []string { return all[from : from+h] }
	m := notices(t, n, w, h)

	steps := []struct {
		key    string
		from   int // first line of the window, in all
		follow bool
	}{
		{"", len(all) - h, true},
		{"pgup", len(all) - 2*h, false},
		{"pgup", len(all) - 3*h, false},
		{"pgdown", len(all) - 2*h, false},
		{"pgdown", len(all) - h, true}, // back at the end: following again
		{"pgdown", len(all) - h, true}, // nothing below
		{"home", 0, false},
		{"pgup", 0, false}, // nothing above
		{"pgdown", h, false},
		{"end", len(all) - h, true},
	}
	for i, s := range steps {
		if s.key != "" {
			press(m, s.key)
		}
		got := plainLines(m.View())
		if want := window(s.from); !slices.Equal(got, want) {
			t.Fatalf("step %d (%s): window\n%q\nwant lines %d..:\n%q", i, s.key, got, s.from, want)
		}
		if m.Following() != s.follow {
			t.Fatalf("step %d (%s): following = %v, want %v", i, s.key, m.Following(), s.follow)
		}
	}
	if !m.HandlesKey(keyMsg("pgup")) || m.HandlesKey(tea.KeyPressMsg{Code: 'a', Text: "a"}) {
		t.Fatal("HandlesKey: wrong answer for pgup or a")
	}
}

func TestMouseWheel(t *testing.T) {
	const n, w, h = 30, 60, 8
	all := whole(t, func() *Model { return notices(t, n, w, h) }, w)
	m := notices(t, n, w, h)
	m.View()
	m.Update(tea.MouseWheelMsg{Button: tea.MouseWheelUp})
	if got, want := plainLines(m.View()), all[len(all)-h-3:len(all)-3]; !slices.Equal(got, want) {
		t.Fatalf("after a wheel step up:\n%q\nwant\n%q", got, want)
	}
	m.Update(tea.MouseWheelMsg{Button: tea.MouseWheelDown})
	if !m.Following() {
		t.Fatal("a wheel step down back to the end does not follow it")
	}
}

func TestStickToBottomAndNewIndicator(t *testing.T) {
	m := notices(t, 20, 60, 6)
	m.Append(NewNotice(NoticeInfo, "arrived while following"))
	if last := plainLines(m.View())[5]; last != "· arrived while following" {
		t.Fatalf("following: last line %q, want the new item", last)
	}

	press(m, "pgup")
	before := plainLines(m.View())
	for i := range 3 {
		m.Append(NewNotice(NoticeInfo, fmt.Sprintf("new %d", i)))
	}
	after := plainLines(m.View())
	if !slices.Equal(after[:5], before[:5]) {
		t.Fatalf("scrolled up, new items moved the view:\n%q\nbefore\n%q", after, before)
	}
	if got := strings.TrimSpace(after[5]); got != "↓ 3 new" {
		t.Fatalf("indicator line %q, want \"↓ 3 new\"", after[5])
	}
	if m.Unseen() != 3 {
		t.Fatalf("Unseen = %d", m.Unseen())
	}

	press(m, "end")
	view := plainLines(m.View())
	if view[5] != "· new 2" || strings.Contains(strings.Join(view, "\n"), "new ") && strings.Contains(strings.Join(view, "\n"), "↓") {
		t.Fatalf("after End: %q", view)
	}
	if m.Unseen() != 0 || !m.Following() {
		t.Fatal("End does not clear the count or follow")
	}
}

func TestCtrlOTogglesCard(t *testing.T) {
	m := newModel(t, true, false, Options{})
	fill(m)
	m.SetSize(80, 200)
	if strings.Contains(plain(m.View()), "pkg12") {
		t.Fatal("a collapsed card shows its whole output")
	}
	// Following: ctrl+o acts on the last card (c10, the failed edit).
	cmd := press(m, "ctrl+o")
	if msg, ok := cmd().(CardToggledMsg); !ok || msg.CallID != "c10" || !msg.Expanded {
		t.Fatalf("ctrl+o: message %#v, want c10 expanded", cmd())
	}
	m.Card("c10").SetExpanded(false)

	// Focused: ctrl+o acts on that card, and again collapses it.
	m.Focus("c2")
	press(m, "ctrl+o")
	view := plain(m.View())
	for i := 1; i <= 12; i++ {
		if !strings.Contains(view, fmt.Sprintf("agent/internal/pkg%02d", i)) {
			t.Fatalf("expanded card lacks line %d:\n%s", i, view)
		}
	}
	if strings.Contains(view, "9 more lines") {
		t.Fatal("an expanded card still folds its output")
	}
	press(m, "ctrl+o")
	if strings.Contains(plain(m.View()), "pkg12") {
		t.Fatal("ctrl+o again does not collapse the card")
	}
	m.Focus("")

	// Scrolled up: ctrl+o acts on the last card in the window.
	m.SetSize(80, 20) // the message, the answer and c1's first lines
	press(m, "home")
	if v := plain(m.View()); !strings.Contains(v, "edit_file") || strings.Contains(v, "run_command") {
		t.Fatalf("the window should hold c1 and no other card:\n%s", v)
	}
	cmd = press(m, "ctrl+o")
	if msg := cmd().(CardToggledMsg); msg.CallID != "c1" {
		t.Fatalf("scrolled to the top, ctrl+o toggled %s, want c1 (the only card in view)", msg.CallID)
	}
}

func TestExpandAboveKeepsWindow(t *testing.T) {
	m := newModel(t, true, false, Options{})
	fill(m)
	for i := range 10 {
		m.Append(NewNotice(NoticeInfo, fmt.Sprintf("later %d", i)))
	}
	m.SetSize(80, 8)
	m.View()
	press(m, "pgup")
	before := plainLines(m.View())
	m.Card("c2").SetExpanded(true) // above the window
	if after := plainLines(m.View()); !slices.Equal(after, before) {
		t.Fatalf("expanding a card above the window moved it:\n%q\nwas\n%q", after, before)
	}
}

func TestResizeRendersAtNewWidth(t *testing.T) {
	renders := 0
	m := newModel(t, true, false, Options{OnItemRender: func(int) { renders++ }})
	fill(m)
	m.SetSize(120, 300)
	m.View()
	m.SetSize(40, 300)
	renders = 0
	got := plain(m.View())
	if renders != m.Len() {
		t.Fatalf("a resize re-rendered %d items, want every visible one (%d)", renders, m.Len())
	}
	fresh := newModel(t, true, false, Options{})
	fill(fresh)
	fresh.SetSize(40, 300)
	if want := plain(fresh.View()); got != want {
		t.Fatalf("after a resize to 40 the view differs from one built at 40:\n%s\nwant\n%s", got, want)
	}
	for _, l := range strings.Split(m.View(), "\n") {
		if ansi.StringWidth(l) > 40 {
			t.Fatalf("line wider than 40 after resize: %q", ansi.Strip(l))
		}
	}
	renders = 0
	m.View()
	if renders != 0 {
		t.Fatalf("a second frame at the same width rendered %d items", renders)
	}
}

// TestOnlyVisibleItemsRender: with 2,000 items and a 10-line window, a frame
// renders the few items in it; a page up renders the next few.
func TestOnlyVisibleItemsRender(t *testing.T) {
	var rendered []int
	m := newModel(t, true, false, Options{OnItemRender: func(i int) { rendered = append(rendered, i) }})
	for i := range 2000 {
		m.Append(NewNotice(NoticeInfo, fmt.Sprintf("item %d", i)))
	}
	m.SetSize(60, 10)
	m.View()
	if len(rendered) > 6 || slices.Min(rendered) < 1994 {
		t.Fatalf("the first frame rendered items %v", rendered)
	}
	rendered = nil
	press(m, "pgup")
	m.View()
	if len(rendered) > 6 || slices.Min(rendered) < 1988 {
		t.Fatalf("a page up rendered items %v", rendered)
	}
	rendered = nil
	press(m, "home")
	m.View()
	if len(rendered) > 6 || slices.Max(rendered) > 5 {
		t.Fatalf("Home rendered items %v", rendered)
	}
}

// TestSetThemeAndClear: a new theme re-renders every visible item in its
// colours; Clear empties the transcript and follows its end again.
func TestSetThemeAndClear(t *testing.T) {
	renders := 0
	m := newModel(t, true, false, Options{OnItemRender: func(int) { renders++ }})
	fill(m)
	m.SetSize(80, 300)
	dark := m.View()
	renders = 0
	if err := m.SetTheme(theme.New(false, false), nil); err != nil {
		t.Fatal(err)
	}
	light := m.View()
	if renders != m.Len() {
		t.Fatalf("a theme switch re-rendered %d of %d items", renders, m.Len())
	}
	if light == dark || plain(light) != plain(dark) {
		t.Fatal("the light view should differ from the dark one in colour only")
	}
	if err := m.SetTheme(nil, nil); err == nil {
		t.Fatal("SetTheme(nil) gave no error")
	}
	press(m, "home")
	m.Clear()
	if m.Len() != 0 || !m.Following() || m.Card("c1") != nil || strings.TrimSpace(plain(m.View())) != "" {
		t.Fatal("Clear left items, a card index or a scrolled view")
	}
	if cmd := press(m, "ctrl+o"); cmd != nil {
		t.Fatal("ctrl+o with no card sent a message")
	}
}
