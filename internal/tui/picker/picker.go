// Package picker owns a small overlay that lists things to choose from and
// act on: the runs of the workspace (/resume) and the run's grants
// (/approvals). It shows a title, a one-line hint of its keys, and rows of a
// title and a dim detail; up/down (k/j) move, enter chooses, the action keys
// act on the selected row, esc closes.
//
// It gets plain, already redacted strings from the root and must not import
// internal/agent or internal/app. It keeps no package-level state.
package picker

import (
	"strings"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"agent/internal/termtext"
	"agent/internal/tui/textutil"
	"agent/internal/tui/theme"
)

// Item is one row.
type Item struct {
	ID     string // what the root acts on: a run id, a grant's rule
	Title  string
	Detail string // dim, after the title
	Warn   bool   // the title in the warning colour
}

// Action is a key that acts on the selected row ("d" revoke).
type Action struct {
	Key   string
	Label string
}

// Options configure a picker.
type Options struct {
	Theme *theme.Theme // nil: the dark theme
	Title string
	// Empty is shown when there are no items ("no grants").
	Empty string
	// Choose labels enter ("resume"); "" means enter does nothing.
	Choose string
	// Actions are the other keys that act on the selected row.
	Actions []Action
	// Note is a dim line under the rows (what the list is, where it comes from).
	Note string
}

// ChosenMsg is sent when the person pressed enter (Action "") or an action
// key on a row.
type ChosenMsg struct {
	Item   Item
	Action string
}

// ClosedMsg is sent when the person closed the picker with esc or q.
type ClosedMsg struct{}

// Model is the picker. Use it through a pointer.
type Model struct {
	opt           Options
	th            *theme.Theme
	items         []Item
	sel, top      int
	width, height int
}

// New returns an empty picker.
func New(opt Options) *Model {
	th := opt.Theme
	if th == nil {
		th = theme.New(true, false)
	}
	return &Model{opt: opt, th: th}
}

// SetItems replaces the rows; the selection stays on the same id if it is
// still there.
func (m *Model) SetItems(items []Item) {
	id := ""
	if m.sel < len(m.items) {
		id = m.items[m.sel].ID
	}
	m.items, m.sel, m.top = items, 0, 0
	for i, it := range items {
		if it.ID == id {
			m.sel = i
		}
	}
	m.scrollTo()
}

// Items are the rows.
func (m *Model) Items() []Item { return m.items }

// Selected is the selected row, if any.
func (m *Model) Selected() (Item, bool) {
	if m.sel < len(m.items) {
		return m.items[m.sel], true
	}
	return Item{}, false
}

// SetSize sets the most columns and lines the view takes.
func (m *Model) SetSize(w, h int) {
	m.width, m.height = w, h
	m.scrollTo()
}

// rows is how many items fit: the box's borders, title, hint and note
// lines are the rest.
func (m *Model) rows() int {
	extra := 2 + 2
	if m.opt.Note != "" {
		extra++
	}
	n := max(1, m.height-extra)
	if len(m.items) > n {
		n = max(1, n-1) // a line says how many more there are
	}
	return n
}

func (m *Model) scrollTo() {
	n := m.rows()
	if m.sel < m.top {
		m.top = m.sel
	}
	if m.sel >= m.top+n {
		m.top = m.sel - n + 1
	}
	m.top = max(0, min(m.top, max(0, len(m.items)-n)))
}

// Update handles keys.
func (m *Model) Update(msg tea.Msg) (*Model, tea.Cmd) {
	k, ok := msg.(tea.KeyPressMsg)
	if !ok {
		return m, nil
	}
	s := k.String()
	switch s {
	case "esc", "q":
		return m, func() tea.Msg { return ClosedMsg{} }
	case "up", "k", "ctrl+p":
		if m.sel > 0 {
			m.sel--
		}
	case "down", "j", "ctrl+n":
		if m.sel < len(m.items)-1 {
			m.sel++
		}
	case "home", "g":
		m.sel = 0
	case "end", "G":
		m.sel = max(0, len(m.items)-1)
	case "pgup":
		m.sel = max(0, m.sel-m.rows())
	case "pgdown":
		m.sel = max(0, min(len(m.items)-1, m.sel+m.rows()))
	case "enter":
		if it, ok := m.Selected(); ok && m.opt.Choose != "" {
			return m, func() tea.Msg { return ChosenMsg{Item: it} }
		}
	default:
		for _, a := range m.opt.Actions {
			if s == a.Key {
				if it, ok := m.Selected(); ok {
					act := a.Key
					return m, func() tea.Msg { return ChosenMsg{Item: it, Action: act} }
				}
			}
		}
	}
	m.scrollTo()
	return m, nil
}

// View draws the picker's box.
func (m *Model) View() string {
	th := m.th
	w := m.width
	if w <= 0 {
		w = 80
	}
	cw := max(1, w-th.Box.GetHorizontalFrameSize())
	var hint []string
	if m.opt.Choose != "" {
		hint = append(hint, "enter "+m.opt.Choose)
	}
	for _, a := range m.opt.Actions {
		hint = append(hint, a.Key+" "+a.Label)
	}
	hint = append(hint, "esc close")
	rows := []string{textutil.Spread(th.Title.Render(termtext.OneLine(m.opt.Title)), th.Faint.Render(strings.Join(hint, " · ")), cw)}
	rows = append(rows, th.Faint.Render(strings.Repeat("─", cw)))
	if len(m.items) == 0 {
		rows = append(rows, textutil.Fit(th.Dim.Render(termtext.OneLine(m.opt.Empty)), cw))
	}
	n := m.rows()
	for i := m.top; i < len(m.items) && i < m.top+n; i++ {
		rows = append(rows, m.row(i, cw))
	}
	if m.top+n < len(m.items) {
		rows = append(rows, textutil.Fit(th.Faint.Render("  … "+textutil.Count(len(m.items)-m.top-n)+" more"), cw))
	}
	if m.opt.Note != "" {
		rows = append(rows, textutil.Fit(th.Faint.Render(termtext.OneLine(m.opt.Note)), cw))
	}
	return textutil.DrawBox(th.Box, w, rows)
}

// row draws item i: a marker, its title and its detail, cut to cw columns.
func (m *Model) row(i, cw int) string {
	th := m.th
	it := m.items[i]
	title := termtext.OneLine(it.Title)
	detail := termtext.OneLine(it.Detail)
	mark := "  "
	if i == m.sel {
		mark = theme.GlyphUser + " "
	}
	ts := th.Text
	if it.Warn {
		ts = th.WarnText
	}
	ds := th.Dim
	if i == m.sel {
		ts, ds = th.Selected, th.Selected
	}
	left := ansi.Truncate(mark+title, cw, "…")
	lw := ansi.StringWidth(left)
	d := ""
	if rest := cw - lw; detail != "" && rest > 3 {
		d = ansi.Truncate("  "+detail, rest, "…")
	}
	pad := strings.Repeat(" ", max(0, cw-lw-ansi.StringWidth(d)))
	return ts.Render(left) + ds.Render(d+pad)
}
