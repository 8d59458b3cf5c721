package tui

import (
	"fmt"
	"strings"

	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"

	"agent/internal/tui/statusbar"
	"agent/internal/tui/theme"
)

// View lays the screen out: the transcript, then the approval prompt or the
// composer, then the status bar; an overlay covers the transcript.
func (m *model) View() tea.View {
	if m.width == 0 {
		return tea.NewView("")
	}
	var b strings.Builder
	bottom := m.bottomView()
	status := m.statusView()
	h := m.height - lipgloss.Height(bottom) - 1
	var top string
	switch m.overlay {
	case overlayHelp:
		top = m.helpView()
	case overlayContext:
		top = m.contextView()
	case overlayCheckpoints:
		top = m.checkpointsView()
	default:
		top = m.transcriptView(h)
	}
	top = fit(top, m.width, h)
	b.WriteString(top)
	b.WriteString("\n")
	b.WriteString(bottom)
	b.WriteString("\n")
	b.WriteString(status)
	v := tea.NewView(b.String())
	v.AltScreen = true
	if m.mouse {
		v.MouseMode = tea.MouseModeCellMotion
	}
	v.WindowTitle = "agent"
	return v
}

func (m *model) transcriptHeight() int { return max(1, m.height-6) }

// fit pads or cuts s to h lines.
func fit(s string, w, h int) string {
	lines := strings.Split(s, "\n")
	if len(lines) > h {
		lines = lines[len(lines)-h:]
	}
	for len(lines) < h {
		lines = append(lines, "")
	}
	return strings.Join(lines, "\n")
}

// transcriptView renders the transcript's last h lines (minus the scroll).
func (m *model) transcriptView(h int) string {
	var lines []string
	for _, e := range m.tr.entries {
		lines = append(lines, strings.Split(m.renderEntry(e), "\n")...)
		lines = append(lines, "")
	}
	end := len(lines) - m.scroll
	if end < h {
		end = min(h, len(lines))
		m.scroll = len(lines) - end
	}
	start := max(0, end-h)
	return strings.Join(lines[start:end], "\n")
}

func (m *model) renderEntry(e *entry) string {
	t := m.th
	w := max(10, m.width-2)
	wrap := lipgloss.NewStyle().Width(w)
	switch e.kind {
	case itemUser:
		return t.Title.Render(theme.GlyphUser+" ") + wrap.Render(e.text)
	case itemAssistant:
		return wrap.Render(e.text)
	case itemNotice:
		return t.Dim.Render(wrap.Render("· " + e.text))
	case itemError:
		return t.ErrorText.Render(wrap.Render(theme.GlyphError + " " + e.text))
	case itemCard:
		return m.renderCard(e, w)
	}
	return ""
}

func (m *model) renderCard(e *entry, w int) string {
	t := m.th
	glyph, word, style := theme.GlyphRunning, "", t.Dim
	switch e.status {
	case cardPending:
		glyph, word = theme.GlyphRunning, ""
	case cardAwaiting:
		glyph, word, style = theme.GlyphPending, "needs approval", t.WarnText
	case cardRunning:
		glyph, word, style = theme.GlyphRunning, "running", t.InfoText
	case cardOK:
		glyph, word, style = theme.GlyphOK, "ok", t.OKText
	case cardFailed:
		glyph, word, style = theme.GlyphError, "error", t.ErrorText
	case cardDenied:
		glyph, word, style = theme.GlyphDenied, "denied", t.WarnText
	case cardInterrupted:
		glyph, word, style = theme.GlyphInterrupted, "interrupted", t.WarnText
	}
	if e.exit != nil && *e.exit != 0 {
		word, style, glyph = fmt.Sprintf("exit %d", *e.exit), t.ErrorText, theme.GlyphError
	}
	head := style.Render(glyph) + " " + t.Title.Render(e.tool) + " " + oneLine(e.summary, max(10, w-30))
	if word != "" {
		head += "  " + style.Render(word)
	}
	var body []string
	if e.diff != "" {
		body = append(body, m.renderDiff(e.diff, w-2, 12))
	} else if e.output != "" {
		out := strings.Split(strings.TrimRight(e.output, "\n"), "\n")
		n := 3
		if e.expanded {
			n = 200
		}
		if len(out) > n {
			out = append(out[:n], fmt.Sprintf("… %d more lines (ctrl+o)", len(out)-n))
		}
		for _, l := range out {
			body = append(body, t.Faint.Render("  "+oneLine(l, w-4)))
		}
	}
	if len(body) == 0 {
		return head
	}
	return head + "\n" + strings.Join(body, "\n")
}

// renderDiff is the plain diff fallback: +/- lines in their colours.
func (m *model) renderDiff(diff string, w, maxLines int) string {
	t := m.th
	lines := strings.Split(strings.TrimRight(diff, "\n"), "\n")
	if maxLines > 0 && len(lines) > maxLines {
		lines = append(lines[:maxLines], fmt.Sprintf("… %d more lines", len(lines)-maxLines))
	}
	for i, l := range lines {
		l = oneLine(l, max(10, w))
		switch {
		case strings.HasPrefix(l, "+"):
			lines[i] = "  " + t.Add.Render(l)
		case strings.HasPrefix(l, "-"):
			lines[i] = "  " + t.Del.Render(l)
		case strings.HasPrefix(l, "@@"):
			lines[i] = "  " + t.HunkLine.Render(l)
		default:
			lines[i] = "  " + t.Dim.Render(l)
		}
	}
	return strings.Join(lines, "\n")
}

// bottomView is the approval prompt when a call waits for the person, else
// the composer.
func (m *model) bottomView() string {
	if m.asking() {
		return m.approve.View()
	}
	return m.input.View()
}

func (m *model) statusView() string {
	set := m.svc.Settings()
	st := statusbar.Status{Model: set.Model, Approval: set.Approval, TokensIn: m.tr.tokens.Input, TokensOut: m.tr.tokens.Output,
		Cost: -1, ContextTokens: m.tr.context.TotalTokens, ContextWindow: contextWindow(set.Window, m.tr.context.Budget),
		RunID: m.runID(), Mouse: m.mouse, Notice: m.flash}
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
