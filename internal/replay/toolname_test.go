package replay

import (
	"math/rand"
	"regexp"
	"strings"
	"testing"
)

// validToolName accepts exactly what the regexp it replaced accepts.
func TestValidToolNameMatchesItsRegexp(t *testing.T) {
	re := regexp.MustCompile(`^[a-zA-Z0-9_-]{1,64}$`)
	rng := rand.New(rand.NewSource(1))
	const alphabet = "aZ09_-./ \x00é"
	cases := []string{"", "a", "-", strings.Repeat("a", 64), strings.Repeat("a", 65), "a.b", "é"}
	for i := 0; i < 20000; i++ {
		n := rng.Intn(70)
		var b strings.Builder
		for j := 0; j < n; j++ {
			b.WriteByte(alphabet[rng.Intn(len(alphabet))])
		}
		cases = append(cases, b.String())
	}
	for _, c := range cases {
		if validToolName(c) != re.MatchString(c) {
			t.Fatalf("validToolName(%q) = %v, the regexp says %v", c, validToolName(c), !validToolName(c))
		}
	}
}
