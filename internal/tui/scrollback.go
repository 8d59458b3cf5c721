package tui

import (
	"bufio"
	"io"
	"strings"
)

// scrollbackMax bounds the lines printed on exit: a day's session stays
// readable in the scrollback, and `agent export` has the rest.
const scrollbackMax = 5000

// scrollback prints the transcript to the terminal's normal screen once the
// program has left the alternate screen, so that what happened stays in
// the scrollback after quit (docs/tui.md says why this and not inline
// rendering). The lines are the ones the transcript showed, at the width
// it had; nothing is printed before the first frame.
func (m *model) scrollback(w io.Writer) {
	if m.width <= 0 || w == nil {
		return
	}
	m.tr.view.SetSize(m.width, max(m.height, 1))
	lines := m.tr.view.Lines()
	if len(lines) == 0 {
		return
	}
	bw := bufio.NewWriter(w)
	if n := len(lines) - scrollbackMax; n > 0 {
		lines = lines[n:]
		bw.WriteString(m.th.Faint.Render("… earlier lines: agent export " + m.runID()))
		bw.WriteString("\n")
	}
	for _, l := range lines {
		bw.WriteString(strings.TrimRight(l, " "))
		bw.WriteString("\n")
	}
	bw.Flush()
}
