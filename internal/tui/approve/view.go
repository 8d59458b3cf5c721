package approve

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"

	"agent/internal/termtext"
	"agent/internal/tui/textutil"
	"agent/internal/tui/theme"
)

const (
	defaultWidth = 80
	labelW       = 6 // "file  ", "why   "
	keyW         = 9 // "3/n/esc  "
)

// frame is the layout of the box for the current size and head.
type frame struct {
	cw      int      // content width inside border and padding
	header  []string // styled, each cw wide at most
	bodyH   int      // body rows shown
	scroll  bool     // a scroll line is shown under the body
	options []string // styled option rows, then the hint row
}

func (m *Model) contentWidth() int {
	w := m.width
	if w <= 0 {
		w = defaultWidth
	}
	return max(1, w-m.box().GetHorizontalFrameSize())
}

func (m *Model) noteWidth() int {
	return m.contentWidth() - keyW - len("note ") - 1
}

func (m *Model) layout() frame {
	f := frame{cw: m.contentWidth()}
	if len(m.queue) == 0 {
		return f
	}
	head := m.queue[0]
	f.header = m.header(head, f.cw)
	f.options = m.optionRows(head, f.cw)
	body := len(m.body())
	// Rows the box needs besides the body: borders, header, two rules,
	// the options and the hint.
	fixed := func() int { return m.box().GetVerticalFrameSize() + len(f.header) + 2 + len(f.options) }
	if m.height <= 0 {
		f.bodyH = body
		return f
	}
	// Too little room: the options stay, the header gives way (the
	// reason first, then the file); the title stays.
	for len(f.header) > 1 && m.height-fixed() < min(body, 3) {
		f.header = f.header[:len(f.header)-1]
	}
	avail := m.height - fixed()
	if body > avail {
		f.scroll = true
		f.options[len(f.options)-1] = m.hintRow(f.cw, true)
		avail--
	}
	f.bodyH = max(0, min(body, avail))
	return f
}

// header is the title, the file and why it asks, most needed first.
func (m *Model) header(r Request, cw int) []string {
	th := m.th
	rs := lipgloss.NewStyle().Bold(true)
	if !th.NoColor {
		rs = rs.Foreground(riskColour(th, r.Risk))
	}
	title := rs.Render(theme.GlyphPending) + " " + rs.Render(textutil.Shorten(Title(r), max(1, cw-22)))
	var right []string
	if r.Risk != "" {
		right = append(right, textutil.Shorten(termtext.OneLine(string(r.Risk)), 8))
	}
	if len(m.queue) > 1 {
		right = append(right, fmt.Sprintf("1 of %d", len(m.queue)))
	}
	if len(right) > 0 {
		tag := th.Dim.Render(strings.Join(right, " · "))
		gap := cw - ansi.StringWidth(title) - ansi.StringWidth(tag)
		if gap < 1 {
			title = textutil.Fit(title, max(0, cw-ansi.StringWidth(tag)-1))
			gap = 1
		}
		title += strings.Repeat(" ", gap) + tag
	}
	lines := []string{textutil.Fit(title, cw)}
	labelled := func(label, text string, maxRows int) {
		rows := textutil.Wrap(text, max(1, cw-labelW))
		if len(rows) > maxRows {
			rows = rows[:maxRows]
			rows[maxRows-1] = textutil.Shorten(rows[maxRows-1]+" …", cw-labelW)
		}
		for i, row := range rows {
			l := strings.Repeat(" ", labelW)
			if i == 0 {
				l = th.Dim.Render(fmt.Sprintf("%-*s", labelW, label))
			}
			lines = append(lines, l+th.Text.Render(row))
		}
	}
	if r.Subagent != "" {
		labelled("by", "subagent "+termtext.OneLine(r.Subagent), 2)
	}
	if r.Risk != RiskExec && r.Summary != "" {
		labelled("file", termtext.OneLine(r.Summary), 2)
	}
	if r.Reason != "" {
		labelled("why", termtext.OneLine(r.Reason), 3)
	}
	// no run, step or call ids: they are in agent trace
	return lines
}

// optionRows are the four options, always in this order with these keys,
// and the hint row under them.
func (m *Model) optionRows(r Request, cw int) []string {
	th := m.th
	grant := termtext.OneLine(r.GrantLabel)
	switch {
	case grant == "":
		grant = "allow for this run"
	case !strings.HasPrefix(grant, "for "):
		grant = "allow for this run: " + grant
	default:
		grant = "allow " + grant
	}
	labelW := max(1, cw-keyW)
	var rows []string
	add := func(keys, label string, style func(...string) string) {
		for i, l := range textutil.Wrap(label, labelW) {
			k := strings.Repeat(" ", keyW)
			if i == 0 {
				k = th.Key.Render(keys) + strings.Repeat(" ", keyW-len(keys))
			}
			rows = append(rows, k+style(l))
		}
	}
	add("1/y", "allow once", th.Text.Render)
	if m.ruling {
		rows = append(rows, th.Key.Render("2/a")+strings.Repeat(" ", keyW-3)+th.Dim.Render("rule ")+m.note.View())
	} else {
		add("2/a", grant, th.Text.Render)
	}
	add("3/n/esc", Deny.String(), th.Text.Render)
	if m.noting && !m.ruling {
		rows = append(rows, th.Key.Render("4/tab")+strings.Repeat(" ", keyW-5)+th.Dim.Render("note ")+m.note.View())
	} else {
		add("4/tab", "deny with a note", th.Text.Render)
	}
	return append(rows, m.hintRow(cw, false))
}

// hintRow says which keys work now.
func (m *Model) hintRow(cw int, scrollable bool) string {
	th := m.th
	switch {
	case m.ruling && m.noteMissing:
		return th.WarnText.Render(textutil.Shorten("type a rule first, as TOOL(GLOB) · esc back to the options", cw))
	case m.ruling:
		return th.Faint.Render(textutil.Shorten("enter allows this call and what the rule covers for the run · esc back", cw))
	case m.noting && m.noteMissing:
		return th.WarnText.Render(textutil.Shorten("type a note first · esc back to the options", cw))
	case m.noting:
		return th.Faint.Render(textutil.Shorten("enter sends the note to the model · esc back to the options", cw))
	}
	keys := "1–4 choose"
	if head, ok := m.Head(); ok && head.SuggestRule != "" {
		keys += " · e edit the rule"
	}
	if head, ok := m.Head(); ok && head.Diff != "" {
		keys += " · f fullscreen"
		if m.renderSplit != nil {
			keys += " · t split"
		}
	}
	if scrollable {
		keys += " · ↑↓ pgup pgdn scroll"
	}
	return th.Faint.Render(textutil.Shorten(keys, cw))
}

// body is the head's diff or command, one styled row per screen line.
func (m *Model) body() []string {
	if len(m.queue) == 0 {
		return nil
	}
	head := m.queue[0]
	cw := m.contentWidth()
	if m.cache.id == head.ID && m.cache.width == cw && m.cache.split == m.split && m.cache.lines != nil {
		return m.cache.lines
	}
	var lines []string
	switch {
	case head.Diff != "":
		lines = m.diffLines(termtext.VisibleSpaced(head.Diff), cw)
	case head.Risk == RiskExec:
		lines = m.commandLines(head, cw)
	default:
		lines = append(lines, m.th.Dim.Render("(no diff was given)"))
		lines = append(lines, m.argLines(head.Arguments, cw)...)
	}
	if len(lines) == 0 {
		lines = []string{""}
	}
	m.cache = bodyCache{id: head.ID, width: cw, split: m.split, lines: lines}
	return lines
}

func (m *Model) commandLines(r Request, cw int) []string {
	th := m.th
	var lines []string
	for i, l := range textutil.Wrap(termtext.VisibleSpaced(r.Summary), max(1, cw-2)) {
		p := "  "
		if i == 0 {
			p = th.Key.Render("$ ")
		}
		lines = append(lines, p+th.Text.Bold(true).Render(l))
	}
	// the command once: the other arguments, not the JSON that repeats it
	return append(lines, m.extraArgLines(r.Arguments, cw)...)
}

// argLines is the call's JSON arguments, indented, every byte shown.
func (m *Model) argLines(args string, cw int) []string {
	if strings.TrimSpace(args) == "" {
		return nil
	}
	var buf bytes.Buffer
	text := args
	if json.Indent(&buf, []byte(args), "", "  ") == nil {
		text = buf.String()
	}
	var out []string
	for _, l := range textutil.Wrap(termtext.VisibleSpaced(text), cw) {
		out = append(out, m.th.Dim.Render(l))
	}
	return out
}

// diffLines renders the diff with the root's renderer, or plainly: +/- lines
// in the theme's colours, long lines wrapped so nothing is hidden.
func (m *Model) diffLines(diff string, cw int) []string {
	render := m.renderDiff
	if m.split && m.renderSplit != nil {
		render = m.renderSplit
	}
	if render != nil {
		out := render(diff, cw, max(1, m.height))
		lines := strings.Split(strings.TrimRight(out, "\n"), "\n")
		for i, l := range lines {
			if ansi.StringWidth(l) > cw {
				lines[i] = ansi.Truncate(l, cw, "…")
			}
		}
		return lines
	}
	return textutil.PlainDiff(diff, cw, diffStyles(m.th))
}

// View renders the box: the header, the visible part of the body, a scroll
// line when the body is longer, and the options pinned at the bottom.
// It is "" when no request waits.
func (m *Model) View() string {
	if len(m.queue) == 0 {
		return ""
	}
	f := m.layout()
	th := m.th
	rule := th.Faint.Render(strings.Repeat("─", f.cw))
	rows := append([]string{}, f.header...)
	rows = append(rows, rule)
	body := m.body()
	off := min(m.offset, max(0, len(body)-f.bodyH))
	rows = append(rows, body[off:off+f.bodyH]...)
	if f.scroll {
		pos := "lines 0 of " + strconv.Itoa(len(body))
		if f.bodyH > 0 {
			pos = fmt.Sprintf("lines %d–%d of %d", off+1, off+f.bodyH, len(body))
		}
		more := ""
		switch {
		case off > 0 && off+f.bodyH < len(body):
			more = " · ↑↓ more"
		case off > 0:
			more = " · ↑ more"
		case off+f.bodyH < len(body):
			more = " · ↓ more"
		}
		rows = append(rows, th.Dim.Render(textutil.Shorten(pos+more, f.cw)))
	}
	rows = append(rows, rule)
	rows = append(rows, f.options...)
	for i, r := range rows {
		rows[i] = textutil.Fit(r, f.cw)
	}
	w := m.width
	if w <= 0 {
		w = defaultWidth
	}
	return textutil.DrawBox(m.box(), max(w, m.box().GetHorizontalFrameSize()+1), rows)
}

// diffStyles are the theme's styles for a diff shown without the diff view.
func diffStyles(th *theme.Theme) textutil.DiffStyles {
	return textutil.DiffStyles{Text: th.Text, Header: th.Dim, Hunk: th.HunkLine, Add: th.Add, Del: th.Del}
}
