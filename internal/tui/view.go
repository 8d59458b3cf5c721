package tui

import (
	"fmt"
	"strings"

	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"

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
	if len(m.asks) > 0 {
		return m.askView()
	}
	return m.input.View()
}

func (m *model) askView() string {
	t := m.th
	a := m.asks[0]
	w := max(20, m.width-4)
	title := "Run: " + summarize(a.req.Tool, a.req.Arguments)
	if a.req.Risk == "write" {
		title = "Edit: " + summarize(a.req.Tool, a.req.Arguments)
	}
	if len(m.asks) > 1 {
		title += fmt.Sprintf("   (1 of %d)", len(m.asks))
	}
	var body []string
	body = append(body, t.Title.Render(oneLine(title, w)))
	if a.req.Diff != "" {
		body = append(body, m.renderDiff(a.req.Diff, w-2, max(3, m.height/2-6)))
	} else {
		body = append(body, "  "+oneLine(summarize(a.req.Tool, a.req.Arguments), w-2))
	}
	if a.req.Reason != "" {
		body = append(body, t.Dim.Render(oneLine(a.req.Reason, w)))
	}
	if m.noting {
		body = append(body, "Note to the model: "+m.note+"▌", t.Dim.Render("enter sends the denial with the note · esc back"))
	} else {
		body = append(body, t.Key.Render("1/y")+" allow once   "+t.Key.Render("2/a")+" allow for this run   "+
			t.Key.Render("3/n/esc")+" deny   "+t.Key.Render("4/tab")+" deny with a note")
	}
	return t.Box.Width(m.width - 2).Render(strings.Join(body, "\n"))
}

func (m *model) statusView() string {
	t := m.th
	set := m.svc.Settings()
	state := "idle"
	switch m.phase {
	case phaseStarting:
		state = "starting"
	case phaseRunning:
		state = "working"
		if len(m.asks) > 0 {
			state = "awaiting approval"
		}
	case phaseQuitting:
		state = "quitting"
	}
	parts := []string{theme.GlyphRunning + " " + state, set.Model, "approval " + set.Approval,
		fmt.Sprintf("%d↑ %d↓ tokens", m.tr.tokens.Input, m.tr.tokens.Output)}
	if c := m.tr.context; c.Budget > 0 {
		parts = append(parts, fmt.Sprintf("context %d%%", c.TotalTokens*100/max(1, c.Budget)))
	}
	if id := m.runID(); id != "" {
		parts = append(parts, id)
	}
	line := strings.Join(parts, " · ")
	if m.flash != "" {
		line = m.flash + "   " + line
	}
	return t.Dim.Render(oneLine(line, m.width))
}

func (m *model) helpView() string {
	t := m.th
	keys := [][2]string{
		{"enter", "send"}, {"shift+enter, ctrl+j, alt+enter", "new line"}, {"esc", "interrupt the current step"},
		{"ctrl+c twice", "quit (the run stays resumable)"}, {"ctrl+o", "expand or collapse the last tool card"},
		{"ctrl+x c", "context drawer"}, {"ctrl+x k, esc esc", "checkpoints"}, {"ctrl+x m", "mouse capture on/off"},
		{"pgup/pgdn, home/end", "scroll"}, {"?", "this help"},
		{"approvals", "1/y allow once · 2/a allow for this run · 3/n/esc deny · 4/tab deny with a note"},
	}
	var b strings.Builder
	b.WriteString(t.Title.Render("Keys") + "\n")
	for _, k := range keys {
		fmt.Fprintf(&b, "  %-32s %s\n", t.Key.Render(k[0]), k[1])
	}
	b.WriteString("\n" + t.Title.Render("Commands") + "\n")
	for _, c := range slashCommands {
		fmt.Fprintf(&b, "  %-14s %s\n", t.Key.Render(c.name), c.help)
	}
	b.WriteString(t.Dim.Render("\nesc closes"))
	return b.String()
}

func (m *model) contextView() string {
	t := m.th
	c := m.tr.context
	var b strings.Builder
	b.WriteString(t.Title.Render("Context of the last model request") + "\n")
	if c.Budget == 0 && len(c.Layers) == 0 {
		b.WriteString("no model request yet\n")
	}
	for _, l := range c.Layers {
		fmt.Fprintf(&b, "  %-14s %7d tokens  %4d items\n", l.Name, l.Tokens, l.Items)
	}
	fmt.Fprintf(&b, "  %-14s %7d of %d\n", "total", c.TotalTokens, c.Budget)
	b.WriteString(t.Dim.Render("\nesc closes"))
	return b.String()
}

func (m *model) checkpointsView() string {
	t := m.th
	var b strings.Builder
	b.WriteString(t.Title.Render("Checkpoints") + "\n")
	if len(m.cps) == 0 {
		b.WriteString("no checkpoint yet\n")
	}
	for _, c := range m.cps {
		label := string(c.Kind)
		if c.Kind == "rollback" {
			label = theme.GlyphUndo + " undo rollback"
		}
		fmt.Fprintf(&b, "  %s  step %-3d %-12s %-14s %d files: %s\n", short(c.ID), c.Step, c.CallID, label, len(c.Files), oneLine(strings.Join(c.Files, ", "), 60))
	}
	b.WriteString(t.Dim.Render("\nesc closes"))
	return b.String()
}
