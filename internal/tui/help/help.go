// Package help owns the TUI's help overlay: the keys (grouped by where
// they work) and the slash commands, closable with esc or ?.
//
// The slash commands are data the root gives it (the composer's list), so
// help and completion cannot disagree. It must not import the agent, the
// app layer or other TUI components.
package help

import (
	"fmt"
	"strings"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"agent/internal/termtext"
	"agent/internal/tui/textutil"
	"agent/internal/tui/theme"
)

// Binding is a key (or keys) and what it does.
type Binding struct{ Keys, Action string }

// Section is a group of bindings.
type Section struct {
	Title    string
	Bindings []Binding
}

// Command is a slash command.
type Command struct {
	Name    string // "/context"
	Args    string // "[RUN_ID]", or ""
	Summary string
}

// CloseMsg asks the root to close the help overlay.
type CloseMsg struct{}

// Options configure the overlay.
type Options struct {
	Theme    *theme.Theme // nil: the dark theme
	Sections []Section    // nil: DefaultSections()
	Commands []Command
}

// DefaultSections are the TUI's keys.
func DefaultSections() []Section {
	return []Section{
		{Title: "Session", Bindings: []Binding{
			{"enter", "send the message"},
			{"shift+enter ctrl+j alt+enter", "new line"},
			{"/", "slash commands, with completion"},
			{"@", "attach a workspace file"},
			{"↑ ↓", "earlier messages (in the composer)"},
			{"shift+tab", "next approval mode (/mode, /model switch by name)"},
			{"esc", "interrupt the current step; the run stays resumable"},
			{"esc esc · /rewind", "rewind code, conversation or both to before one of your messages; f forks from there"},
			{"ctrl+c ctrl+c", "quit; the last line says how to resume"},
			{"?", "this help"},
		}},
		{Title: "View", Bindings: []Binding{
			{"pgup pgdn home end", "scroll the transcript"},
			{"alt+↑ alt+↓", "focus the previous or next tool card"},
			{"ctrl+o", "expand or collapse the focused (else the last) tool card"},
			{"ctrl+x c", "context drawer: the last request's layers and cuts"},
			{"ctrl+x k", "every call's checkpoints: preview, roll back, undo"},
			{"ctrl+x m", "mouse capture on or off (off: the terminal selects text)"},
			{"ctrl+x s", "a subagent's transcript (←/→ the others)"},
		}},
		{Title: "Diff view (/diff, f in the approval prompt)", Bindings: []Binding{
			{"t", "unified or split"},
			{"f", "fullscreen"},
			{"] [", "next or previous hunk"},
		}},
		{Title: "Approval prompt", Bindings: []Binding{
			{"1 y", "allow once"},
			{"2 a", "allow for this run (the label names the rule it adds and its expiry)"},
			{"3 n esc", "deny"},
			{"4 tab", "deny with a note to the model"},
			{"e", "edit the rule allow for this run adds (offered broader: go test *)"},
			{"f", "the diff fullscreen (esc back to the prompt)"},
			{"t", "the diff side by side or unified"},
		}},
	}
}

// Model is the help overlay.
type Model struct {
	th            *theme.Theme
	sections      []Section
	commands      []Command
	width, height int
	offset        int
}

// New returns the overlay.
func New(opt Options) *Model {
	m := &Model{th: opt.Theme, sections: opt.Sections, commands: opt.Commands}
	if m.th == nil {
		m.th = theme.New(true, false)
	}
	if m.sections == nil {
		m.sections = DefaultSections()
	}
	return m
}

// SetCommands replaces the slash commands listed.
func (m *Model) SetCommands(c []Command) { m.commands = c }

// SetSize sets the box's width and the most rows it may take (0: as many
// as it needs).
func (m *Model) SetSize(width, height int) {
	m.width, m.height = width, height
	m.clamp()
}

// Update closes on esc, ? or q (a CloseMsg) and scrolls a long list.
func (m *Model) Update(msg tea.Msg) (*Model, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.KeyPressMsg:
		page := max(1, m.bodyRows()-1)
		switch msg.String() {
		case "esc", "?", "q":
			return m, func() tea.Msg { return CloseMsg{} }
		case "up", "k":
			m.offset--
		case "down", "j":
			m.offset++
		case "pgup":
			m.offset -= page
		case "pgdown", "space":
			m.offset += page
		case "home":
			m.offset = 0
		case "end":
			m.offset = len(m.body())
		}
	case tea.MouseWheelMsg:
		switch msg.Button {
		case tea.MouseWheelUp:
			m.offset -= 3
		case tea.MouseWheelDown:
			m.offset += 3
		}
	}
	m.clamp()
	return m, nil
}

func (m *Model) clamp() {
	m.offset = min(max(0, m.offset), max(0, len(m.body())-m.bodyRows()))
}

func (m *Model) contentWidth() int {
	w := m.width
	if w <= 0 {
		w = 80
	}
	return max(1, w-m.th.Box.GetHorizontalFrameSize())
}

// blocks are the sections as rows of width w, the commands last.
func (m *Model) blocks(w int) [][]string {
	secs := append([]Section{}, m.sections...)
	if len(m.commands) > 0 {
		s := Section{Title: "Slash commands"}
		for _, c := range m.commands {
			k := termtext.OneLine(c.Name)
			if c.Args != "" {
				k += " " + termtext.OneLine(c.Args)
			}
			s.Bindings = append(s.Bindings, Binding{k, c.Summary})
		}
		secs = append(secs, s)
	}
	// The key column fits the keys up to a third of the width (at most
	// 18); a longer key takes a row of its own.
	limit := max(4, min(18, w/3))
	keyW := 1
	for _, s := range secs {
		for _, b := range s.Bindings {
			if n := ansi.StringWidth(termtext.OneLine(b.Keys)); n <= limit {
				keyW = max(keyW, n)
			}
		}
	}
	keyW += 2
	var out [][]string
	for _, s := range secs {
		rows := []string{m.th.Title.Render(textutil.Shorten(termtext.OneLine(s.Title), w))}
		for _, b := range s.Bindings {
			keys := termtext.OneLine(b.Keys)
			lead := m.th.Key.Render(textutil.Fit(keys, keyW-2)) + "  "
			if ansi.StringWidth(keys) > keyW-2 { // a long key gets its own row
				rows = append(rows, m.th.Key.Render(textutil.Shorten(keys, w)))
				lead = strings.Repeat(" ", keyW)
			}
			for i, l := range textutil.Wrap(termtext.OneLine(b.Action), max(1, w-keyW)) {
				if i > 0 {
					lead = strings.Repeat(" ", keyW)
				}
				rows = append(rows, lead+m.th.Text.Render(l))
			}
		}
		out = append(out, rows)
	}
	return out
}

// body is the sections in one column, or two on a wide screen.
func (m *Model) body() []string {
	cw := m.contentWidth()
	const gutter = 4
	if cw < 100 {
		var rows []string
		for i, b := range m.blocks(cw) {
			if i > 0 {
				rows = append(rows, "")
			}
			rows = append(rows, b...)
		}
		return rows
	}
	colW := (cw - gutter) / 2
	blocks := m.blocks(colW)
	total := 0
	for _, b := range blocks {
		total += len(b) + 1
	}
	var left, right []string
	n := 0
	for _, b := range blocks {
		col := &left
		if n >= total/2 && len(left) > 0 {
			col = &right
		}
		if len(*col) > 0 {
			*col = append(*col, "")
		}
		*col = append(*col, b...)
		n += len(b) + 1
	}
	rows := make([]string, max(len(left), len(right)))
	for i := range rows {
		var l, r string
		if i < len(left) {
			l = left[i]
		}
		if i < len(right) {
			r = right[i]
		}
		rows[i] = textutil.Fit(l, colW) + strings.Repeat(" ", gutter) + r
	}
	return rows
}

func (m *Model) bodyRows() int {
	n := len(m.body())
	if m.height <= 0 {
		return n
	}
	avail := m.height - m.th.Box.GetVerticalFrameSize() - 2 // title, rule
	if n <= avail {
		return n
	}
	return max(1, avail-1) // and the scroll position
}

// View renders the box: the title, the keys and commands, the hint.
func (m *Model) View() string {
	th := m.th
	cw := m.contentWidth()
	body := m.body()
	h := m.bodyRows()
	off := min(m.offset, max(0, len(body)-h))
	title := th.Title.Render("Help")
	closeHint := th.Faint.Render("esc or ? close")
	gap := cw - ansi.StringWidth(title) - ansi.StringWidth(closeHint)
	head := title
	if gap >= 1 {
		head += strings.Repeat(" ", gap) + closeHint
	}
	rows := []string{head, th.Faint.Render(strings.Repeat("─", cw))}
	rows = append(rows, body[off:off+h]...)
	if h < len(body) {
		hint := fmt.Sprintf("scroll: ↑↓ pgup pgdn · rows %d–%d of %d", off+1, off+h, len(body))
		rows = append(rows, th.Faint.Render(textutil.Shorten(hint, cw)))
	}
	for i, r := range rows {
		rows[i] = textutil.Fit(r, cw)
	}
	w := m.width
	if w <= 0 {
		w = 80
	}
	return textutil.DrawBox(th.Box, max(w, th.Box.GetHorizontalFrameSize()+1), rows)
}
