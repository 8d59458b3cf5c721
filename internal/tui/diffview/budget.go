package diffview

import (
	"time"

	tea "charm.land/bubbletea/v2"
)

// chroma's lexers cost from tens to hundreds of microseconds a line, so a
// frame that brings a page of lines never seen into view could take more
// than a frame's 16 ms on its own. A frame therefore spends at most
// frameBudget in chroma (and always highlights the first frameFloor lines):
// the lines past it show in the add and delete colours, are not cached,
// and are highlighted by the HighlightMsg the key's Update returned.
const (
	frameBudget = 6 * time.Millisecond
	frameFloor  = 4
	// staticLines is how many lines a static rendering (Card, Render)
	// highlights: a whole diff at once has no later frame to finish it.
	staticLines = 400
)

// HighlightMsg asks the view with ID to go on highlighting the lines on
// screen that the last frame left in plain colours. Update returns the
// command that sends it; a parent passes it on to the view like a key.
type HighlightMsg struct{ ID string }

// budget is the highlighting spent in the current frame.
type budget struct {
	static bool             // a static rendering: up to staticLines lines, then plain
	now    func() time.Time // the clock the frame is measured with
	spent  time.Duration
	lines  int // lines highlighted in this frame (static: in all)
	left   int // lines left plain in this frame, to be highlighted later
}

// frame starts a frame's budget.
func (b *budget) frame() {
	b.spent, b.left = 0, 0
	if !b.static {
		b.lines = 0
	}
}

// allow reports whether one more line may be highlighted now and, if not,
// whether it stays plain for good (static) or only in this frame.
func (b *budget) allow() (ok, final bool) {
	if b.static {
		return b.lines < staticLines, true
	}
	if b.lines < frameFloor || b.spent < frameBudget {
		return true, false
	}
	b.left++
	return false, false
}

// spend records one line highlighted since start.
func (b *budget) spend(start time.Time) {
	b.lines++
	if !b.static {
		b.spent += b.now().Sub(start)
	}
}

// needsHighlight reports whether line li would be highlighted and has not
// been yet.
func (m *Model) needsHighlight(li int32) bool {
	if li < 0 || !m.pal.color || m.lines[li].Kind == LineNote {
		return false
	}
	if _, ok := m.disp[li]; ok {
		return false
	}
	return m.lexerOf(m.lineFile[li]) != nil
}

// unhighlighted reports whether a row on screen has a line to highlight.
func (m *Model) unhighlighted() bool {
	lo := m.layout()
	body, _ := m.geometry()
	off := m.Offset()
	if m.compact > 0 {
		off = 0
	}
	for i := off; i < min(off+body, len(lo.rows)); i++ {
		r := lo.rows[i]
		if r.kind == rowLine && (m.needsHighlight(r.l.line) || m.needsHighlight(r.r.line)) {
			return true
		}
	}
	return false
}

// highlightCmd is the command that sends this view's HighlightMsg, or nil
// when every line on screen is highlighted.
func (m *Model) highlightCmd() tea.Cmd {
	if m.budget.static || !m.unhighlighted() {
		return nil
	}
	id := m.opts.ID
	return func() tea.Msg { return HighlightMsg{ID: id} }
}

// highlightScreen highlights, within a frame's budget, the lines on screen
// that are not yet, and returns the command to go on if some are left.
func (m *Model) highlightScreen() tea.Cmd {
	lo := m.layout()
	body, _ := m.geometry()
	off := m.Offset()
	if m.compact > 0 {
		off = 0
	}
	m.budget.frame()
	for i := off; i < min(off+body, len(lo.rows)) && m.budget.left == 0; i++ {
		if r := lo.rows[i]; r.kind == rowLine {
			for _, c := range []cell{r.l, r.r} {
				if m.needsHighlight(c.line) {
					m.display(c.line)
				}
			}
		}
	}
	return m.highlightCmd()
}

// Init returns the command that finishes highlighting what is on screen
// (nil when there is nothing left to do). A parent returns it from its own
// Update after New, SetSize or SetTheme; keys that scroll need no Init.
func (m *Model) Init() tea.Cmd { return m.highlightCmd() }
