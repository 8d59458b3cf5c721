package markdown

import (
	"os"
	"slices"
	"strings"
	"testing"

	"agent/internal/tui/theme"
)

func newRenderer(t testing.TB, dark, noColor bool, hook func(string)) *Renderer {
	t.Helper()
	r, err := New(Options{Theme: theme.New(dark, noColor), OnRender: hook})
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func readCorpus(t testing.TB) string {
	t.Helper()
	b, err := os.ReadFile("testdata/corpus.md")
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestStreamEqualsFullRender: streamed in small deltas, the stream's lines
// are exactly (escapes included) those of a full render of the text so far
// — the stable prefix never shows anything else. It compares after every
// delta that ends a line (where boundaries move) and after every ninth
// other one (a full render per comparison is what this test spends).
func TestStreamEqualsFullRender(t *testing.T) {
	corpus := readCorpus(t)
	for _, tc := range []struct {
		name          string
		dark, noColor bool
		width, step   int
	}{
		{"dark-80-by-4", true, false, 80, 4},
		{"light-40-by-3", false, false, 40, 3},
		{"nocolor-120-by-7", true, true, 120, 7},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := newRenderer(t, tc.dark, tc.noColor, nil)
			s := NewStream(r)
			for i, n := 0, 0; i < len(corpus); n++ {
				end := min(i+tc.step, len(corpus))
				if nl := strings.IndexByte(corpus[i:end], '\n'); nl >= 0 {
					end = i + nl + 1 // a delta never crosses a line end
				}
				s.Append(corpus[i:end])
				i = end
				if corpus[end-1] != '\n' && n%9 != 0 && end < len(corpus) {
					continue
				}
				got := s.Lines(tc.width)
				want := r.Render(corpus[:end], tc.width)
				if !slices.Equal(got, want) {
					t.Fatalf("after %d bytes (stable %d), stream and full render differ:\n%s", end, s.Stable(), diffLines(want, got))
				}
			}
			if s.Stable() == 0 {
				t.Fatal("the corpus never reached a stable boundary")
			}
		})
	}
}

func diffLines(want, got []string) string {
	var b strings.Builder
	for i := 0; i < max(len(want), len(got)); i++ {
		var w, g string
		if i < len(want) {
			w = want[i]
		}
		if i < len(got) {
			g = got[i]
		}
		mark := " "
		if w != g {
			mark = "!"
		}
		b.WriteString(mark + " want " + strconvQ(w) + "\n" + mark + " got  " + strconvQ(g) + "\n")
	}
	return b.String()
}

func strconvQ(s string) string { return "\"" + strings.ReplaceAll(s, "\x1b", `\e`) + "\"" }
