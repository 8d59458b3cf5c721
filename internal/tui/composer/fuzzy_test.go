package composer

import (
	"slices"
	"testing"
)

func TestFuzzyRanking(t *testing.T) {
	cases := []struct {
		query string
		cands []string
		want  []string // best first; candidates not listed do not match
	}{
		{"mg", []string{"internal/migrate/migrate.go", "main.go", "go.mod", "cmd/mage.go"},
			[]string{"main.go", "cmd/mage.go", "internal/migrate/migrate.go"}},
		{"view", []string{"internal/tui/view.go", "internal/tui/preview/view_test.go", "docs/overview.md"},
			[]string{"internal/tui/view.go", "internal/tui/preview/view_test.go", "docs/overview.md"}},
		{"READ", []string{"docs/readme.md", "README.md", "src/reader.go"},
			[]string{"README.md", "src/reader.go", "docs/readme.md"}},
		{"", []string{"b/long/path.go", "a.go", "c.go"}, []string{"a.go", "c.go", "b/long/path.go"}},
		{"zzz", []string{"a.go"}, nil},
	}
	for _, c := range cases {
		t.Run(c.query, func(t *testing.T) {
			var got []string
			for _, s := range topMatches(c.query, c.cands, 10) {
				got = append(got, s.s)
			}
			if !slices.Equal(got, c.want) {
				t.Fatalf("%q ranks %v, want %v", c.query, got, c.want)
			}
		})
	}
}

func TestFuzzyPositions(t *testing.T) {
	if got := matchPositions("mg", "main.go"); !slices.Equal(got, []int{0, 5}) {
		t.Fatalf("positions %v", got)
	}
	// The shortest window is chosen: "ab" in "a-x-ab" matches the last two.
	if got := matchPositions("ab", "a-x-ab"); !slices.Equal(got, []int{4, 5}) {
		t.Fatalf("positions %v", got)
	}
	if got := matchPositions("é", "café.go"); !slices.Equal(got, []int{3}) {
		t.Fatalf("positions %v", got)
	}
}

func TestTopMatchesKeepsTheBestK(t *testing.T) {
	cands := paths20000()
	top := topMatches("file_1234", cands, 5)
	if len(top) != 5 || top[0].s[len(top[0].s)-13:] != "file_01234.md" && top[0].s[len(top[0].s)-12:] != "file_1234.go" {
		t.Logf("top %v", top)
	}
	for i := 1; i < len(top); i++ {
		if better(top[i], top[i-1]) {
			t.Fatalf("not sorted at %d: %v", i, top)
		}
	}
	// The same as sorting everything.
	var all []scored
	f := newFuzzy("file_1234")
	for _, c := range cands {
		if sc, ok := f.match(c, nil); ok {
			all = append(all, scored{s: c, score: sc})
		}
	}
	slices.SortFunc(all, func(a, b scored) int {
		if better(a, b) {
			return -1
		}
		return 1
	})
	for i := range top {
		if top[i].s != all[i].s {
			t.Fatalf("top %d is %s, full sort gives %s", i, top[i].s, all[i].s)
		}
	}
}
