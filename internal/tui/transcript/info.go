package transcript

import (
	"strings"

	"github.com/charmbracelet/x/ansi"

	"agent/internal/termtext"
	"agent/internal/tui/theme"
)

// InfoRow is one row of an Info block: a key and its value, or, with no
// key, a line of its own.
type InfoRow struct {
	Key, Value string
	// Warn draws the row in the warning colour (something the person
	// should know: no git repository, a sandbox that cannot be enforced).
	Warn bool
}

// Info is a block of facts: the session's orientation on the first screen,
// /status. A title, then rows whose keys are aligned.
type Info struct {
	version
	title string
	rows  []InfoRow
}

// NewInfo returns an Info block.
func NewInfo(title string, rows []InfoRow) *Info { return &Info{title: title, rows: rows} }

// Rows are the block's rows.
func (n *Info) Rows() []InfoRow { return n.rows }

// Render draws the title in bold, then each row ("key  value", keys padded
// to the widest), values wrapped to the width under their column.
func (n *Info) Render(ctx Context) []string {
	th, w := ctx.Theme, max(ctx.Width, 1)
	var out []string
	if t := termtext.OneLine(n.title); t != "" {
		out = append(out, ansi.Truncate(th.Title.Render(t), w, "…"))
	}
	kw := 0
	for _, r := range n.rows {
		kw = max(kw, ansi.StringWidth(termtext.OneLine(r.Key)))
	}
	for _, r := range n.rows {
		key := termtext.OneLine(r.Key)
		val := termtext.OneLine(r.Value)
		style := th.Text
		if r.Warn {
			style = th.WarnText
		}
		indent := 2
		prefix := "  "
		if key != "" {
			prefix += th.Dim.Render(key) + strings.Repeat(" ", kw-ansi.StringWidth(key)+2)
			indent += kw + 2
		}
		if r.Warn {
			prefix += style.Bold(true).Render(theme.GlyphInterrupted) + " "
			indent += 2
		}
		room := max(w-indent, 8)
		for i, l := range strings.Split(ansi.Wrap(val, room, " /"), "\n") {
			if i == 0 {
				out = append(out, prefix+style.Render(l))
			} else {
				out = append(out, strings.Repeat(" ", indent)+style.Render(l))
			}
		}
	}
	return out
}

// Lines are every item's lines at the view's width, with the blank line
// between items: the whole transcript, for the terminal's scrollback when
// the session ends.
func (m *Model) Lines() []string {
	if m.width <= 0 {
		return nil
	}
	var out []string
	for i := range m.entries {
		if gap(i) == 1 {
			out = append(out, "")
		}
		out = append(out, m.lines(i)...)
	}
	return out
}
