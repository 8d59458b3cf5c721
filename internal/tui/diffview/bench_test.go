package diffview

import (
	"testing"

	"agent/internal/tui/theme"
)

// benchView is a view of an n-line diff at 120×40 in the dark theme.
func benchView(b *testing.B, n int, th *theme.Theme) *Model {
	b.Helper()
	patch, _ := genPatch(n)
	m := New(patch, Options{Theme: th})
	m.SetSize(120, 40)
	return m
}

// warm scrolls through the whole diff once, so that every row is cached.
func warm(m *Model) {
	for m.GotoTop(); !m.AtBottom(); m.ScrollBy(m.height) {
		_ = m.View()
	}
	_ = m.View()
	m.GotoTop()
}

// scroll is one scroll step down (back to the top at the end) and a frame.
func scroll(m *Model) {
	if m.AtBottom() {
		m.GotoTop()
	} else {
		m.Update(press("j"))
	}
	_ = m.View()
}

// BenchmarkScroll2000 is one scroll step (the j key) and View on a
// 2,000-line diff whose rows have all been seen (rendered rows come from
// the cache; the status line is new each step).
func BenchmarkScroll2000(b *testing.B) {
	for _, tc := range []struct {
		name string
		th   *theme.Theme
	}{{"colour", theme.New(true, false)}, {"nocolor", theme.New(true, true)}} {
		b.Run(tc.name, func(b *testing.B) {
			m := benchView(b, 2000, tc.th)
			warm(m)
			b.ReportAllocs()
			for b.Loop() {
				scroll(m)
			}
		})
	}
}

// BenchmarkScroll20000 is the same step on a diff ten times longer: the
// cost per frame does not grow with the diff.
func BenchmarkScroll20000(b *testing.B) {
	m := benchView(b, 20000, theme.New(true, false))
	warm(m)
	b.ReportAllocs()
	for b.Loop() {
		scroll(m)
	}
}

// BenchmarkScrollFirstPass20000 is a scroll step that brings a row not
// seen before into view: it is rendered and highlighted (chroma) once.
func BenchmarkScrollFirstPass20000(b *testing.B) {
	th := theme.New(true, false)
	m := benchView(b, 20000, th)
	_ = m.View()
	b.ReportAllocs()
	for b.Loop() {
		if m.AtBottom() {
			b.StopTimer()
			m.SetTheme(th) // a fresh cache
			m.GotoTop()
			_ = m.View()
			b.StartTimer()
		}
		m.Update(press("j"))
		_ = m.View()
	}
}

// BenchmarkFrameUncached2000 is a frame whose 39 rows are all rendered
// and highlighted afresh (the first frame, or a jump to a part not seen).
func BenchmarkFrameUncached2000(b *testing.B) {
	th := theme.New(true, false)
	m := benchView(b, 2000, th)
	m.ScrollBy(1000)
	b.ReportAllocs()
	for b.Loop() {
		m.SetTheme(th) // drops every cache
		_ = m.View()
	}
}

// BenchmarkOpen20000 parses a 20,000-line patch, lays it out and renders
// the first frame.
func BenchmarkOpen20000(b *testing.B) {
	patch, _ := genPatch(20000)
	th := theme.New(true, false)
	hl := NewHighlighter()
	b.SetBytes(int64(len(patch)))
	b.ReportAllocs()
	for b.Loop() {
		m := New(patch, Options{Theme: th, Highlighter: hl})
		m.SetSize(120, 40)
		_ = m.View()
	}
}

// BenchmarkToggleSplit20000 is the first switch to the split layout of a
// 20,000-line diff (it is built once, then kept) and its frame.
func BenchmarkToggleSplit20000(b *testing.B) {
	patch, _ := genPatch(20000)
	th := theme.New(true, false)
	hl := NewHighlighter()
	for b.Loop() {
		b.StopTimer()
		m := New(patch, Options{Theme: th, Highlighter: hl})
		m.SetSize(160, 40)
		b.StartTimer()
		m.Update(press("t"))
		_ = m.View()
	}
}
