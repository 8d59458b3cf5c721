package approve

import (
	"testing"

	"agent/internal/tui/theme"
	"agent/internal/tui/tuitest"
)

// BenchmarkScrollLongDiff is one frame of scrolling a 2,000-line diff: a
// key and the view (the body is rendered once per width and cached).
func BenchmarkScrollLongDiff(b *testing.B) {
	req := editReq("big")
	req.Diff = longDiff(1000)
	m := New(Options{Theme: theme.New(true, false), Guard: -1})
	m.SetSize(120, 40)
	m.Push(req)
	down := tuitest.Key("down")
	b.ResetTimer()
	for range b.N {
		m.Update(down)
		_ = m.View()
	}
}

// BenchmarkOpenLongDiff is the first frame of a request with a 2,000-line
// diff (the body rendered from scratch).
func BenchmarkOpenLongDiff(b *testing.B) {
	req := editReq("big")
	req.Diff = longDiff(1000)
	th := theme.New(true, false)
	for range b.N {
		m := New(Options{Theme: th, Guard: -1})
		m.SetSize(120, 40)
		m.Push(req)
		_ = m.View()
	}
}
