package statusbar

import (
	"testing"

	"agent/internal/tui/theme"
)

// BenchmarkRender is the bar of one frame at 120 columns.
func BenchmarkRender(b *testing.B) {
	th, s := theme.New(true, false), full()
	for range b.N {
		_ = Render(th, s, 120)
	}
}
