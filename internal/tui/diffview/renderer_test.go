package diffview

import (
	"fmt"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"agent/internal/tui/theme"
)

// toolPreview is what edit_file's preview prints for a small change.
const toolPreview = "internal/tools/fileio.go: +3 -1 lines\n@@ -58 +58 @@\n \n-// diffMaxLines bounds the diff shown after a write.\n+// diffMaxLines bounds the diff shown after a write; a longer one\n+// ends with a note saying how many lines were left out.\n+// The approval prompt shows the whole preview.\n const diffMaxLines = 40\n[... 12 more diff lines]\n"

// screenLines is screen(s) split into lines.
func screenLines(s string) []string {
	return strings.Split(strings.TrimSuffix(screen(s), "\n"), "\n")
}

// TestToolPreviewGolden is a tool card (Card, 5 rows) and the approval
// prompt's body (Render) of a tool's preview at every golden width.
func TestToolPreviewGolden(t *testing.T) {
	r := NewRenderer(Options{Theme: theme.New(true, false)})
	for _, w := range goldenWidths {
		card := r.Card("", toolPreview, w, 5)
		assertWidths(t, card, w)
		checkGolden(t, fmt.Sprintf("tool-preview-compact-%d", w), screen(card))
		full := r.Render(toolPreview, w, 3)
		assertWidths(t, full, w)
		checkGolden(t, fmt.Sprintf("tool-preview-%d", w), screen(full))
	}
}

func TestCardFolds(t *testing.T) {
	r := NewRenderer(Options{})
	all := screenLines(r.Card("", toolPreview, 80, 0))
	if len(all) != 9 || strings.Contains(strings.Join(all, "\n"), "more line") {
		t.Fatalf("maxLines 0 does not show every row:\n%s", strings.Join(all, "\n"))
	}
	for _, tc := range []struct {
		max  int
		fold string
	}{{1, "… 8 more lines"}, {8, "… 1 more line"}, {9, ""}, {50, ""}} {
		got := screenLines(r.Card("", toolPreview, 80, tc.max))
		rows := min(tc.max, len(all))
		want := append([]string{}, all[:rows]...)
		if tc.fold != "" {
			want = append(want, tc.fold)
		}
		if strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Errorf("max %d:\n got %q\nwant %q", tc.max, got, want)
		}
	}
	if r.Card("", toolPreview, 0, 5) != "" {
		t.Error("a card of width 0 is not empty")
	}
}

// TestCardOfABareHunk is the card the root builds from edit_file's result,
// whose first line (with the path and the counts) it shows in the card's
// own header: the diff names no file, so the header row gives the counts,
// and the path the caller passes picks the highlighter.
func TestCardOfABareHunk(t *testing.T) {
	th := theme.New(true, false)
	r := NewRenderer(Options{Theme: th})
	diff := "@@ -4 +4 @@\n import os\n-def a(): pass\n+def b(): pass\n"
	ls := screenLines(r.Card("", diff, 60, 6))
	if ls[0] != "+1 -1" || ls[1] != "@@ -4 +4 @@" || ls[3] != "5   - def a(): pass" || ls[4] != "  5 + def b(): pass" {
		t.Fatalf("the card reads:\n%s", strings.Join(ls, "\n"))
	}
	keyword := "\x1b[0;" + strings.Join(ansi.Style{}.ForegroundColor(th.Accent).BackgroundColor(th.AddBg), ";") + "mdef"
	if strings.Contains(r.Card("", diff, 60, 6), keyword) {
		t.Error("a card without a path is highlighted")
	}
	named := r.Card("pkg/x.py", diff, 60, 6)
	if !strings.Contains(named, keyword) {
		t.Error("the path does not pick the Python highlighter")
	}
	if got := screenLines(named)[0]; got != "pkg/x.py  +1 -1" {
		t.Errorf("the header of a named card is %q", got)
	}
}

func TestCardTexts(t *testing.T) {
	r := NewRenderer(Options{})
	before := "one\ntwo\nthree\nfour\nfive\nsix\nseven\neight\nnine\nten\n"
	after := strings.Replace(strings.Replace(before, "two", "TWO", 1), "nine", "NINE", 1)
	ls := screenLines(r.CardTexts(Texts{Path: "n.txt", Before: before, After: after}, 40, 6))
	want := []string{"n.txt  +2 -2", "@@ -1,10 +1,10 @@", " 1  1   one", " 2    - two", "    2 + TWO", " 3  3   three", "… 8 more lines"}
	if strings.Join(ls, "\n") != strings.Join(want, "\n") {
		t.Fatalf("got\n%s\nwant\n%s", strings.Join(ls, "\n"), strings.Join(want, "\n"))
	}
	created := screenLines(r.CardTexts(Texts{Path: "new.go", After: "package x\n", Created: true}, 40, 6))
	if created[0] != "new.go  new file · +1 -0" || created[2] != "  1 + package x" {
		t.Errorf("a created file's card: %q", created)
	}
}

// TestCardCacheFollowsTheTheme: a cached card is not served in the old
// colours after SetTheme, and the cache stays bounded.
func TestCardCacheFollowsTheTheme(t *testing.T) {
	r := NewRenderer(Options{Theme: theme.New(true, false)})
	first := r.Card("", toolPreview, 80, 5)
	if _, ok := hasColour(first); !ok || r.Card("", toolPreview, 80, 5) != first {
		t.Fatal("the colour card is not coloured or not stable")
	}
	r.SetTheme(theme.New(true, true))
	if seq, ok := hasColour(r.Card("", toolPreview, 80, 5)); ok {
		t.Fatalf("after SetTheme(NoColor) the card sets \\x1b[%sm", seq)
	}
	for i := range 3 * cacheEntries {
		r.Card("", fmt.Sprintf("@@ -%d +%d @@\n-a\n+b\n", i+1, i+1), 40, 3)
	}
	if n := len(r.cards); n > cacheEntries || len(r.order) != n {
		t.Errorf("the cache holds %d cards (%d in order), at most %d", n, len(r.order), cacheEntries)
	}
	// Big cards: the cache stays within its bytes, and counts them right.
	big, _ := genPatch(3000)
	for i := range 40 {
		r.Card(fmt.Sprint(i), big, 120, 0)
	}
	sum := 0
	for k, v := range r.cards {
		sum += k.size() + len(v)
	}
	if sum != r.bytes || r.bytes > cacheBytes || len(r.cards) == 0 {
		t.Errorf("the cache holds %d bytes in %d cards and counts %d, at most %d", sum, len(r.cards), r.bytes, cacheBytes)
	}
}

// TestRenderIsTheWholeDiff: the approval prompt's hook returns every row
// at its natural height whatever the height hint, without a status line.
func TestRenderIsTheWholeDiff(t *testing.T) {
	patch := readFixture(t, "mixed.patch")
	r := NewRenderer(Options{Theme: theme.New(false, false)})
	m := New(patch, Options{NoFooter: true})
	for _, w := range []int{30, 80, 160} {
		m.SetSize(w, 0)
		for _, h := range []int{1, 10, 1000} {
			out := r.Render(patch, w, h)
			assertWidths(t, out, w)
			if got := strings.Count(out, "\n") + 1; got != m.ContentHeight() {
				t.Errorf("width %d, height %d: %d lines, want %d", w, h, got, m.ContentHeight())
			}
			if strings.Contains(screen(out), "of ") && strings.Contains(screen(out), "unified") {
				t.Errorf("width %d: a status line in the prompt's body", w)
			}
		}
	}
	if r.Render(patch, 0, 10) != "" {
		t.Error("width 0 renders something")
	}
	split := NewRenderer(Options{Mode: Split})
	if out := split.Render(patch, 160, 10); !strings.Contains(out, " │ ") {
		t.Error("a Split renderer does not show split at 160 columns")
	}
	if out := split.Render(patch, 40, 10); strings.Contains(out, " │ ") || strings.Contains(out, "split needs") {
		t.Error("a Split renderer at 40 columns is not plainly unified")
	}
	bad := r.Render("@@ nonsense @@\n+x\n", 60, 10)
	if ls := screenLines(bad); !strings.HasPrefix(ls[0], "cannot read this as a diff") || ls[2] != "+x" {
		t.Errorf("an unreadable diff renders as %q", ls)
	}
}
