package acp

import (
	"math/rand"
	"regexp"
	"strings"
	"testing"
)

// safeID accepts exactly what the regexp it replaced accepts.
func TestSafeIDMatchesItsRegexp(t *testing.T) {
	re := regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_.-]{0,127}$`)
	rng := rand.New(rand.NewSource(1))
	const alphabet = "aZ09_.-/ \x00é"
	cases := []string{"", "a", "_a", ".", "a.b-c_d", strings.Repeat("a", 128), strings.Repeat("a", 129), "a/b", "a b", "é"}
	for i := 0; i < 20000; i++ {
		n := rng.Intn(140)
		var b strings.Builder
		for j := 0; j < n; j++ {
			b.WriteByte(alphabet[rng.Intn(len(alphabet))])
		}
		cases = append(cases, b.String())
	}
	for _, c := range cases {
		if safeID(c) != re.MatchString(c) {
			t.Fatalf("safeID(%q) = %v, the regexp says %v", c, safeID(c), !safeID(c))
		}
	}
}
