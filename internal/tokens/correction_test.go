package tokens

import (
	"encoding/json"
	"math"
	"strings"
	"testing"
)

func TestCorrectionFold(t *testing.T) {
	tests := []struct {
		name        string
		samples     [][2]int // reported, counted
		wantRatio   float64
		wantSamples int
		wantUsed    []bool
	}{
		{"no samples", nil, 0, 0, nil},
		{"first sample sets the ratio", [][2]int{{1100, 1000}}, 1.1, 1, []bool{true}},
		{"zero reported is ignored", [][2]int{{0, 1000}}, 0, 0, []bool{false}},
		{"zero counted is ignored", [][2]int{{1000, 0}}, 0, 0, []bool{false}},
		{"negative is ignored", [][2]int{{-5, 1000}, {1000, -1}}, 0, 0, []bool{false, false}},
		{"ignored samples leave the ratio", [][2]int{{1200, 1000}, {0, 900}, {900, 0}}, 1.2, 1, []bool{true, false, false}},
		{"a high sample is clamped", [][2]int{{10000, 1000}}, MaxRatio, 1, []bool{true}},
		{"a low sample is clamped", [][2]int{{10, 1000}}, MinRatio, 1, []bool{true}},
		{"later samples move by Smoothing", [][2]int{{1000, 1000}, {2000, 1000}}, 1 + Smoothing*(2-1), 2, []bool{true, true}},
		{"a clamped sample moves no further than the bound", [][2]int{{1000, 1000}, {100000, 1000}}, 1 + Smoothing*(MaxRatio-1), 2, []bool{true, true}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := Correction{Model: "gpt-4o"}
			for i, s := range tt.samples {
				if used := c.Fold(s[0], s[1]); used != tt.wantUsed[i] {
					t.Errorf("Fold(%d, %d) = %v, want %v", s[0], s[1], used, tt.wantUsed[i])
				}
			}
			if math.Abs(c.Ratio-tt.wantRatio) > 1e-12 || c.Samples != tt.wantSamples {
				t.Errorf("ratio %v after %d samples, want %v after %d", c.Ratio, c.Samples, tt.wantRatio, tt.wantSamples)
			}
			if err := c.Validate(); err != nil {
				t.Errorf("Validate: %v", err)
			}
		})
	}
}

// TestCorrectionConverges: after the provider's ratio moves, the moving
// ratio follows it to within 1 % in a dozen samples, and stays in bounds.
func TestCorrectionConverges(t *testing.T) {
	for _, target := range []float64{0.6, 0.95, 1.07, 1.3, 1.9} {
		c := Correction{}
		c.Fold(1000, 1000) // start at 1.0
		n := 0
		for math.Abs(c.Ratio-target) > 0.01*target {
			if n++; n > 20 {
				t.Fatalf("target %v: ratio %v after 20 samples", target, c.Ratio)
			}
			counted := 5000 + 37*n // requests of varying size
			c.Fold(int(math.Round(target*float64(counted))), counted)
			if c.Ratio < MinRatio || c.Ratio > MaxRatio {
				t.Fatalf("ratio %v out of bounds", c.Ratio)
			}
		}
		if n > 16 {
			t.Errorf("target %v: %d samples to converge, want at most 16", target, n)
		}
	}
}

func TestCorrectionApply(t *testing.T) {
	tests := []struct {
		c    Correction
		n    int
		want int
	}{
		{Correction{}, 1000, 1000},                       // no sample: the count itself
		{Correction{Ratio: 1.5}, 1000, 1000},             // a ratio without samples is not applied
		{Correction{Ratio: 1.1, Samples: 3}, 1000, 1100}, // corrected
		{Correction{Ratio: 1.1, Samples: 3}, 5, 6},       // rounded to nearest (5.5 → 6)
		{Correction{Ratio: 0.9, Samples: 1}, 0, 0},
		{Correction{Ratio: 0.9, Samples: 1}, -3, -3},
		{Correction{Ratio: 7, Samples: 2}, 1000, 1000}, // out of range: not applied
	}
	for _, tt := range tests {
		if got := tt.c.Apply(tt.n); got != tt.want {
			t.Errorf("%+v.Apply(%d) = %d, want %d", tt.c, tt.n, got, tt.want)
		}
		if tt.c.Corrected() != (tt.c.Samples > 0 && tt.c.Ratio >= MinRatio && tt.c.Ratio <= MaxRatio) {
			t.Errorf("%+v.Corrected() = %v", tt.c, tt.c.Corrected())
		}
	}
}

// TestCorrectionJournal: a Correction survives JSON (the journal's form),
// and Validate refuses a corrupted one with a message naming the fix.
func TestCorrectionJournal(t *testing.T) {
	c := Correction{Model: "gpt-4.1"}
	c.Fold(1234, 1000)
	c.Fold(1300, 1000)
	b, err := json.Marshal(c)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), `"model":"gpt-4.1"`) || !strings.Contains(string(b), `"samples":2`) {
		t.Errorf("JSON %s lacks its fields", b)
	}
	var back Correction
	if err := json.Unmarshal(b, &back); err != nil || back != c || back.Validate() != nil {
		t.Errorf("read back %+v (%v), want %+v", back, err, c)
	}
	for _, bad := range []Correction{
		{Model: "m", Ratio: 1.2, Samples: -1},
		{Model: "m", Ratio: 1.2, Samples: 0},
		{Model: "m", Ratio: 9, Samples: 4},
		{Model: "m", Ratio: 0.1, Samples: 4},
		{Model: "m", Ratio: math.NaN(), Samples: 4},
	} {
		err := bad.Validate()
		if err == nil || !strings.Contains(err.Error(), `"m"`) {
			t.Errorf("Validate(%+v) = %v, want an error naming the model", bad, err)
		}
	}
	// A corrupted ratio is replaced by the next good sample, not averaged.
	bad := Correction{Ratio: 50, Samples: 3}
	bad.Fold(1100, 1000)
	if bad.Ratio != 1.1 {
		t.Errorf("after a good sample a corrupted ratio is %v, want 1.1", bad.Ratio)
	}
}
