package tui

// The subagent view: a child run's transcript, read-only, over the
// session's (ctrl+x s). ←/→ go through the session's children.

import (
	"fmt"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"agent/internal/termtext"
)

// openChild opens the subagent view on the focused task card's first
// child, else the newest child still running, else the newest.
func (m *model) openChild() {
	n := len(m.subs.order)
	if n == 0 {
		m.flash = "no subagents in this session yet"
		return
	}
	idx := n - 1
	for i := n - 1; i >= 0; i-- {
		if m.subs.order[i].ended.IsZero() {
			idx = i
			break
		}
	}
	if f := m.tr.view.Focused(); f != "" {
		for i, s := range m.subs.order {
			if s.card == f {
				idx = i
				break
			}
		}
	}
	m.childIdx, m.overlay = idx, overlayChild
}

// childKey handles a key in the subagent view.
func (m *model) childKey(k tea.KeyPressMsg) tea.Cmd {
	n := len(m.subs.order)
	switch k.String() {
	case "esc", "q":
		m.overlay = overlayNone
	case "left", "shift+tab", "[":
		m.childIdx = (m.childIdx + n - 1) % n
	case "right", "tab", "]":
		m.childIdx = (m.childIdx + 1) % n
	default:
		_, cmd := m.subs.order[m.childIdx].tr.view.Update(k)
		return cmd
	}
	return nil
}

// childView draws the subagent view in h lines: a title, the keys, and the
// child's transcript.
func (m *model) childView(h int) string {
	s := m.subs.order[min(m.childIdx, len(m.subs.order)-1)]
	th := m.th
	title := fmt.Sprintf("subagent %d/%d · %s · %s", m.childIdx+1, len(m.subs.order), termtext.OneLine(s.kind), termtext.OneLine(s.label()))
	state := s.status.String()
	if d := s.detail(m); d != "" {
		state += " · " + d
	}
	// state carries what the child is doing: a tool name and its arguments,
	// model output, so through the sanitiser like the transcript's row.
	head := ansi.Truncate(th.Text.Bold(true).Render(title)+"  "+th.Dim.Render(termtext.OneLine(state)), m.width, "…")
	hint := th.Faint.Render(ansi.Truncate("read-only · ←/→ other subagents · pgup/pgdn scroll · esc closes", m.width, "…"))
	s.tr.view.SetSize(m.width, max(h-2, 1))
	return head + "\n" + hint + "\n" + s.tr.view.View()
}
