// Package textutil owns the small layout helpers the TUI's panels share:
// wrapping, fitting and cutting to a width, number formatting, and drawing
// a bordered box without re-measuring its rows. Making untrusted text safe
// to show (control, bidi and zero-width characters as escapes) is
// internal/termtext's, shared with the headless commands. It holds no
// state and must not import any other TUI package.
package textutil

import (
	"charm.land/lipgloss/v2"
	"strconv"
	"strings"

	"github.com/charmbracelet/x/ansi"
)

// Wrap breaks plain text into lines of at most width columns (words where
// possible, long words cut), keeping its own newlines. Nothing is dropped.
func Wrap(s string, width int) []string {
	if width < 1 {
		width = 1
	}
	var out []string
	for _, line := range strings.Split(s, "\n") {
		w := ansi.Wrap(line, width, "/")
		out = append(out, strings.Split(w, "\n")...)
	}
	return out
}

// Fit truncates s to width columns with an ellipsis and pads it to width.
func Fit(s string, width int) string {
	if width < 1 {
		return ""
	}
	if ansi.StringWidth(s) > width {
		s = ansi.Truncate(s, width, "…")
	}
	return s + strings.Repeat(" ", max(0, width-ansi.StringWidth(s)))
}

// Shorten cuts plain text to n columns with an ellipsis.
func Shorten(s string, n int) string {
	if ansi.StringWidth(s) <= n {
		return s
	}
	return ansi.Truncate(s, max(0, n), "…")
}

// FirstFit returns the first of alts (longest first) that fits in width
// columns, else the last one; the caller still cuts it to width.
func FirstFit(alts []string, width int) string {
	for _, a := range alts {
		if ansi.StringWidth(a) <= width {
			return a
		}
	}
	if len(alts) == 0 {
		return ""
	}
	return alts[len(alts)-1]
}

// Count formats n with thousands separators: 128,000.
func Count(n int) string {
	s := strconv.Itoa(n)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	var b strings.Builder
	for i, r := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(r)
	}
	if neg {
		return "-" + b.String()
	}
	return b.String()
}

// PadLeft right-aligns s in width columns.
func PadLeft(s string, width int) string {
	return strings.Repeat(" ", max(0, width-ansi.StringWidth(s))) + s
}

// Spread puts left and right on one row of width columns, left cut first.
func Spread(left, right string, width int) string {
	rw := ansi.StringWidth(right)
	if rw >= width {
		return Fit(right, width)
	}
	lw := width - rw - 1
	if ansi.StringWidth(left) > lw {
		left = ansi.Truncate(left, lw, "…")
	}
	return left + strings.Repeat(" ", width-ansi.StringWidth(left)-rw) + right
}

// DrawBox frames rows (each already exactly the content width) in box's
// border and horizontal padding, w columns wide. It draws what
// box.Width(w).Render would for such rows, without re-measuring and
// re-wrapping every line (the cost of a frame of a long diff).
func DrawBox(box lipgloss.Style, w int, rows []string) string {
	b := box.GetBorderStyle()
	st := lipgloss.NewStyle().Foreground(box.GetBorderTopForeground())
	inner := max(0, w-2)
	left := st.Render(b.Left) + strings.Repeat(" ", box.GetPaddingLeft())
	right := strings.Repeat(" ", box.GetPaddingRight()) + st.Render(b.Right)
	var s strings.Builder
	s.WriteString(st.Render(b.TopLeft + strings.Repeat(b.Top, inner) + b.TopRight))
	for _, r := range rows {
		s.WriteByte('\n')
		s.WriteString(left)
		s.WriteString(r)
		s.WriteString(right)
	}
	s.WriteByte('\n')
	s.WriteString(st.Render(b.BottomLeft + strings.Repeat(b.Bottom, inner) + b.BottomRight))
	return s.String()
}

// DiffStyles are the styles PlainDiff paints a diff's lines with: Header
// for the file headers (diff, index, ---, +++), Hunk for @@ lines.
type DiffStyles struct{ Text, Header, Hunk, Add, Del lipgloss.Style }

// PlainDiff renders a unified diff without a diff view: each line in its
// style, every line wrapped at width so nothing is hidden.
func PlainDiff(diff string, width int, st DiffStyles) []string {
	text, dim, hunk, add, del := Paint(st.Text), Paint(st.Header), Paint(st.Hunk), Paint(st.Add), Paint(st.Del)
	var out []string
	for _, l := range strings.Split(strings.TrimRight(diff, "\n"), "\n") {
		style := text
		switch {
		case strings.HasPrefix(l, "+++"), strings.HasPrefix(l, "---"),
			strings.HasPrefix(l, "diff "), strings.HasPrefix(l, "index "):
			style = dim
		case strings.HasPrefix(l, "@@"):
			style = hunk
		case strings.HasPrefix(l, "+"):
			style = add
		case strings.HasPrefix(l, "-"):
			style = del
		}
		if ansi.StringWidth(l) <= width {
			out = append(out, style(l))
			continue
		}
		for _, row := range strings.Split(ansi.Hardwrap(l, max(1, width), true), "\n") {
			out = append(out, style(row))
		}
	}
	return out
}

// Paint returns a function that styles text as style.Render would for a
// single line without tabs, rendering the style once (a diff has thousands
// of lines).
func Paint(style lipgloss.Style) func(string) string {
	const probe = "x"
	r := style.Render(probe)
	i := strings.Index(r, probe)
	if i < 0 {
		return func(s string) string { return style.Render(s) }
	}
	pre, post := r[:i], r[i+len(probe):]
	return func(s string) string { return pre + s + post }
}
