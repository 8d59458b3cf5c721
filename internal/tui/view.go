package tui

import (
	"strings"

	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"

	"agent/internal/tui/statusbar"
)

// View lays the screen out: the transcript, then the approval prompt or the
// composer, then the status bar; an overlay covers the transcript.
func (m *model) View() tea.View {
	if m.width == 0 {
		return tea.NewView("")
	}
	var b strings.Builder
	bottom := m.bottomView()
	if a := m.life.act.View(m.width); a != "" {
		bottom = a + "\n" + bottom
	}
	status := m.statusView()
	h := max(0, m.height-lipgloss.Height(bottom)-1)
	m.sizeOverlay(h)
	var top string
	switch m.overlay {
	case overlayHelp:
		top = m.helpView()
	case overlayContext:
		top = m.contextView()
	case overlayCheckpoints:
		top = m.checkpointsView()
	case overlayPicker:
		top = m.pickerView(h)
	case overlayRewind:
		top = m.rw.View()
	case overlayChild:
		top = m.childView(h)
	case overlayDiff:
		if m.diff != nil && (m.diff.Width() != m.width || m.diff.Height() != h) {
			m.diff.SetSize(m.width, h)
		}
		top = m.diffView()
	default:
		top = m.transcriptView(h)
	}
	top = fit(top, m.width, h)
	b.WriteString(top)
	b.WriteString("\n")
	b.WriteString(bottom)
	b.WriteString("\n")
	b.WriteString(status)
	screen := b.String()
	if lines := strings.Split(screen, "\n"); len(lines) > m.height {
		// too small for the prompt or the composer: keep their last lines
		// (the options) and the status line
		screen = strings.Join(lines[len(lines)-max(1, m.height):], "\n")
	}
	v := tea.NewView(screen)
	v.AltScreen = true
	if m.mouse {
		v.MouseMode = tea.MouseModeCellMotion
	}
	v.WindowTitle = "agent"
	return v
}

// sizeOverlay gives the open overlay the h rows above the composer (or the
// prompt) and the status line, so its box is never cut.
func (m *model) sizeOverlay(h int) {
	switch m.overlay {
	case overlayHelp:
		m.help.SetSize(m.width, h)
	case overlayContext:
		m.ctxDrawer.SetSize(m.width, h)
	case overlayCheckpoints:
		m.cpDrawer.SetSize(m.width, h)
	case overlayRewind:
		if m.rw != nil {
			m.rw.SetSize(m.width, h)
		}
	case overlayPicker:
		if m.picker != nil {
			m.picker.SetSize(m.width, min(h, 20))
		}
	}
}

// fit pads or cuts s to h lines (none for h <= 0).
func fit(s string, w, h int) string {
	if h <= 0 {
		return ""
	}
	lines := strings.Split(s, "\n")
	if len(lines) > h {
		lines = lines[len(lines)-h:]
	}
	for len(lines) < h {
		lines = append(lines, "")
	}
	return strings.Join(lines, "\n")
}

// transcriptView is the transcript's window, h lines.
func (m *model) transcriptView(h int) string {
	m.tr.view.SetSize(m.width, h)
	return m.tr.view.View()
}

// renderDiff draws an edit's diff in a card.
func (m *model) renderDiff(diff string, w int) string { return m.dv.CardDiff(diff, w) }

// bottomView is the approval prompt when a call waits for the person, else
// the composer.
func (m *model) bottomView() string {
	if m.asking() && m.promptDiffOpen() {
		return m.promptDiffBottom()
	}
	if m.asking() {
		return m.approve.View()
	}
	return m.input.View()
}

func (m *model) statusView() string {
	set := m.svc.Settings()
	st := statusbar.Status{Model: m.svc.Model(), Approval: m.svc.Mode(), TokensIn: m.tr.tokens.Input, TokensOut: m.tr.tokens.Output,
		Cost: m.sessionCost(), ContextTokens: m.tr.context.TotalTokens, ContextWindow: contextWindow(set.Window, m.tr.context.Budget),
		RunID: m.runID(), Mouse: m.mouse, Notice: m.flash}
	st.Budget, st.BudgetLevel = m.budgetMeter()
	switch {
	case m.phase == phaseQuitting:
		st.State = statusbar.Interrupted
	case m.asking():
		st.State = statusbar.AwaitingApproval
	case m.phase == phaseRunning && m.tr.stream != nil:
		st.State = statusbar.Streaming
	case m.phase == phaseRunning && m.tr.running():
		st.State = statusbar.RunningTool
	case m.phase == phaseRunning, m.phase == phaseStarting:
		st.State = statusbar.Thinking
	case m.tr.status == "failed":
		st.State = statusbar.Failed
	case m.tr.status == "interrupted":
		st.State = statusbar.Interrupted
	case m.tr.status == "completed":
		st.State = statusbar.Done
	case m.tr.status == "stopped":
		st.State = statusbar.Stopped
	default:
		st.State = statusbar.Idle
	}
	return statusbar.Render(m.th, st, m.width)
}

// contextWindow is the model's window when configured, else the budget the
// request was built against.
func contextWindow(window, budget int) int {
	if window > 0 {
		return window
	}
	return budget
}

func (m *model) helpView() string        { return m.help.View() }
func (m *model) contextView() string     { return m.ctxDrawer.View() }
func (m *model) checkpointsView() string { return m.cpDrawer.View() }
