package textutil_test

import (
	"testing"

	"charm.land/lipgloss/v2"

	"agent/internal/tui/textutil"
	"agent/internal/tui/theme"
)

// Paint styles a line exactly as the style's Render does.
func TestPaintMatchesRender(t *testing.T) {
	for _, th := range []*theme.Theme{theme.New(true, false), theme.New(false, false), theme.New(true, true)} {
		for _, st := range []lipgloss.Style{th.Text, th.Dim, th.HunkLine, th.Add, th.Del, th.AddLine, th.DelLine, th.ErrorText} {
			for _, s := range []string{"+x := 1", "", "-héllo wörld ✓", "x"} {
				if got, want := textutil.Paint(st)(s), st.Render(s); got != want {
					t.Errorf("paint %q = %q, Render %q", s, got, want)
				}
			}
		}
	}
}
