package diffview

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"agent/internal/tui/theme"
)

// rangeRe reads the status line's "a–b of n".
var rangeRe = regexp.MustCompile(`(\d+)–(\d+) of (\d+)`)

// frame is one screen of a replay, as a person reads it.
type frame struct {
	body         []string // the diff rows, trailing blanks trimmed
	foot         string   // the status line
	from, to, of int
}

// look renders m and checks what must hold on every frame: exactly h
// lines of exactly w columns, a status line that names the rows shown, as
// many rows as the body has.
func look(t *testing.T, m *Model, w, h int, step string) frame {
	t.Helper()
	v := m.View()
	raw := strings.Split(v, "\n")
	if len(raw) != h {
		t.Fatalf("after %s the view has %d lines, want %d", step, len(raw), h)
	}
	for i, l := range raw {
		if got := ansi.StringWidth(l); got != w {
			t.Fatalf("after %s line %d is %d columns, want %d: %q", step, i, got, w, ansi.Strip(l))
		}
	}
	ls := strings.Split(strings.TrimSuffix(screen(v), "\n"), "\n")
	f := frame{body: ls[:h-1], foot: ls[h-1]}
	sm := rangeRe.FindStringSubmatch(f.foot)
	if sm == nil {
		t.Fatalf("after %s the status line %q does not say which rows are shown", step, f.foot)
	}
	f.from, _ = strconv.Atoi(sm[1])
	f.to, _ = strconv.Atoi(sm[2])
	f.of, _ = strconv.Atoi(sm[3])
	if f.to-f.from+1 != h-1 || f.of != m.Rows() {
		t.Fatalf("after %s the status line says %d–%d of %d for %d rows of %d", step, f.from, f.to, f.of, h-1, m.Rows())
	}
	return f
}

// TestReplayScroll2000 drives a 2,000-line diff at 120×40 with the keys a
// person uses, in both layouts, and checks every frame: the height and
// width, rows moving by exactly the step, hunk jumps landing on headers,
// and the last line numbers at the end.
func TestReplayScroll2000(t *testing.T) {
	const w, h, n = 120, 40, 2000
	patch, lastText := genPatch(n)
	if got := strings.Count(patch, "\n"); got != n {
		t.Fatalf("the generated diff has %d lines", got)
	}
	last := genLast(n)
	lastText = displayText(lastText, 4)
	hunks := (n - 4) / 11
	for _, mode := range []Mode{Unified, Split} {
		t.Run(mode.String(), func(t *testing.T) {
			m := New(patch, Options{Theme: theme.New(true, false)})
			m.SetSize(w, h)
			if mode == Split {
				send(t, m, "t")
			}
			if m.Effective() != mode {
				t.Fatalf("the view is %v, want %v", m.Effective(), mode)
			}
			prev := look(t, m, w, h, "opening")
			if prev.from != 1 || !strings.Contains(strings.Join(prev.body, "\n"), "big/gen.go  +362 -362") {
				t.Fatalf("the first screen does not start at the top:\n%s", strings.Join(prev.body, "\n"))
			}
			step := func(key string) frame {
				t.Helper()
				send(t, m, key)
				f := look(t, m, w, h, key)
				return f
			}
			// down moves one row: the second row becomes the first.
			for range 3 {
				f := step("down")
				if f.from != prev.from+1 || f.body[0] != prev.body[1] {
					t.Fatalf("down: rows %d–%d, top %q; before %d–%d, second %q", f.from, f.to, f.body[0], prev.from, prev.to, prev.body[1])
				}
				prev = f
			}
			// pgdown moves a page less one row: the last row becomes the first.
			for range 5 {
				f := step("pgdown")
				if f.from != prev.to || f.body[0] != prev.body[h-2] {
					t.Fatalf("pgdown: top %q (row %d), the last row before was %q (row %d)", f.body[0], f.from, prev.body[h-2], prev.to)
				}
				prev = f
			}
			// n and ] put the next hunk's header at the top, p and [ the one before.
			_, total := m.Hunk()
			if total != hunks {
				t.Fatalf("%d hunks, want %d", total, hunks)
			}
			var heads []string
			for _, k := range []string{"]", "]", "]"} {
				f := step(k)
				if !strings.HasPrefix(f.body[0], "@@ -") || !strings.Contains(f.foot, "hunk ") {
					t.Fatalf("%s: the top is %q, the status line %q", k, f.body[0], f.foot)
				}
				heads = append(heads, f.body[0])
			}
			if heads[0] == heads[1] || heads[1] == heads[2] {
				t.Fatalf("] did not move on: %q", heads)
			}
			for i, k := range []string{"[", "["} {
				if f := step(k); f.body[0] != heads[1-i] {
					t.Fatalf("%s: the top is %q, want %q", k, f.body[0], heads[1-i])
				}
			}
			// end shows the last line with its numbers on the last row.
			f := step("end")
			if f.to != f.of {
				t.Fatalf("end: rows %d–%d of %d", f.from, f.to, f.of)
			}
			end := f.body[h-2]
			wantNum := fmt.Sprintf("%d + ", last)
			if mode == Split {
				wantNum = fmt.Sprintf("│ %d + ", last)
			}
			if !strings.Contains(end, wantNum) || !strings.Contains(end, strings.TrimSpace(lastText)) {
				t.Fatalf("end: the last row is %q, want the line %d (%q)", end, last, lastText)
			}
			// Past the end nothing moves.
			for _, k := range []string{"down", "pgdown", "end"} {
				if g := step(k); g.from != f.from || g.body[h-2] != end {
					t.Fatalf("%s at the end moved the view to %d–%d", k, g.from, g.to)
				}
			}
			// At the end n goes on through the hunks on screen (the status
			// line says which) and stops at the last.
			want := fmt.Sprintf("hunk %d/%d", hunks, hunks)
			for i := 0; !strings.Contains(f.foot, want); i++ {
				if i > 5 {
					t.Fatalf("n at the end never reached the last hunk: %q", f.foot)
				}
				f = step("]")
				if f.body[h-2] != end {
					t.Fatalf("n at the end moved the view to %d–%d", f.from, f.to)
				}
			}
			if g := step("]"); !strings.Contains(g.foot, want) || g.body[h-2] != end {
				t.Fatalf("n past the last hunk: %q", g.foot)
			}
			// p from the end goes up to the header of the hunk at the top.
			f = step("end")
			g := step("[")
			if !strings.HasPrefix(g.body[0], "@@ -") || g.from >= f.from || g.from < f.from-11 {
				t.Fatalf("p from the end (top row %d): the top is %q at row %d", f.from, g.body[0], g.from)
			}
			// pgup goes back a page less one row; home to the first row.
			f = step("end")
			g = step("pgup")
			if g.to != f.from || g.body[h-2] != f.body[0] {
				t.Fatalf("pgup: the last row is %q (row %d), the top before was %q (row %d)", g.body[h-2], g.to, f.body[0], f.from)
			}
			if g := step("home"); g.from != 1 {
				t.Fatalf("home: rows %d–%d", g.from, g.to)
			}
		})
	}
}

// TestShortDiffFillsTheHeight: a diff shorter than the height still gives
// a view of exactly the height, with the fallback notice at its foot.
func TestShortDiffFillsTheHeight(t *testing.T) {
	for _, mode := range []Mode{Unified, Split} {
		m := New("--- a/x.go\n+++ b/x.go\n@@ -1 +1 @@\n-a\n+b\n", Options{Mode: mode})
		m.SetSize(40, 10)
		v := m.View()
		assertWidths(t, v, 40)
		ls := lines(m)
		if len(ls) != 10 || ls[0] != "x.go  +1 -1" || ls[4] != "" {
			t.Fatalf("%v: %d lines: %q", mode, len(ls), ls)
		}
		if foot := ls[9]; (mode == Split) != strings.HasPrefix(foot, "split needs") {
			t.Errorf("%v: the last line is %q", mode, foot)
		}
	}
}
