// Package rewind owns the TUI's rewind list (esc esc, /rewind): the
// person's own messages of the run, newest at the bottom, each with the
// files changed since it; choosing one asks the root to roll the code, the
// conversation or both back to just before it, after a "y". The per-call
// checkpoint list is one key (k) away.
//
// It gets plain data (Prompt) and answers with typed messages (RewindMsg,
// CheckpointsMsg, CloseMsg); it must not import the agent, the app layer
// or other TUI components, roll anything back by itself, or log what it
// shows.
package rewind

import (
	"fmt"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"agent/internal/termtext"
	"agent/internal/tui/textutil"
	"agent/internal/tui/theme"
)

// Prompt is one of the person's messages.
type Prompt struct {
	Seq   int64 // its place in the journal; RewindMsg carries it back
	Text  string
	Time  time.Time // shown in its own location: pass local times
	Files []string  // changed since it
	// Checkpoint is the first checkpoint taken after it ("": none; there
	// is nothing to fork from)
	Checkpoint string
}

// Target is what a rewind puts back.
type Target int

// Targets.
const (
	NoTarget Target = iota
	Code
	Conversation
	Both
	// Fork: not a rewind, a new run from the message's checkpoint, in this
	// workspace (the root's fork.go)
	Fork
)

// Words says what the target puts back, for a sentence.
func (t Target) Words() string {
	switch t {
	case Code:
		return "the files"
	case Conversation:
		return "the conversation"
	case Both:
		return "the files and the conversation"
	case Fork:
		return "a new run with the files and the conversation"
	}
	return ""
}

// RewindMsg asks the root to rewind to just before the message at Seq,
// after the person confirmed it.
type RewindMsg struct {
	Seq    int64
	Text   string // the message, for the composer
	Target Target
	// Checkpoint is the message's checkpoint (Fork forks from it)
	Checkpoint string
}

// CheckpointsMsg asks the root to open the per-call checkpoint list.
type CheckpointsMsg struct{}

// CloseMsg asks the root to close the list.
type CloseMsg struct{}

// Model is the rewind list.
type Model struct {
	th            *theme.Theme
	list          []Prompt
	loaded        bool
	sel, top      int
	width, height int
	confirm       Target
}

// New returns an empty list (loading) for th (nil: the dark theme).
func New(th *theme.Theme) *Model {
	if th == nil {
		th = theme.New(true, false)
	}
	return &Model{th: th}
}

// SetPrompts shows the messages, oldest first; the newest is selected.
func (m *Model) SetPrompts(list []Prompt) {
	m.list, m.loaded, m.confirm = append([]Prompt(nil), list...), true, NoTarget
	m.sel = max(0, len(m.list)-1)
	m.follow()
}

// Prompts are the messages listed.
func (m *Model) Prompts() []Prompt { return m.list }

// Selected is the selected message.
func (m *Model) Selected() (Prompt, bool) {
	if m.sel < 0 || m.sel >= len(m.list) {
		return Prompt{}, false
	}
	return m.list[m.sel], true
}

// Confirming reports whether a rewind waits for "y".
func (m *Model) Confirming() bool { return m.confirm != NoTarget }

// SetSize sets the box's width and the most rows it may take (0: as many
// as it needs).
func (m *Model) SetSize(width, height int) {
	m.width, m.height = width, height
	m.follow()
}

// Update handles the keys: ↑↓ select, enter or b rewinds both, c the code,
// v the conversation (each once "y" confirms; any other key cancels), k
// opens the per-call checkpoints, esc closes.
func (m *Model) Update(msg tea.Msg) (*Model, tea.Cmd) {
	k, ok := msg.(tea.KeyPressMsg)
	if !ok {
		return m, nil
	}
	key := k.String()
	if m.confirm != NoTarget {
		t := m.confirm
		m.confirm = NoTarget
		m.follow()
		p, ok := m.Selected()
		if (key != "y" && key != "enter") || !ok {
			return m, nil
		}
		return m, func() tea.Msg { return RewindMsg{Seq: p.Seq, Text: p.Text, Target: t, Checkpoint: p.Checkpoint} }
	}
	switch key {
	case "esc", "q":
		return m, func() tea.Msg { return CloseMsg{} }
	case "k", "ctrl+k":
		return m, func() tea.Msg { return CheckpointsMsg{} }
	case "up":
		m.move(-1)
	case "down", "j":
		m.move(1)
	case "home":
		m.move(-len(m.list))
	case "end":
		m.move(len(m.list))
	case "enter", "b":
		m.ask(Both)
	case "c":
		m.ask(Code)
	case "v":
		m.ask(Conversation)
	case "f":
		m.ask(Fork)
	}
	return m, nil
}

func (m *Model) ask(t Target) {
	if _, ok := m.Selected(); ok {
		m.confirm = t
		m.follow()
	}
}

func (m *Model) move(n int) {
	if len(m.list) == 0 {
		return
	}
	m.sel = min(max(0, m.sel+n), len(m.list)-1)
	m.follow()
}

const entryRows = 2

func (m *Model) cw() int {
	w := m.width
	if w <= 0 {
		w = 80
	}
	return max(1, w-m.th.Box.GetHorizontalFrameSize())
}

// perPage is how many entries fit.
func (m *Model) perPage() int {
	n := max(1, len(m.list))
	if m.height <= 0 {
		return n
	}
	room := m.height - m.th.Box.GetVerticalFrameSize() - 3 - len(m.bottomRows(m.cw()))
	return max(1, min(n, room/entryRows))
}

func (m *Model) follow() {
	per := m.perPage()
	if m.sel < m.top {
		m.top = m.sel
	}
	if m.sel >= m.top+per {
		m.top = m.sel - per + 1
	}
	m.top = min(max(0, m.top), max(0, len(m.list)-per))
}

// files says what changed since a message, in the width.
func files(p Prompt, width int) string {
	n := len(p.Files)
	if n == 0 {
		return "no file changed since"
	}
	head := fmt.Sprintf("%d files changed since: ", n)
	if n == 1 {
		head = "1 file changed since: "
	}
	s := head
	for i, f := range p.Files {
		part := termtext.OneLine(f)
		if i > 0 {
			part = ", " + part
		}
		if i == 0 && ansi.StringWidth(s+part) > width && n > 1 {
			return textutil.Shorten(strings.TrimSuffix(head, ": "), width) // the count, no name cut to nothing
		}
		if i > 0 && ansi.StringWidth(s+part) > width {
			more := fmt.Sprintf(", +%d more", n-i)
			return textutil.Shorten(s, max(1, width-len(more))) + more
		}
		s += part
	}
	return textutil.Shorten(s, width)
}

func (m *Model) entry(i int, cw int) []string {
	th := m.th
	p := m.list[i]
	mark := "  "
	if i == m.sel {
		mark = theme.GlyphUser + " "
	}
	num := fmt.Sprintf("%d ", i+1)
	right := ""
	if !p.Time.IsZero() && cw >= 50 {
		right = th.Dim.Render(p.Time.Format("15:04:05"))
	}
	indent := 2 + len(num) // the mark is two columns
	textW := max(1, cw-indent-ansi.StringWidth(right)-1)
	text := textutil.Shorten(termtext.OneLine(p.Text), textW)
	top := textutil.Spread(th.Text.Render(mark+num+text), right, cw)
	bottom := strings.Repeat(" ", indent) + th.Dim.Render(files(p, max(1, cw-indent)))
	if i == m.sel {
		top = th.Selected.Render(textutil.Fit(ansi.Strip(top), cw))
		bottom = th.Selected.Render(textutil.Fit(ansi.Strip(bottom), cw))
	}
	return []string{top, bottom}
}

// bottomRows are the confirmation or the keys.
func (m *Model) bottomRows(cw int) []string {
	th := m.th
	if m.confirm != NoTarget {
		p, _ := m.Selected()
		q := fmt.Sprintf("rewind %s to just before %q?", m.confirm.Words(), textutil.Shorten(termtext.OneLine(p.Text), 40))
		if m.confirm == Fork {
			q = fmt.Sprintf("fork from %q: %s of that instant, here (this run stays resumable)?", textutil.Shorten(termtext.OneLine(p.Text), 40), m.confirm.Words())
		}
		var rows []string
		for _, l := range textutil.Wrap(q, cw) {
			rows = append(rows, th.WarnText.Render(l))
		}
		return append(rows, th.Key.Render("y")+th.Text.Render(textutil.Shorten(" to confirm (undo: the ↶ entry in k checkpoints), any other key cancels", max(1, cw-1))))
	}
	if len(m.list) == 0 {
		return []string{th.Faint.Render(textutil.Shorten("k per-call checkpoints · esc close", cw))}
	}
	hints := []string{
		"↑↓ select · enter both · c code · v conversation · f fork from here · k per-call checkpoints · esc close",
		"↑↓ select · enter both · c code · v conversation · f fork · k per-call checkpoints · esc close",
		"↑↓ · enter both · c code · v conversation · k checkpoints · esc",
		"↑↓ · enter/c/v rewind · k checkpoints · esc",
	}
	return []string{th.Faint.Render(textutil.Shorten(textutil.FirstFit(hints, cw), cw))}
}

// View renders the box: the title, the messages, the keys or the
// confirmation.
func (m *Model) View() string {
	th := m.th
	cw := m.cw()
	rule := th.Faint.Render(strings.Repeat("─", cw))
	title := th.Title.Render("Rewind to one of your messages")
	if per := m.perPage(); len(m.list) > per {
		title += th.Faint.Render(fmt.Sprintf(" · %d–%d of %d", m.top+1, m.top+per, len(m.list)))
	}
	rows := []string{textutil.Spread(title, th.Faint.Render("esc close"), cw), rule}
	switch {
	case !m.loaded:
		rows = append(rows, th.Dim.Render("loading…"))
	case len(m.list) == 0:
		rows = append(rows, th.Text.Render("no messages of yours yet"))
	}
	end := min(len(m.list), m.top+m.perPage())
	for i := m.top; i < end; i++ {
		rows = append(rows, m.entry(i, cw)...)
	}
	rows = append(rows, rule)
	rows = append(rows, m.bottomRows(cw)...)
	for i, r := range rows {
		rows[i] = textutil.Fit(r, cw)
	}
	w := m.width
	if w <= 0 {
		w = 80
	}
	return textutil.DrawBox(th.Box, max(w, th.Box.GetHorizontalFrameSize()+1), rows)
}
