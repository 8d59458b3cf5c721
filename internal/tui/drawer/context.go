package drawer

import (
	"fmt"
	"strings"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"agent/internal/tui/textutil"
	"agent/internal/tui/theme"
)

// Layer is one layer of a model request's context.
type Layer struct {
	Name    string
	Tokens  int
	Items   int
	Dropped []string // "reason: what", once the context builder reports them
}

// Context is the context of the last model request.
type Context struct {
	Step   int
	Budget int // the tokens the builder may use (0: unknown)
	Window int // the model's context window (0: unknown)
	Total  int
	Layers []Layer
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

// columns are the table's widths for a content width.
type columns struct{ name, tokens, items, bar int }

func (d *ContextDrawer) columns(cw int) columns {
	c := columns{name: 5, tokens: 6, items: 5}
	for _, l := range d.ctx.Layers {
		c.name = max(c.name, ansi.StringWidth(textutil.OneLine(l.Name)))
		c.tokens = max(c.tokens, len(textutil.Count(l.Tokens)))
	}
	c.tokens = max(c.tokens, len(textutil.Count(d.ctx.Total)), len(textutil.Count(d.ctx.Window)))
	c.name = min(c.name, 18)
	fixed := func() int { return c.name + 1 + c.tokens + 1 + 6 + 1 + c.items }
	if cw-fixed()-2 < 6 {
		c.items = 0 // the bar says more than the item count on a narrow screen
		fixed = func() int { return c.name + 1 + c.tokens + 1 + 6 }
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

func (d *ContextDrawer) row(c columns, name, tokens, sh, items string, f float64, barStyle func(...string) string) string {
	th := d.th
	s := textutil.Fit(name, c.name) + " " + textutil.PadLeft(tokens, c.tokens) + " " + textutil.PadLeft(sh, 6)
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
	for _, l := range textutil.Wrap(sum, cw) {
		rows = append(rows, th.Dim.Render(l))
	}
	c := d.columns(cw)
	head := textutil.Fit("layer", c.name) + " " + textutil.PadLeft("tokens", c.tokens) + " " + textutil.PadLeft("share", 6)
	if c.items > 0 {
		head += " " + textutil.PadLeft("items", c.items)
	}
	return append(rows, th.Faint.Render(strings.Repeat("─", cw)), th.Dim.Render(head))
}

// body is a row per layer and a row per dropped item under its layer.
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
		rows = append(rows, d.row(c, textutil.OneLine(l.Name), textutil.Count(l.Tokens), pct(share(l.Tokens, of)), textutil.Count(l.Items), share(l.Tokens, of), th.InfoText.Render))
		for _, drop := range l.Dropped {
			for i, w := range textutil.Wrap(textutil.OneLine(drop), max(1, cw-12)) {
				lead := "            "
				if i == 0 {
					lead = "  − dropped "
				}
				rows = append(rows, th.Dim.Render(lead+w))
			}
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
		rows = append(rows, d.row(c, "total", textutil.Count(d.ctx.Total), pct(share(d.ctx.Total, of)), "", share(d.ctx.Total, of), th.Title.Render))
		if w := d.ctx.Window; w > 0 {
			if left := w - d.ctx.Total; left >= 0 {
				rows = append(rows, d.row(c, "free", textutil.Count(left), pct(share(left, w)), "", -1, nil))
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
