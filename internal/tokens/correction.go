package tokens

import (
	"fmt"
	"math"
)

// Bounds and weight of a Correction's moving ratio.
const (
	// MinRatio and MaxRatio clamp every sample and the ratio itself: a
	// provider that counts half or twice what the encoder counts is
	// misreporting or counting something else (images, a hidden system
	// prompt), and one wild sample must not halve or double every budget.
	MinRatio = 0.5
	MaxRatio = 2.0
	// Smoothing is the weight of a new sample in the exponential moving
	// average: after n samples of a new steady ratio, (1-Smoothing)^n of the
	// old one is left (under 5 % after 11).
	Smoothing = 0.25
)

// Correction is the moving ratio, for one model, of the prompt tokens the
// provider reports to the tokens this package counted for the same
// requests. The encoder's count of the messages misses the provider's
// per-message framing and its rendering of tool schemas; the ratio learns
// that difference from the provider's own usage figures.
//
// It is a value with exported fields so that the loop can journal it and a
// resumed run can fold it back; nothing here journals it. Meant use:
//
//  1. The loop keeps one Correction per model (the zero value with Model
//     set), carried in its State and journaled with the model's usage.
//  2. When a response reports usage, the loop calls
//     Fold(usage.PromptTokens, counted), counted being the total the context
//     builder counted for that request, and journals the result.
//  3. The context builder budgets with Apply(count); its report shows the
//     measured count (Counter.Count), the corrected one and Samples, so a
//     reader sees whether a figure is the encoder's, corrected, or (with no
//     Counter) estimated.
//  4. A Correction read back from a journal is checked with Validate before
//     use.
type Correction struct {
	Model string `json:"model"`
	// Ratio is reported/counted, within [MinRatio, MaxRatio]; 0 until the
	// first sample, when Apply leaves counts as they are.
	Ratio float64 `json:"ratio"`
	// Samples is how many samples have been folded in.
	Samples int `json:"samples"`
}

// Fold adds one request's sample: reported is the provider's prompt-token
// figure and counted is this package's count of the same request. A sample
// with either side zero or negative (a provider that reports no usage, an
// empty request) is ignored and Fold returns false. The first sample sets
// the ratio; later ones move it by Smoothing.
func (c *Correction) Fold(reported, counted int) bool {
	if reported <= 0 || counted <= 0 {
		return false
	}
	sample := clampRatio(float64(reported) / float64(counted))
	if c.Samples <= 0 || !c.inRange() {
		c.Ratio = sample
	} else {
		c.Ratio = clampRatio(c.Ratio + Smoothing*(sample-c.Ratio))
	}
	c.Samples++
	return true
}

// Apply returns n corrected by the ratio, rounded to the nearest token; n
// itself before any sample (or for n ≤ 0).
func (c Correction) Apply(n int) int {
	if n <= 0 || c.Samples <= 0 || !c.inRange() {
		return n
	}
	return int(math.Round(float64(n) * c.Ratio))
}

// Corrected reports whether Apply changes anything: a sample has been folded.
func (c Correction) Corrected() bool { return c.Samples > 0 && c.inRange() }

// Validate checks a Correction read back from a journal: a ratio of 0 with
// no samples, or one within [MinRatio, MaxRatio] with some.
func (c Correction) Validate() error {
	switch {
	case c.Samples < 0:
		return fmt.Errorf("tokens: correction for %q has %d samples; a journaled correction counts up from 0", c.Model, c.Samples)
	case c.Samples == 0 && c.Ratio != 0:
		return fmt.Errorf("tokens: correction for %q has ratio %v but no samples; drop it and let the provider's usage refill it", c.Model, c.Ratio)
	case c.Samples > 0 && !c.inRange():
		return fmt.Errorf("tokens: correction for %q has ratio %v outside [%v, %v]; drop it and let the provider's usage refill it", c.Model, c.Ratio, MinRatio, MaxRatio)
	}
	return nil
}

func (c Correction) inRange() bool { return c.Ratio >= MinRatio && c.Ratio <= MaxRatio }

func clampRatio(r float64) float64 { return min(max(r, MinRatio), MaxRatio) }
