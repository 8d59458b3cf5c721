package transcript

import (
	"strings"

	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"

	"agent/internal/termtext"
	"agent/internal/tui/theme"
)

// ChildRow is one subagent of a task card (a child run of the call), as
// the card shows it under its header: live while the child runs.
type ChildRow struct {
	Depth       int    // 1: the call's own child; 2: a child of that child
	Kind        string // "explore", "worker"
	Description string
	Status      Status
	// Detail is the rest of the row: elapsed time, tokens, cost, what the
	// child does now ("12s · 3.4k tokens · $0.0123 · read_file main.go").
	Detail string
}

// childLines draws the rows of the card's children.
func (c *ToolCard) childLines(th *theme.Theme, width int) []string {
	var lines []string
	for _, r := range c.d.Children {
		glyph, st := childLook(th, r.Status)
		indent := strings.Repeat("  ", max(r.Depth, 1))
		left := indent + th.Faint.Render("└") + " " + st.Render(glyph) + " "
		lw := ansi.StringWidth(indent) + 2 + ansi.StringWidth(glyph) + 1
		kind := termtext.OneLine(termtext.Strip(r.Kind))
		desc := termtext.OneLine(termtext.Strip(r.Description))
		text := th.Dim.Render(kind) + " " + th.Text.Render(desc)
		right := st.Render(r.Status.String())
		if r.Detail != "" {
			right += th.Faint.Render(" · " + termtext.OneLine(r.Detail))
		}
		line := left + text + "  " + right
		lines = append(lines, ansi.Truncate(line, max(width, lw+1), "…"))
	}
	return lines
}

// childLook is a child's glyph and style by its status.
func childLook(th *theme.Theme, s Status) (string, lipgloss.Style) {
	switch s {
	case StatusOK:
		return theme.GlyphOK, th.OKText
	case StatusError:
		return theme.GlyphError, th.ErrorText
	case StatusRunning:
		return theme.GlyphRunning, th.InfoText
	case StatusAwaitingApproval:
		return theme.GlyphPending, th.WarnText.Bold(true)
	case StatusDenied:
		return theme.GlyphDenied, th.WarnText
	case StatusInterrupted:
		return theme.GlyphInterrupted, th.WarnText
	default:
		return theme.GlyphPending, th.Dim
	}
}
