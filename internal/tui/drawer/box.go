package drawer

import (
	"strings"

	"charm.land/lipgloss/v2"
)

// drawBox frames rows (each already exactly the content width) in box's
// border and horizontal padding, w columns wide. It draws what
// box.Width(w).Render would for such rows, without re-measuring and
// re-wrapping every line (the cost of a frame of a long diff).
func drawBox(box lipgloss.Style, w int, rows []string) string {
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
