package drawer

import (
	"fmt"
	"strings"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"agent/internal/termtext"
	"agent/internal/tui/textutil"
	"agent/internal/tui/theme"
)

// Layer is one layer of a model request's context.
type Layer struct {
	ID     string // "L3", "tools" ("": a report from before the layers had ids)
	Name   string
	Budget int // the layer's share of the budget (0: none of its own, sent whole)
	Tokens int
	Items  int
	Note   string
	Cuts   []Cut // the items not sent verbatim
}

// Cut is an item (or a run of items) of a layer not sent verbatim.
type Cut struct {
	Reason string // in words: "old tool output masked"
	What   string // "tool result call_9, seq 512", "41 messages, seq 3–507"
	Before int    // tokens verbatim
	After  int    // tokens sent
}

// Context is the context of the last model request.
type Context struct {
	Step   int
	Budget int // the tokens the builder may use (0: unknown)
	Window int // the model's context window (0: unknown)
	// Reserve and Margin are what the budget leaves of the window for the
	// answer and for error; Ratio the provider correction it is divided by
	// (shown when above 1).
	Reserve, Margin int
	Ratio           float64
	Total           int
	Layers          []Layer
	// Counting says how the tokens were counted, in words ("" unknown).
	Counting string
	// FirstChanged names the first layer whose bytes differ from the
	// previous request's ("" none, or the first request).
	FirstChanged string
	PrefixHash   string
	// Compacted is the seq of the compaction this request is the first
	// after (0: none).
	Compacted int64
	// Since is a line about what happened after the request that changes
	// the next one (a compaction), "" for none.
	Since string
}

// ContextDrawer shows a Context layer by layer.
type ContextDrawer struct {
	th            *theme.Theme
	ctx           Context
	set           bool
	width, height int
	offset        int
}

// NewContext returns a context drawer in its empty state.
func NewContext(opt Options) *ContextDrawer {
	return &ContextDrawer{th: themeOf(opt)}
}

// SetContext shows the context of a (newer) model request.
func (d *ContextDrawer) SetContext(c Context) {
	d.ctx, d.set = c, true
	d.offset = 0
}

// SetSize sets the box's width and the most rows it may take (0: as many
// as it needs).
func (d *ContextDrawer) SetSize(width, height int) { d.width, d.height = width, height }

// Update scrolls (up/down, pgup/pgdn, home/end, the wheel) and closes on
// esc with a CloseMsg.
func (d *ContextDrawer) Update(msg tea.Msg) (*ContextDrawer, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.KeyPressMsg:
		page := max(1, d.bodyRows(len(d.body()))-1)
		switch msg.String() {
		case "esc", "q":
			return d, func() tea.Msg { return CloseMsg{Which: ContextDrawerID} }
		case "up", "k":
			d.offset--
		case "down", "j":
			d.offset++
		case "pgup":
			d.offset -= page
		case "pgdown", "space":
			d.offset += page
		case "home":
			d.offset = 0
		case "end":
			d.offset = len(d.body())
		}
	case tea.MouseWheelMsg:
		switch msg.Button {
		case tea.MouseWheelUp:
			d.offset -= 3
		case tea.MouseWheelDown:
			d.offset += 3
		}
	}
	body := d.body()
	d.offset = min(max(0, d.offset), max(0, len(body)-d.bodyRows(len(body))))
	return d, nil
}

func (d *ContextDrawer) empty() bool {
	return !d.set || (len(d.ctx.Layers) == 0 && d.ctx.Total == 0)
}

// denominator is what a share is of, and its name.
func (d *ContextDrawer) denominator() (int, string) {
	c := d.ctx
	switch {
	case c.Window > 0:
		return c.Window, "of the " + textutil.Count(c.Window) + "-token window"
	case c.Budget > 0:
		return c.Budget, "of the " + textutil.Count(c.Budget) + "-token budget (window unknown)"
	case c.Total > 0:
		return c.Total, "of this request (window unknown)"
	}
	return 0, ""
}

func share(n, of int) float64 {
	if of <= 0 {
		return 0
	}
	return float64(n) / float64(of)
}

func pct(f float64) string { return fmt.Sprintf("%.1f%%", f*100) }

// bar draws f (0..1) in w cells with eighth blocks; anything above zero
// shows at least a sliver, anything over 1 fills the bar.
func bar(f float64, w int) (filled, rest string) {
	if w <= 0 {
		return "", ""
	}
	eighths := int(f*float64(w*8) + 0.5)
	if f > 0 && eighths == 0 {
		eighths = 1
	}
	eighths = min(eighths, w*8)
	full, part := eighths/8, eighths%8
	filled = strings.Repeat("█", full)
	cells := full
	if part > 0 {
		filled += string([]rune("▏▎▍▌▋▊▉")[part-1])
		cells++
	}
	return filled, strings.Repeat("░", w-cells)
}

// columns are the table's widths for a content width (0: the column is
// not shown).
type columns struct{ name, budget, tokens, items, bar int }

func (d *ContextDrawer) columns(cw int) columns {
	c := columns{name: 5, budget: 6, tokens: 6, items: 5}
	for _, l := range d.ctx.Layers {
		c.name = max(c.name, ansi.StringWidth(layerName(l)))
		c.tokens = max(c.tokens, len(textutil.Count(l.Tokens)))
		c.budget = max(c.budget, len(textutil.Count(l.Budget)))
	}
	c.tokens = max(c.tokens, len(textutil.Count(d.ctx.Total)), len(textutil.Count(d.ctx.Window)))
	c.budget = max(c.budget, len(textutil.Count(d.ctx.Budget)))
	c.name = min(c.name, 28)
	fixed := func() int {
		n := c.name + 1 + c.tokens + 1 + 6
		if c.budget > 0 {
			n += c.budget + 1
		}
		if c.items > 0 {
			n += c.items + 1
		}
		return n
	}
	// on a narrow screen the bar says more than the budget and the items
	if cw-fixed()-2 < 12 {
		c.budget = 0
	}
	if cw-fixed()-2 < 6 {
		c.items = 0
	}
	for cw-fixed()-2 < 8 && c.name > 12 {
		c.name--
	}
	for cw-fixed() < 0 && c.name > 4 {
		c.name--
	}
	c.bar = min(50, cw-fixed()-2)
	if c.bar < 4 {
		c.bar = 0
	}
	return c
}

func layerName(l Layer) string {
	n := termtext.OneLine(l.Name)
	if l.ID == "" || l.ID == l.Name {
		return n
	}
	return l.ID + " " + n
}

func (d *ContextDrawer) row(c columns, name, budget, tokens, sh, items string, f float64, barStyle func(...string) string) string {
	th := d.th
	s := textutil.Fit(name, c.name)
	if c.budget > 0 {
		s += " " + textutil.PadLeft(budget, c.budget)
	}
	s += " " + textutil.PadLeft(tokens, c.tokens) + " " + textutil.PadLeft(sh, 6)
	if c.items > 0 {
		s += " " + textutil.PadLeft(items, c.items)
	}
	s = th.Text.Render(s)
	if c.bar > 0 && f >= 0 {
		filled, rest := bar(f, c.bar)
		s += "  " + barStyle(filled) + th.Faint.Render(rest)
	}
	return s
}

// header is the title, the totals and the table's column names.
func (d *ContextDrawer) header(cw int) []string {
	th := d.th
	title := th.Title.Render("Context")
	if d.set && d.ctx.Step > 0 {
		title += th.Dim.Render(fmt.Sprintf(" · last model request, step %d", d.ctx.Step))
	}
	rows := []string{textutil.Spread(title, th.Faint.Render("esc close"), cw)}
	if d.empty() {
		return rows
	}
	of, name := d.denominator()
	sum := textutil.Count(d.ctx.Total) + " tokens"
	if of > 0 {
		sum += " · " + pct(share(d.ctx.Total, of)) + " " + name
	}
	if d.ctx.Budget > 0 && d.ctx.Window > 0 {
		sum += fmt.Sprintf(" · budget %s (%s used)", textutil.Count(d.ctx.Budget), pct(share(d.ctx.Total, d.ctx.Budget)))
	}
	rows = append(rows, wrapped(th.Dim.Render, sum, cw)...)
	if cw >= narrowWidth {
		rows = append(rows, d.accounting(cw)...)
	}
	c := d.ctx
	if c.Since != "" {
		rows = append(rows, wrapped(th.InfoText.Render, c.Since, cw)...)
	}
	cols := d.columns(cw)
	head := textutil.Fit("layer", cols.name)
	if cols.budget > 0 {
		head += " " + textutil.PadLeft("budget", cols.budget)
	}
	head += " " + textutil.PadLeft("tokens", cols.tokens) + " " + textutil.PadLeft("share", 6)
	if cols.items > 0 {
		head += " " + textutil.PadLeft("items", cols.items)
	}
	return append(rows, th.Faint.Render(strings.Repeat("─", cw)), th.Dim.Render(head))
}

// narrowWidth is the content width under which the budget's arithmetic
// and the counting scroll with the layers instead of being pinned above.
const narrowWidth = 60

// accounting is how the budget was reached and how the tokens counted.
func (d *ContextDrawer) accounting(cw int) []string {
	th, c := d.th, d.ctx
	var rows []string
	if c.Window > 0 && (c.Reserve > 0 || c.Margin > 0) {
		calc := fmt.Sprintf("window %s − reserve %s − margin %s", textutil.Count(c.Window), textutil.Count(c.Reserve), textutil.Count(c.Margin))
		if c.Ratio > 1 {
			calc = fmt.Sprintf("(%s) ÷ provider ratio %.2f", calc, c.Ratio)
		}
		rows = append(rows, wrapped(th.Dim.Render, "budget = "+calc, cw)...)
	}
	if c.Counting != "" {
		rows = append(rows, wrapped(th.Dim.Render, "counted: "+c.Counting, cw)...)
	}
	return rows
}

// wrapped is s wrapped at width, each row styled.
func wrapped(style func(...string) string, s string, width int) []string {
	var rows []string
	for _, l := range textutil.Wrap(s, width) {
		rows = append(rows, style(l))
	}
	return rows
}

// indented is s wrapped under a lead: the first row starts with first, the
// others with as many spaces.
func indented(style func(...string) string, first, s string, width int) []string {
	pad := strings.Repeat(" ", ansi.StringWidth(first))
	var rows []string
	for i, w := range textutil.Wrap(termtext.OneLine(s), max(1, width-len(pad))) {
		lead := pad
		if i == 0 {
			lead = first
		}
		rows = append(rows, style(lead+w))
	}
	return rows
}

// body is a row per layer, with its note and a row per item it did not
// send verbatim (the reason, what, the tokens before and after).
func (d *ContextDrawer) body() []string {
	th := d.th
	cw := contentWidth(th, d.width)
	if d.empty() {
		return []string{
			th.Text.Render("no model request yet"),
			th.Faint.Render(textutil.Shorten("the layers of the next request's context show here", cw)),
		}
	}
	c := d.columns(cw)
	of, _ := d.denominator()
	var rows []string
	for _, l := range d.ctx.Layers {
		budget := "—"
		if l.Budget > 0 {
			budget = textutil.Count(l.Budget)
		}
		rows = append(rows, d.row(c, layerName(l), budget, textutil.Count(l.Tokens), pct(share(l.Tokens, of)), textutil.Count(l.Items), share(l.Tokens, of), th.InfoText.Render))
		if l.Note != "" {
			rows = append(rows, indented(th.Faint.Render, "    ", l.Note, cw)...)
		}
		for _, cut := range l.Cuts {
			line := cut.Reason + ": " + cut.What + " (" + textutil.Count(cut.Before) + " → " + textutil.Count(cut.After) + ")"
			rows = append(rows, indented(th.Dim.Render, "  − ", line, cw)...)
		}
	}
	// what the request shares with the one before it
	ctx := d.ctx
	var facts []string
	if ctx.FirstChanged != "" {
		facts = append(facts, "first layer changed since the previous request: "+ctx.FirstChanged)
	}
	if ctx.Compacted > 0 {
		facts = append(facts, fmt.Sprintf("compacted before this request (seq %d)", ctx.Compacted))
	}
	if ctx.PrefixHash != "" {
		facts = append(facts, "prefix hash (tools, L1, L5a): "+ctx.PrefixHash)
	}
	var acc []string
	if cw < narrowWidth {
		acc = d.accounting(cw)
	}
	if len(facts)+len(acc) > 0 {
		rows = append(rows, "")
		rows = append(rows, acc...)
		for _, f := range facts {
			rows = append(rows, indented(th.Faint.Render, "", f, cw)...)
		}
	}
	return rows
}

// footer is the total, what is left of the window, and the keys.
func (d *ContextDrawer) footer(cw int, scroll string) []string {
	th := d.th
	rows := []string{th.Faint.Render(strings.Repeat("─", cw))}
	if !d.empty() {
		c := d.columns(cw)
		of, _ := d.denominator()
		budget := ""
		if d.ctx.Budget > 0 {
			budget = textutil.Count(d.ctx.Budget)
		}
		rows = append(rows, d.row(c, "total", budget, textutil.Count(d.ctx.Total), pct(share(d.ctx.Total, of)), "", share(d.ctx.Total, of), th.Title.Render))
		if w := d.ctx.Window; w > 0 {
			if left := w - d.ctx.Total; left >= 0 {
				rows = append(rows, d.row(c, "free", "", textutil.Count(left), pct(share(left, w)), "", -1, nil))
			} else {
				rows = append(rows, th.ErrorText.Render(textutil.Fit(fmt.Sprintf("over the window by %s tokens", textutil.Count(-left)), cw)))
			}
		}
	}
	hint := "esc close · shown here only, never sent to the model"
	if scroll != "" {
		hint = "esc close · ↑↓ scroll · " + scroll
	}
	return append(rows, th.Faint.Render(textutil.Shorten(hint, cw)))
}

func (d *ContextDrawer) bodyRows(n int) int {
	if d.height <= 0 {
		return n
	}
	cw := contentWidth(d.th, d.width)
	fixed := d.th.Box.GetVerticalFrameSize() + len(d.header(cw)) + len(d.footer(cw, ""))
	return max(1, min(n, d.height-fixed))
}

// View renders the drawer: header and totals pinned, the layers scrolling.
func (d *ContextDrawer) View() string {
	cw := contentWidth(d.th, d.width)
	body := d.body()
	shown, off := window(body, d.offset, d.bodyRows(len(body)))
	scroll := ""
	if len(shown) < len(body) {
		scroll = fmt.Sprintf("%d–%d of %d", off+1, off+len(shown), len(body))
	}
	rows := append(d.header(cw), shown...)
	rows = append(rows, d.footer(cw, scroll)...)
	return boxed(d.th, boxWidth(d.width), rows)
}
