package composer

import (
	"context"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"agent/internal/tui/theme"
)

func TestPopupShowsEightAndScrolls(t *testing.T) {
	d := newDriver(t, Options{})
	d.typ("/")
	v := d.view()
	shown := 0
	for _, c := range DefaultCommands() {
		if strings.Contains(v, "/"+string(c.Name)+" ") {
			shown++
		}
	}
	if shown != PopupRows {
		t.Fatalf("the popup shows %d commands, want %d:\n%s", shown, PopupRows, v)
	}
	last := DefaultCommands()[len(DefaultCommands())-1]
	if strings.Contains(v, "/"+string(last.Name)) {
		t.Fatalf("/%s shown before scrolling", last.Name)
	}
	for range len(DefaultCommands()) - 1 {
		d.press("down")
	}
	if v := d.view(); !strings.Contains(v, "› /"+string(last.Name)) {
		t.Fatalf("the last command is not selected and shown:\n%s", v)
	}
	d.press("down") // wraps to the first
	if v := d.view(); !strings.Contains(v, "› /help") {
		t.Fatalf("down from the last did not wrap:\n%s", v)
	}
}

// TestFilesAreListedLazilyOffTheUI: the lister runs only once an @ word
// opens, in a command (typing goes on meanwhile), and again for the next @
// word so that new files show up.
func TestFilesAreListedLazilyOffTheUI(t *testing.T) {
	var calls atomic.Int32
	lister := func(ctx context.Context) (FileList, error) {
		calls.Add(1)
		return FileList{Paths: []string{"main.go", "go.mod"}}, nil
	}
	m := New(context.Background(), Options{Theme: theme.New(true, false), Files: lister})
	var cmd tea.Cmd
	for _, k := range typed("hello ") {
		m, cmd = m.Update(k)
		if cmd != nil {
			t.Fatal("typing without @ started work")
		}
	}
	m, cmd = m.Update(typed("@")[0])
	if cmd == nil || calls.Load() != 0 {
		t.Fatalf("@ did not start a listing command (calls %d)", calls.Load())
	}
	if v := ansi.Strip(m.View()); !strings.Contains(v, "listing the workspace's files") {
		t.Fatalf("no loading line:\n%s", v)
	}
	// Keys still work before the listing answers.
	for _, k := range typed("ma") {
		m, _ = m.Update(k)
	}
	if m.Value() != "hello @ma" {
		t.Fatalf("value %q", m.Value())
	}
	for _, msg := range run(cmd) {
		m, _ = m.Update(msg)
	}
	if len(m.pop.items) == 0 || m.pop.items[0].label != "main.go" {
		t.Fatalf("items %+v", m.pop.items)
	}
	m, _ = m.Update(key("tab"))
	m, cmd = m.Update(typed("@")[0])
	if cmd == nil {
		t.Fatal("a new @ word did not list the files again")
	}
	run(cmd)
	if calls.Load() != 2 {
		t.Fatalf("lister called %d times", calls.Load())
	}
}

func TestListingErrorIsShown(t *testing.T) {
	d := newDriver(t, Options{Files: func(ctx context.Context) (FileList, error) {
		return FileList{}, fmt.Errorf("permission denied")
	}})
	d.typ("@x")
	if v := d.view(); !strings.Contains(v, "cannot list the files: permission denied") {
		t.Fatalf("the error is not shown:\n%s", v)
	}
}

// TestEveryLineFitsTheWidth: wide characters, tabs, long words, folds
// wider than the box and control characters never make a line wider (or
// narrower) than the composer.
func TestEveryLineFitsTheWidth(t *testing.T) {
	inputs := []string{
		strings.Repeat("漢字", 50),
		"emoji 🙂🙂🙂 " + strings.Repeat("🙂", 40),
		"\tindented\twith\ttabs " + strings.Repeat("x\t", 30),
		strings.Repeat("a", 300),
		"word " + strings.Repeat("b", 37) + " c",
		"\x1b[2J\x1b]0;title\x07bell",
	}
	for _, w := range []int{12, 13, 40, 41, 80} {
		for i, in := range inputs {
			t.Run(fmt.Sprintf("%d/%d", w, i), func(t *testing.T) {
				d := newDriver(t, Options{})
				d.m.SetSize(w, 30)
				d.paste(in)
				d.paste(lines(99))
				d.press("home")
				for _, v := range []string{d.m.View(), func() string { d.press("ctrl+home"); return d.m.View() }()} {
					if strings.ContainsAny(ansi.Strip(v), "\x07\x1b") {
						t.Fatalf("a control character reached the view: %q", v)
					}
					for _, l := range strings.Split(ansi.Strip(v), "\n") {
						if got := ansi.StringWidth(l); got != w {
							t.Fatalf("line %q is %d wide, want %d", l, got, w)
						}
					}
				}
			})
		}
	}
}

// TestCursorWalksEveryRune: right from the start and left from the end visit
// every position once, whatever the wrapping, and up/down never lose the
// cursor.
func TestCursorWalksEveryRune(t *testing.T) {
	d := newDriver(t, Options{})
	d.m.SetSize(20, 30)
	d.typ("one two three four five six seven eight")
	d.press("shift+enter").paste(lines(12))
	d.typ(" 漢字漢字漢字漢字漢字漢字")
	n := len(d.m.ed.text())
	d.press("ctrl+home")
	for i := range n {
		d.press("right")
		if got := d.pos(); got != i+1 {
			t.Fatalf("right #%d: at %d", i+1, got)
		}
	}
	for range 30 {
		d.press("up")
	}
	if d.m.ed.row != 0 || d.m.ed.onFirstRow() == false {
		t.Fatalf("up 30 times did not reach the first row")
	}
	for range 30 {
		d.press("down")
	}
	if !d.m.ed.onLastRow() {
		t.Fatal("down 30 times did not reach the last row")
	}
}

// pos is the cursor's rune offset in the text.
func (d *driver) pos() int {
	e := &d.m.ed
	p := 0
	for i := range e.row {
		p += len(e.lines[i]) + 1
	}
	return p + e.col
}
