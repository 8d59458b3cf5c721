package composer

import (
	"context"
	"fmt"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"

	"agent/internal/tui/theme"
)

// draft200 is a 200-line draft of realistic line lengths.
func draft200() string {
	var b strings.Builder
	for i := range 200 {
		if i > 0 {
			b.WriteByte('\n')
		}
		fmt.Fprintf(&b, "%3d: the parser should report the line and column of every error it finds, %d", i, i)
	}
	return b.String()
}

// BenchmarkKeystrokeView is one key press (a character typed, or
// backspace, in turn) and the View that follows, on a 200-line draft, with
// the cursor at the end and in the middle.
func BenchmarkKeystrokeView(b *testing.B) {
	for _, where := range []string{"end", "middle"} {
		b.Run("200lines_"+where, func(b *testing.B) {
			m := New(context.Background(), Options{Theme: theme.New(true, false)})
			m.SetSize(120, 16)
			m.SetValue(draft200())
			if where == "middle" {
				m, _ = m.Update(key("ctrl+home"))
				for range 100 {
					m, _ = m.Update(key("down"))
				}
			}
			typeX, back := key("x"), key("backspace")
			b.ReportAllocs()
			b.ResetTimer()
			for i := range b.N {
				k := typeX
				if i%2 == 1 {
					k = back
				}
				m, _ = m.Update(k)
				_ = m.View()
			}
		})
	}
}

// paths20000 is a 20,000-file list shaped like a large Go/TS repository.
func paths20000() []string {
	dirs := []string{"internal", "pkg", "cmd", "web/src/components", "web/src/pages", "docs", "vendor/github.com/acme"}
	var out []string
	for i := 0; len(out) < 20000; i++ {
		d := dirs[i%len(dirs)]
		out = append(out, fmt.Sprintf("%s/module%03d/sub%02d/file_%05d.%s", d, i%500, i%37, i, []string{"go", "ts", "md", "tsx"}[i%4]))
	}
	return out
}

// BenchmarkPathCompletion ranks a 20,000-file list for queries of 1 to 12
// characters (the work of one keystroke in an @ popup).
func BenchmarkPathCompletion(b *testing.B) {
	paths := paths20000()
	for _, q := range []string{"m", "mg", "compo", "sub12file", "web/pages/md"} {
		b.Run(fmt.Sprintf("20000files_%q", q), func(b *testing.B) {
			b.ReportAllocs()
			for range b.N {
				topMatches(q, paths, maxMatches)
			}
		})
	}
}

// BenchmarkPathCompletionKeystroke is a key typed in an open @ popup over
// 20,000 files, through Update and View.
func BenchmarkPathCompletionKeystroke(b *testing.B) {
	m := New(context.Background(), Options{Theme: theme.New(true, false)})
	m.SetSize(120, 16)
	m.SetFiles(FileList{Paths: paths20000()})
	for _, msg := range typed("look at @comp") {
		m, _ = m.Update(msg)
	}
	if !m.PopupOpen() {
		b.Fatal("no popup")
	}
	keys := []tea.Msg{key("o"), key("backspace")}
	b.ReportAllocs()
	b.ResetTimer()
	for i := range b.N {
		m, _ = m.Update(keys[i%2])
		_ = m.View()
	}
}
