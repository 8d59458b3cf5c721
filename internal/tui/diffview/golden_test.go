package diffview

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"agent/internal/tui/theme"
	"agent/internal/tui/tuitest"
)

// goldenWidths are the widths the acceptance asks for.
var goldenWidths = []int{40, 80, 120, 200}

func readFixture(t testing.TB, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// screen is what a person sees: the view without its escape codes, each
// line's trailing blanks trimmed (the view pads every row to the width).
func screen(view string) string {
	lines := strings.Split(ansi.Strip(view), "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRight(l, " ")
	}
	return strings.Join(lines, "\n") + "\n"
}

func checkGolden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", "golden", name+".golden")
	if tuitest.Updating() { // -update rewrites the golden files under testdata/golden
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./internal/tui/diffview -run %s -update to write it)", err, t.Name())
	}
	if got != string(want) {
		t.Errorf("%s differs from the golden file (review with -update and git diff):\n--- got\n%s--- want\n%s", name, got, want)
	}
}

// assertWidths checks that every line of the view is exactly w columns.
func assertWidths(t *testing.T, view string, w int) {
	t.Helper()
	for i, l := range strings.Split(view, "\n") {
		if got := ansi.StringWidth(l); got != w {
			t.Errorf("line %d is %d columns wide, want %d: %q", i, got, w, ansi.Strip(l))
		}
	}
}

func TestGolden(t *testing.T) {
	patch := readFixture(t, "mixed.patch")
	for _, mode := range []Mode{Unified, Split} {
		for _, w := range goldenWidths {
			for _, dark := range []bool{true, false} {
				shade := map[bool]string{true: "dark", false: "light"}[dark]
				name := fmt.Sprintf("%s-%d-%s", mode, w, shade)
				t.Run(name, func(t *testing.T) {
					m := New(patch, Options{Theme: theme.New(dark, false), Mode: mode})
					if err := m.Err(); err != nil {
						t.Fatal(err)
					}
					m.SetSize(w, 0)
					v := m.View()
					assertWidths(t, v, w)
					checkGolden(t, name, screen(v))
				})
			}
		}
	}
}
