package diffview

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/alecthomas/chroma/v2"
	"github.com/charmbracelet/x/ansi"
)

// dispLine is a line prepared for display, independent of the width and
// the mode, cached per line.
type dispLine struct {
	text  string
	width int
	spans []span // nil: not highlighted
	emph  []rng  // the words changed against the paired line
}

// minCode is the fewest code columns a side of the split view needs.
const minCode = 20

// splitMinWidth is the narrowest width at which the split view is shown.
func (m *Model) splitMinWidth() int {
	return 2*(m.numW()+3+minCode) + 3
}

func (m *Model) numW() int {
	if m.opts.NoLineNumbers {
		return 0
	}
	return digits(m.maxNum)
}

// display returns line li prepared for display.
func (m *Model) display(li int32) *dispLine {
	if d, ok := m.disp[li]; ok {
		return d
	}
	l := m.lines[li]
	text, cr := strings.CutSuffix(l.Text, "\r")
	text = displayText(text, m.opts.TabWidth)
	if cr && m.diff.Files[m.lineFile[li]].MixedEOL {
		text += "␍"
	}
	d := &dispLine{text: text, width: width(text)}
	if m.pal.color && (l.Kind == LineAdd || l.Kind == LineDel) {
		d.emph = m.emphOf(li, text)
	}
	if m.pal.color && l.Kind != LineNote {
		if lex := m.lexerOf(m.lineFile[li]); lex != nil {
			ok, final := m.budget.allow()
			switch {
			case ok:
				start := m.budget.now()
				d.spans = tokenise(lex, text)
				m.budget.spend(start)
			case !final:
				return d // plain in this frame only: not kept
			}
		}
	}
	m.disp[li] = d
	return d
}

// lexerOf returns the lexer of file fi, looked up once.
func (m *Model) lexerOf(fi int32) chroma.Lexer {
	if m.opts.NoHighlight {
		return nil
	}
	if !m.lexerDone[fi] {
		m.lexerDone[fi] = true
		m.lexers[fi] = m.hl.lexer(m.diff.Files[fi].Path())
	}
	return m.lexers[fi]
}

// renderRow renders row i of lo at the current width, exactly width
// columns wide.
func (m *Model) renderRow(lo *layout, i int, split bool) string {
	r := lo.rows[i]
	w := m.width
	switch r.kind {
	case rowNote:
		return m.styled(m.th.Dim.Render, displayText(m.notes[r.note], m.opts.TabWidth), w)
	case rowEmpty:
		return m.styled(m.th.Dim.Render, "no changes", w)
	case rowBlank:
		return strings.Repeat(" ", w)
	case rowFile:
		return m.fileHeader(&m.diff.Files[r.file], w)
	case rowHunk:
		h := m.diff.Files[r.file].Hunks[r.note]
		render := m.th.HunkLine.Render
		if m.cursor >= 0 && m.cursor < len(lo.targets) && int(lo.targets[m.cursor]) == i {
			render = m.th.Selected.Render
		}
		return m.styled(render, displayText(h.Header, m.opts.TabWidth), w)
	}
	var b strings.Builder
	b.Grow(w + 64)
	p := &painter{b: &b}
	if r.l.line >= 0 && m.lines[r.l.line].Kind == LineNote && !r.l.nonl {
		m.noteCell(p, r.l, w)
	} else if !split {
		m.codeCell(p, r.l, w, sideBoth)
	} else {
		lw := (w - 3) / 2
		m.codeCell(p, r.l, lw, sideOld)
		p.text(m.pal.faint, " │ ")
		m.codeCell(p, r.r, w-3-lw, sideNew)
	}
	if m.pal.color {
		b.WriteString(sgrReset)
	}
	return b.String()
}

// styled renders plain text with a theme style, fitted to width.
func (m *Model) styled(render func(...string) string, text string, w int) string {
	t := fit(text, w)
	trimmed := strings.TrimRight(t, " ")
	if trimmed == "" {
		return t
	}
	return render(trimmed) + t[len(trimmed):]
}

type side uint8

const (
	sideBoth side = iota // unified: both numbers
	sideOld
	sideNew
)

// painter writes text in styles, skipping a style that is already set.
type painter struct {
	b    *strings.Builder
	last string
}

func (p *painter) style(sgr string) {
	if sgr != "" && sgr != p.last {
		p.b.WriteString(sgr)
		p.last = sgr
	}
}

func (p *painter) text(sgr, s string) {
	p.style(sgr)
	p.b.WriteString(s)
}

func (p *painter) spaces(sgr string, n int) {
	if n > 0 {
		p.text(sgr, strings.Repeat(" ", n))
	}
}

// codeCell writes one cell of code: line numbers, marker and code, width
// columns in all.
func (m *Model) codeCell(p *painter, c cell, width int, sd side) {
	if c.line < 0 {
		p.spaces(m.pal.pad[kCtx], width)
		return
	}
	l := m.lines[c.line]
	k := kindIndex(l.Kind)
	nw := m.numW()
	nums := 1
	if sd == sideBoth {
		nums = 2
	}
	gutter := 0
	if nw > 0 {
		gutter = nums * (nw + 1)
	}
	if width-gutter-2 < 4 { // too narrow for numbers
		gutter, nw = 0, 0
	}
	if c.nonl {
		p.text(m.pal.faint, fit(strings.Repeat(" ", gutter+2)+`\ No newline at end of file`, width))
		return
	}
	if nw > 0 {
		p.style(m.pal.num[k])
		if sd != sideNew {
			writeNum(p.b, l.Old, nw, l.Kind != LineAdd)
		}
		if sd != sideOld {
			writeNum(p.b, l.New, nw, l.Kind != LineDel)
		}
	}
	code := width - gutter - 2
	if code < 0 {
		p.spaces(m.pal.pad[k], width-gutter)
		return
	}
	switch l.Kind {
	case LineAdd:
		p.text(m.pal.mark[k], "+ ")
	case LineDel:
		p.text(m.pal.mark[k], "- ")
	default:
		p.text(m.pal.mark[k], "  ")
	}
	m.writeCode(p, c.line, k, code)
}

func writeNum(b *strings.Builder, n, w int, show bool) {
	if !show || n <= 0 {
		b.WriteString(strings.Repeat(" ", w+1))
		return
	}
	b.WriteString(strings.Repeat(" ", w-digits(n)))
	b.WriteString(strconv.Itoa(n))
	b.WriteByte(' ')
}

// writeCode writes the code of line li in exactly w columns: highlighted,
// cut with "…" when it is wider.
func (m *Model) writeCode(p *painter, li int32, k, w int) {
	if w <= 0 {
		return
	}
	d := m.display(li)
	spans := d.spans
	if spans == nil {
		spans = []span{{class: classText, text: d.text}}
	}
	style := func(s seg) string {
		switch {
		case d.spans == nil && s.emph:
			return m.pal.eflat[k]
		case d.spans == nil:
			return m.pal.flat[k]
		case s.emph:
			return m.pal.emph[k][s.class]
		}
		return m.pal.code[k][s.class]
	}
	segs := splitEmph(spans, d.emph)
	used := 0
	if d.width <= w {
		for _, s := range segs {
			p.text(style(s), s.text)
		}
		used = d.width
	} else {
		budget := w - 1
		for _, s := range segs {
			sw := width(s.text)
			if used+sw <= budget {
				p.text(style(s), s.text)
				used += sw
				continue
			}
			t := ansi.Truncate(s.text, budget-used, "")
			p.text(style(s), t)
			used += ansi.StringWidth(t)
			break
		}
		if k == kCtx {
			p.text(m.pal.faint, "…")
		} else {
			p.text(m.pal.flat[k], "…")
		}
		used++
	}
	p.spaces(m.pal.pad[k], w-used)
}

// noteCell writes a note inside a hunk across the whole row.
func (m *Model) noteCell(p *painter, c cell, w int) {
	indent := 2
	if nw := m.numW(); nw > 0 {
		indent += 2 * (nw + 1)
	}
	if w-indent < 8 {
		indent = 0
	}
	p.text(m.pal.faint, fit(strings.Repeat(" ", indent)+displayText(m.lines[c.line].Text, m.opts.TabWidth), w))
}

// fileHeader renders a file's header row: its path, what happened to it
// and its counts.
func (m *Model) fileHeader(f *File, w int) string {
	name := displayText(f.Path(), m.opts.TabWidth)
	var info []string
	switch f.Status {
	case StatusAdded, StatusDeleted:
		info = append(info, f.Status.String())
	case StatusRenamed, StatusCopied:
		s := f.Status.String() + " from " + displayText(f.OldPath, m.opts.TabWidth)
		if f.Similarity != "" {
			s += " (" + f.Similarity + " similar)"
		}
		info = append(info, s)
	}
	if f.OldMode != "" && f.NewMode != "" && f.OldMode != f.NewMode {
		info = append(info, "mode "+f.OldMode+" → "+f.NewMode)
	}
	switch {
	case f.Binary:
		info = append(info, "binary, not shown")
	case len(f.Hunks) == 0 && f.Status == StatusModified && len(info) == 0:
		info = append(info, "no changes")
	case len(f.Hunks) > 0 || f.Added+f.Deleted > 0:
		info = append(info, fmt.Sprintf("+%d -%d", f.Added, f.Deleted))
	}
	if f.CRLF {
		info = append(info, "CRLF")
	}
	if f.MixedEOL {
		info = append(info, "mixed line endings (␍ marks CRLF)")
	}
	// The modes and the similarity come from the patch too: shown safely.
	rest := displayText(strings.Join(info, " · "), m.opts.TabWidth)
	switch {
	case name == "" && rest == "":
		name = "(unnamed file)"
	case name == "":
		// A bare hunk, as a tool card gets it: the counts say enough.
		return m.styled(m.th.Dim.Render, rest, w)
	case rest != "":
		rest = "  " + rest
	}
	rw := ansi.StringWidth(rest)
	if nw := ansi.StringWidth(name); nw+rw > w {
		if w-rw >= 12 {
			name = fitLeft(name, w-rw)
		} else {
			return m.styled(m.th.Title.Render, name+rest, w)
		}
	}
	used := ansi.StringWidth(name) + rw
	out := m.th.Title.Render(name)
	if rest != "" {
		out += m.th.Dim.Render(rest)
	}
	return out + strings.Repeat(" ", max(w-used, 0))
}
