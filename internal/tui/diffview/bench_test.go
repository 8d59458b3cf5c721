package diffview

import (
	"fmt"
	"testing"

	"agent/internal/tui/theme"
)

// benchSizes are the diff lengths the frame-time goal names (≤ 16 ms per
// frame at 120×40).
var benchSizes = []int{2000, 10000}

// benchView is a view of an n-line diff at 120×40.
func benchView(b *testing.B, n int, th *theme.Theme, mode Mode) *Model {
	b.Helper()
	patch, _ := genPatch(n)
	m := New(patch, Options{Theme: th, Mode: mode})
	m.SetSize(120, 40)
	if m.Effective() != mode {
		b.Fatalf("the view is %v at 120 columns", m.Effective())
	}
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

// frames runs one key and a frame per iteration, back to the top at the
// end (outside the timer when the rows must be rendered afresh).
func frames(b *testing.B, m *Model, key string, fresh bool) {
	th := m.th
	msg := press(key)
	_ = m.View()
	b.ReportAllocs()
	for b.Loop() {
		if m.AtBottom() {
			b.StopTimer()
			if fresh {
				m.SetTheme(th) // drops every cache
			}
			m.GotoTop()
			_ = m.View()
			b.StartTimer()
		}
		m.Update(msg)
		_ = m.View()
	}
}

// BenchmarkScroll is the frame time of scrolling: one key (j, a row; pgdown,
// a page) and View, at 120×40, unified and split, on rows seen before
// (cached) and on rows never seen (rendered and highlighted with chroma:
// the first pass through a diff).
func BenchmarkScroll(b *testing.B) {
	th := theme.New(true, false)
	for _, n := range benchSizes {
		for _, mode := range []Mode{Unified, Split} {
			for _, key := range []string{"j", "pgdown"} {
				for _, fresh := range []bool{false, true} {
					pass := map[bool]string{false: "cached", true: "first"}[fresh]
					b.Run(fmt.Sprintf("lines=%d/%v/%s/%s", n, mode, key, pass), func(b *testing.B) {
						m := benchView(b, n, th, mode)
						if !fresh {
							warm(m)
						}
						frames(b, m, key, fresh)
					})
				}
			}
		}
	}
}

// BenchmarkScrollNoColor is the cached j step without colour (NO_COLOR).
func BenchmarkScrollNoColor(b *testing.B) {
	m := benchView(b, 2000, theme.New(true, true), Unified)
	warm(m)
	frames(b, m, "j", false)
}

// BenchmarkHunkJump is the n key and its frame: a jump to a part of the
// diff not seen before.
func BenchmarkHunkJump(b *testing.B) {
	for _, n := range benchSizes {
		b.Run(fmt.Sprintf("lines=%d", n), func(b *testing.B) {
			m := benchView(b, n, theme.New(true, false), Unified)
			frames(b, m, "]", true)
		})
	}
}

// BenchmarkFrameUncached is a frame whose 39 rows are all rendered and
// highlighted afresh (the first frame, or a jump to a part not seen).
func BenchmarkFrameUncached(b *testing.B) {
	th := theme.New(true, false)
	for _, mode := range []Mode{Unified, Split} {
		b.Run(mode.String(), func(b *testing.B) {
			m := benchView(b, 2000, th, mode)
			m.ScrollBy(1000)
			b.ReportAllocs()
			for b.Loop() {
				m.SetTheme(th) // drops every cache
				_ = m.View()
			}
		})
	}
}

// BenchmarkOpen parses a patch, lays it out and renders the first frame
// (what opening the checkpoint preview costs).
func BenchmarkOpen(b *testing.B) {
	th := theme.New(true, false)
	hl := NewHighlighter()
	for _, n := range benchSizes {
		b.Run(fmt.Sprintf("lines=%d", n), func(b *testing.B) {
			patch, _ := genPatch(n)
			b.SetBytes(int64(len(patch)))
			b.ReportAllocs()
			for b.Loop() {
				m := New(patch, Options{Theme: th, Highlighter: hl})
				m.SetSize(120, 40)
				_ = m.View()
			}
		})
	}
}

// BenchmarkToggleSplit is the first switch of a 10,000-line diff to the
// split layout (built once, then kept) and its frame.
func BenchmarkToggleSplit(b *testing.B) {
	patch, _ := genPatch(10000)
	th := theme.New(true, false)
	hl := NewHighlighter()
	for b.Loop() {
		b.StopTimer()
		m := New(patch, Options{Theme: th, Highlighter: hl})
		m.SetSize(120, 40)
		b.StartTimer()
		m.Update(press("t"))
		_ = m.View()
	}
}

// BenchmarkCard is a tool card of a 40-line edit preview: served from the
// Renderer's cache (every frame of a transcript) and rendered afresh.
func BenchmarkCard(b *testing.B) {
	patch, _ := genPatch(40)
	th := theme.New(true, false)
	b.Run("cached", func(b *testing.B) {
		r := NewRenderer(Options{Theme: th})
		b.ReportAllocs()
		for b.Loop() {
			_ = r.Card("", patch, 118, 12)
		}
	})
	b.Run("fresh", func(b *testing.B) {
		r := NewRenderer(Options{Theme: th})
		b.ReportAllocs()
		for b.Loop() {
			r.SetTheme(th)
			_ = r.Card("", patch, 118, 12)
		}
	})
}

// BenchmarkRender is the approval prompt's body of a 2,000-line diff: every
// row rendered at once.
func BenchmarkRender(b *testing.B) {
	patch, _ := genPatch(2000)
	r := NewRenderer(Options{Theme: theme.New(true, false)})
	b.ReportAllocs()
	for b.Loop() {
		_ = r.Render(patch, 116, 30)
	}
}
