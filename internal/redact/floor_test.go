package redact

import (
	"math/rand/v2"
	"testing"
)

// TestRandomFloorQuantiles measures how often a random value falls under
// the entropy floors (randomFloor): the price in recall of turning away
// placeholders. Deterministic (seeded); 20,000 values per alphabet and
// length.
func TestRandomFloorQuantiles(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 9))
	alphabets := []struct{ name, al string }{
		{"digits", alDigit}, {"hex", alHex}, {"a-z0-9", alLD}, {"base62", alBase62}, {"base64", alB64},
	}
	for _, frac := range []struct {
		name string
		f    float64
		max  float64 // allowed share below the floor, for values of 16+ bytes
	}{{"markedFloor", markedFloor, 1e-4}, {"weakFloor", weakFloor, 2e-3}} {
		for _, a := range alphabets {
			if frac.f == weakFloor && a.name == "digits" {
				continue // numbers are never weak-tier secrets
			}
			for _, n := range []int{16, 20, 24, 32, 40, 64, 88} {
				const N = 20000
				miss := 0
				b := make([]byte, n)
				for range N {
					for j := range b {
						b[j] = a.al[rng.IntN(len(a.al))]
					}
					if entropy(b) < randomFloor(b, frac.f) {
						miss++
					}
				}
				if share := float64(miss) / N; share > frac.max {
					t.Errorf("%s, %s, %d bytes: %d of %d random values under the floor (%.5f > %.5f)", frac.name, a.name, n, miss, N, share, frac.max)
				} else if miss > 0 {
					t.Logf("%s, %s, %d bytes: %d of %d under the floor", frac.name, a.name, n, miss, N)
				}
			}
		}
	}
}

// TestFloorsRejectPlaceholders: the floors do turn away values that are
// not random.
func TestFloorsRejectPlaceholders(t *testing.T) {
	for _, v := range []string{"0000000000000000", "aaaaaaaaaaaaaaaaaaaa", "abababababababababab", "1212121212121212", "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"} {
		if entropy([]byte(v)) >= randomFloor([]byte(v), markedFloor) {
			t.Errorf("%q passes the marked floor", v)
		}
	}
}
