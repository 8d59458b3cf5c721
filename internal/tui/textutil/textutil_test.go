package textutil

import (
	"testing"

	"github.com/charmbracelet/x/ansi"
)

func TestFitAndSpread(t *testing.T) {
	for _, w := range []int{1, 5, 12, 40} {
		if got := ansi.StringWidth(Fit("a long line of text to fit", w)); got != w {
			t.Errorf("Fit to %d gave %d columns", w, got)
		}
		if got := ansi.StringWidth(Spread("left side text", "right", w)); got != w {
			t.Errorf("Spread to %d gave %d columns", w, got)
		}
	}
	if got := Count(-1234567); got != "-1,234,567" {
		t.Errorf("Count = %q", got)
	}
}
