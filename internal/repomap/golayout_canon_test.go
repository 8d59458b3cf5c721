package repomap

import (
	"math/rand/v2"
	"strings"
	"testing"
)

// TestCanonMatchesEverySuffix: canon's lookup by last element answers
// what the scan of every known path answered (the longest known path that
// ends the import path after a "/"), for import paths that end known
// paths, nearly do, or share only their last element.
func TestCanonMatchesEverySuffix(t *testing.T) {
	rng := rand.New(rand.NewPCG(6, 24))
	seg := []string{"a", "b", "http", "net", "x", "v2", "internal", "a.b"}
	rpath := func(n int) string {
		var ps []string
		for range n {
			ps = append(ps, seg[rng.IntN(len(seg))])
		}
		return strings.Join(ps, "/")
	}
	l := &goLayout{known: map[string]bool{}, cache: map[string]string{}}
	for range 300 {
		l.known[rpath(1+rng.IntN(4))] = true
	}
	brute := func(p string) string {
		if l.known[p] {
			return p
		}
		best := ""
		for k := range l.known {
			if k != "" && len(k) > len(best) && strings.HasSuffix(p, "/"+k) {
				best = k
			}
		}
		if best == "" {
			return p
		}
		return best
	}
	suffixed := 0
	for range 3000 {
		p := rpath(1 + rng.IntN(6))
		if rng.IntN(4) == 0 {
			p = "example.com/" + p
		}
		want := brute(p)
		if got := l.canon(p); got != want {
			t.Fatalf("canon(%q) = %q, want %q", p, got, want)
		}
		if want != p {
			suffixed++
		}
	}
	if suffixed < 300 {
		t.Fatalf("only %d import paths mapped to a shorter known path: the test does not test the suffix rule", suffixed)
	}
}
