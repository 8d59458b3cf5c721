package composer

import (
	"fmt"
	"strings"

	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/clipperhouse/displaywidth"

	"agent/internal/tui/theme"
)

// The box is a rounded border with one column of padding on each side and
// a two-column prompt ("› ") before the text.
const (
	boxFrame    = 4
	promptWidth = 2
)

// textWidth is the width of the text area inside the box.
func (m Model) textWidth() int { return max(1, m.width-boxFrame-promptWidth) }

// maxNoticeRows is how many lines a notice may wrap to.
const maxNoticeRows = 3

func (m Model) infoRows() int {
	if m.notice != "" {
		return len(m.noticeLines())
	}
	if len(m.attached) > 0 {
		return 1
	}
	return 0
}

// noticeLines is the notice wrapped to the width (at most maxNoticeRows
// lines, the last one cut).
func (m Model) noticeLines() []string {
	w := max(1, m.width-3)
	ls := strings.Split(ansi.Hardwrap(ansi.Wordwrap(m.notice, w, " /"), w, true), "\n")
	if len(ls) > maxNoticeRows {
		ls = ls[:maxNoticeRows]
		ls[maxNoticeRows-1] = ansi.Truncate(ls[maxNoticeRows-1]+" …", w, "…")
	}
	return ls
}

// popLines is how many lines the open popup wants.
func (m Model) popLines() int {
	if m.pop.kind == popNone {
		return 0
	}
	n := max(1, min(len(m.pop.items), PopupRows))
	if m.pop.kind == popFiles && m.files.list.Truncated {
		n++
	}
	return n
}

// popRows is how many lines the popup gets: what it wants, leaving one row
// of text.
func (m Model) popRows() int {
	return max(0, min(m.popLines(), m.height-3-m.infoRows()))
}

// textRows is how many rows of text the box shows.
func (m Model) textRows() int {
	avail := max(1, m.height-2-m.popRows()-m.infoRows())
	n := m.ed.visualRows()
	if m.ed.empty() {
		n = len(m.placeholderLines())
	}
	return max(1, min(n, avail))
}

// Height is the number of lines View returns.
func (m Model) Height() int { return m.textRows() + 2 + m.popRows() + m.infoRows() }

// fixScroll keeps the cursor's row in view.
func (m *Model) fixScroll() {
	rows, total := m.textRows(), m.ed.visualRows()
	y, _ := m.ed.cursorXY()
	if y < m.scroll {
		m.scroll = y
	}
	if y >= m.scroll+rows {
		m.scroll = y - rows + 1
	}
	m.scroll = max(0, min(m.scroll, total-rows))
}

func (m Model) placeholderLines() []string {
	p := m.placeholder
	if m.busy {
		p = m.busyPlaceholder
	}
	return strings.Split(ansi.Hardwrap(ansi.Wordwrap(p, m.textWidth(), ""), m.textWidth(), true), "\n")
}

var cursorStyle = lipgloss.NewStyle().Reverse(true)

// paint is a style of one line of plain text as the escape sequences
// before and after it, taken from lipgloss once: rows are painted on every
// frame, and lipgloss measures and re-wraps whatever it renders.
type paint struct{ pre, post string }

func newPaint(s lipgloss.Style) paint {
	out := s.Render("x")
	i := strings.IndexByte(out, 'x')
	if i < 0 {
		return paint{}
	}
	return paint{out[:i], out[i+1:]}
}

func (p paint) on(s string) string {
	if p.pre == "" && p.post == "" {
		return s
	}
	return p.pre + s + p.post
}

// paints are the styles the box's rows use.
type paints struct {
	text, fold, faint, cursor, border, borderFocused paint
}

func newPaints(th *theme.Theme) *paints {
	border := lipgloss.NewStyle()
	focused := border
	if !th.NoColor {
		border = border.Foreground(th.Box.GetBorderTopForeground())
		focused = focused.Foreground(th.Accent)
	}
	return &paints{
		text: newPaint(th.Text), fold: newPaint(th.InfoText), faint: newPaint(th.Faint),
		cursor: newPaint(cursorStyle), border: newPaint(border), borderFocused: newPaint(focused),
	}
}

// View renders the box, the popup under it and the line under that.
func (m Model) View() string {
	rows := m.textRows()
	body := make([]string, 0, rows)
	if m.ed.empty() {
		cw := m.textWidth()
		for i, l := range m.placeholderLines()[:rows] {
			l = ansi.Truncate(l, cw, "")
			pad := strings.Repeat(" ", max(0, cw-ansi.StringWidth(l)))
			if i == 0 && m.focused {
				first, rest := splitFirst(l)
				body = append(body, m.paint.cursor.on(first)+m.paint.faint.on(rest)+pad)
				continue
			}
			body = append(body, m.paint.faint.on(l)+pad)
		}
	} else {
		body = m.textLines(rows)
	}
	total := m.ed.visualRows()
	for i := range body {
		body[i] = m.prompt(i, rows, total) + body[i]
	}
	var b strings.Builder
	m.box(&b, body)
	for _, l := range m.popupLines() {
		b.WriteByte('\n')
		b.WriteString(l)
	}
	if m.infoRows() > 0 {
		b.WriteByte('\n')
		b.WriteString(m.infoLine())
	}
	return b.String()
}

// box writes body (rows exactly the text width plus the prompt wide) in
// the theme's box: its border, in the accent colour when focused, and one
// column of padding. (Drawn here rather than by lipgloss, which would
// measure and re-wrap every row on every frame.)
func (m Model) box(b *strings.Builder, body []string) {
	bp := m.paint.border
	if m.focused {
		bp = m.paint.borderFocused
	}
	br := m.th.Box.GetBorderStyle()
	inner := m.width - 2
	b.WriteString(bp.on(br.TopLeft + strings.Repeat(br.Top, inner) + br.TopRight))
	left, right := bp.on(br.Left)+" ", " "+bp.on(br.Right)
	for _, row := range body {
		b.WriteByte('\n')
		b.WriteString(left)
		b.WriteString(row)
		b.WriteString(right)
	}
	b.WriteByte('\n')
	b.WriteString(bp.on(br.BottomLeft + strings.Repeat(br.Bottom, inner) + br.BottomRight))
}

// splitFirst splits off the first character of s.
func splitFirst(s string) (string, string) {
	if s == "" {
		return " ", ""
	}
	for i := range s {
		if i > 0 {
			return s[:i], s[i:]
		}
	}
	return s, ""
}

// prompt is the two columns before text row i of rows shown.
func (m Model) prompt(i, rows, total int) string {
	th := m.th
	switch {
	case i == 0 && m.scroll > 0:
		return th.Dim.Render("↑ ")
	case i == rows-1 && m.scroll+rows < total:
		return th.Dim.Render("↓ ")
	case i == 0 && m.busy:
		return th.InfoText.Render(theme.GlyphRunning + " ")
	case i == 0 && m.focused:
		return th.Key.Render(theme.GlyphUser + " ")
	case i == 0:
		return th.Dim.Render(theme.GlyphUser + " ")
	}
	return "  "
}

// textLines renders the rows visual rows from the scroll offset.
func (m Model) textLines(rows int) []string {
	e := &m.ed
	out := make([]string, 0, rows)
	y := 0
	for li := range e.lines {
		ss := e.segs(li)
		if y+len(ss) <= m.scroll {
			y += len(ss)
			continue
		}
		cur := -1
		if li == e.row {
			cur = e.segOf(li, e.col)
		}
		for si, s := range ss {
			if y >= m.scroll {
				col := -1
				if si == cur && m.focused {
					col = e.col
				}
				out = append(out, m.renderRow(e.lines[li], s, col))
				if len(out) == rows {
					return out
				}
			}
			y++
		}
	}
	return out
}

// renderRow renders one visual row, the cursor at rune col (-1: none),
// padded to the text width.
func (m Model) renderRow(line []rune, s seg, col int) string {
	cw := m.textWidth()
	var b, plain strings.Builder
	flush := func() {
		if plain.Len() > 0 {
			b.WriteString(m.paint.text.on(plain.String()))
			plain.Reset()
		}
	}
	w := 0
	for i := s.start; i < s.end; i++ {
		r := line[i]
		w += m.ed.runeWidth(r)
		switch {
		case i == col || isFold(r):
			var cell string
			switch {
			case isFold(r):
				cell = m.ed.label(r)
			case r == '\t':
				cell = strings.Repeat(" ", tabWidth)
			default:
				cell = string(r)
			}
			flush()
			if i == col {
				b.WriteString(m.paint.cursor.on(cell))
			} else {
				b.WriteString(m.paint.fold.on(cell))
			}
		case r == '\t':
			plain.WriteString("    ")
		default:
			plain.WriteRune(r)
		}
	}
	flush()
	if col == s.end {
		b.WriteString(m.paint.cursor.on(" "))
		w++
	}
	out := b.String()
	if w > cw {
		return ansi.Truncate(out, cw, "…")
	}
	return out + strings.Repeat(" ", cw-w)
}

// popupLines renders the open popup.
func (m Model) popupLines() []string {
	n := m.popRows()
	if n == 0 {
		return nil
	}
	th := m.th
	p := m.pop
	var out []string
	status := func(style lipgloss.Style, s string) string {
		return style.Render(ansi.Truncate("   "+s, m.width, "…"))
	}
	switch {
	case len(p.items) > 0:
	case p.kind == popFiles && m.files.err != nil:
		out = append(out, status(th.ErrorText, theme.GlyphError+" cannot list the files: "+m.files.err.Error()))
	case p.kind == popFiles && m.files.loading && !m.files.have:
		out = append(out, status(th.Dim, "listing the workspace's files…"))
	case p.kind == popFiles && !m.files.have:
		out = append(out, status(th.Dim, "no file list to complete from"))
	case p.kind == popFiles:
		out = append(out, status(th.Dim, "no matching file"))
	default:
		out = append(out, status(th.Dim, "no matching command"))
	}
	labelW, helps := 0, false
	end := min(len(p.items), p.top+PopupRows)
	for _, it := range p.items[p.top:end] {
		labelW = max(labelW, displaywidth.String(it.label))
		helps = helps || it.help != "" || it.args != ""
	}
	if helps {
		labelW = min(labelW, max(8, m.width/2))
	} else {
		labelW = min(labelW, max(1, m.width-3))
	}
	for i := p.top; i < end && len(out) < n; i++ {
		out = append(out, m.popupItem(p.items[i], i == p.sel, labelW))
	}
	if len(out) < n && p.kind == popFiles && m.files.list.Truncated {
		out = append(out, status(th.Faint, fmt.Sprintf("(only the first %d files of the workspace are listed)", len(m.files.list.Paths))))
	}
	return out
}

// popupItem renders one item: a marker, the label (matched characters
// highlighted, unless selected: the whole row is then in the selected
// style), the argument hint and the help.
func (m Model) popupItem(it popItem, sel bool, labelW int) string {
	th := m.th
	label, pos := it.label, it.pos
	if lw := displaywidth.String(label); lw > labelW {
		// Cut a path at its start: the end names the file.
		label, pos = "…"+ansi.TruncateLeft(label, lw-labelW+1, ""), nil
	}
	rest, pad := "", ""
	if it.args != "" {
		rest += " " + it.args
	}
	if it.help != "" {
		rest += "  " + it.help
	}
	if rest != "" || sel {
		pad = strings.Repeat(" ", max(0, labelW-displaywidth.String(label)))
	}
	if sel {
		line := " " + theme.GlyphUser + " " + label + pad + rest
		line = ansi.Truncate(line, m.width, "…")
		line += strings.Repeat(" ", max(0, m.width-displaywidth.String(line)))
		return th.Selected.Render(line)
	}
	var b strings.Builder
	b.WriteString("   ")
	b.WriteString(highlight(label, pos, th.Text, th.Key))
	b.WriteString(pad)
	b.WriteString(th.Dim.Render(rest))
	return ansi.Truncate(b.String(), m.width, "…")
}

// highlight renders s with the bytes at pos in hi and the rest in base.
func highlight(s string, pos []int, base, hi lipgloss.Style) string {
	if len(pos) == 0 {
		return base.Render(s)
	}
	var b strings.Builder
	last, k := 0, 0
	for i, r := range s {
		if k < len(pos) && pos[k] == i {
			if last < i {
				b.WriteString(base.Render(s[last:i]))
			}
			b.WriteString(hi.Render(string(r)))
			last = i + len(string(r))
			k++
		}
	}
	if last < len(s) {
		b.WriteString(base.Render(s[last:]))
	}
	return b.String()
}

// infoLine is what is under the box: a notice, or the attached files.
func (m Model) infoLine() string {
	th := m.th
	if m.notice != "" {
		ls := m.noticeLines()
		for i, l := range ls {
			lead := "   "
			if i == 0 {
				lead = " " + theme.GlyphError + " "
			}
			ls[i] = th.ErrorText.Render(lead + l)
		}
		return strings.Join(ls, "\n")
	}
	var b strings.Builder
	b.WriteString(" attached:")
	for _, p := range m.attached {
		b.WriteString(" @" + p)
	}
	return th.Dim.Render(ansi.Truncate(b.String(), m.width, "…"))
}
