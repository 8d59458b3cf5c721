package tokens

import (
	"fmt"
	"testing"

	"github.com/tiktoken-go/tokenizer"
)

// The benchmarks (figures in docs/benchmarks.md):
//
//	go test -run '^$' -bench . -benchmem ./internal/tokens/
//
// BenchmarkCountHistory200K counts a run's history of 200,000 o200k_base
// tokens message by message, as the context builder does at each request:
// "cold" with a new Counter each time (every message encoded), "warm" with
// one that has seen the history (every message a memo hit), and
// "library-codec" with the tokenizer module's own Count as the baseline.
// BenchmarkLoadVocab is the once-per-process cost of a rank table (from
// the embedded file).

// history returns messages of the corpus kinds (code, logs, JSON, CJK,
// prose) that add up to at least tokens tokens, and their exact total.
func history(b *testing.B, c *Counter, tokens int) ([]string, int) {
	b.Helper()
	r := &rng{state: 200_000}
	kinds := []func() string{
		func() string { return genGo(r, 1+r.intn(8)) },
		func() string { return genPython(r, 1+r.intn(8)) },
		func() string { return genServerLog(r, 10+r.intn(80)) },
		func() string { j := genJSON(r, r.intn(2) == 0); return j[:min(len(j), 2000+r.intn(4000))] },
		func() string { return genProse(r, zhWords, "，", "。", "", 50+r.intn(200)) },
		func() string { return genProse(r, identWords, ",", ".", " ", 20+r.intn(200)) },
	}
	var msgs []string
	total := 0
	for total < tokens {
		m := kinds[r.intn(len(kinds))]()
		msgs = append(msgs, m)
		total += c.Count(m)
	}
	return msgs, total
}

func BenchmarkCountHistory200K(b *testing.B) {
	c := newCounter(b, O200kBase)
	msgs, total := history(b, c, 200_000)
	size := 0
	for _, m := range msgs {
		size += len(m)
	}
	run := func(b *testing.B, fresh bool) {
		b.SetBytes(int64(size))
		b.ReportMetric(float64(len(msgs)), "messages")
		warm := newCounter(b, O200kBase)
		for _, m := range msgs {
			warm.Count(m)
		}
		for b.Loop() {
			ctr := warm
			if fresh {
				ctr = newCounter(b, O200kBase)
			}
			n := 0
			for _, m := range msgs {
				n += ctr.Count(m)
			}
			if n != total {
				b.Fatalf("counted %d, want %d", n, total)
			}
		}
	}
	b.Run(fmt.Sprintf("cold/%dtokens", total), func(b *testing.B) { run(b, true) })
	b.Run(fmt.Sprintf("warm/%dtokens", total), func(b *testing.B) { run(b, false) })
	// The baseline: the tokenizer module's own Count (its regexp2
	// pre-tokenizer), which this package replaces; its total may differ.
	b.Run("library-codec", func(b *testing.B) {
		codec, err := tokenizer.Get(tokenizer.O200kBase)
		if err != nil {
			b.Fatal(err)
		}
		b.SetBytes(int64(size))
		n := 0
		for b.Loop() {
			n = 0
			for _, m := range msgs {
				k, _ := codec.Count(m)
				n += k
			}
		}
		b.ReportMetric(float64(n), "tokens")
	})
}

func BenchmarkLoadVocab(b *testing.B) {
	for _, e := range []Encoding{O200kBase, Cl100kBase} {
		b.Run(e.String(), func(b *testing.B) {
			for b.Loop() {
				if _, err := loadVocab(e, vocabFile(e)); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
