package tokens

import (
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"
)

func TestForModel(t *testing.T) {
	tests := []struct {
		model string
		want  Encoding
	}{
		// o200k_base families (tiktoken's model table).
		{"gpt-4o", O200kBase},
		{"gpt-4o-mini", O200kBase},
		{"gpt-4o-2024-08-06", O200kBase},
		{"chatgpt-4o-latest", O200kBase},
		{"gpt-4.1", O200kBase},
		{"gpt-4.1-nano-2025-04-14", O200kBase},
		{"gpt-4.5-preview", O200kBase},
		{"gpt-5", O200kBase},
		{"gpt-5-mini", O200kBase},
		{"gpt-5-chat-latest", O200kBase},
		{"o1", O200kBase},
		{"o1-pro", O200kBase},
		{"o3-mini", O200kBase},
		{"o4-mini-2025-04-16", O200kBase},
		// cl100k_base families.
		{"gpt-4", Cl100kBase},
		{"gpt-4-0613", Cl100kBase},
		{"gpt-4-32k", Cl100kBase},
		{"gpt-4-turbo", Cl100kBase},
		{"gpt-4-turbo-2024-04-09", Cl100kBase},
		{"gpt-4-1106-preview", Cl100kBase},
		{"gpt-3.5-turbo", Cl100kBase},
		{"gpt-3.5-turbo-16k-0613", Cl100kBase},
		{"gpt-35-turbo", Cl100kBase},
		{"text-embedding-3-small", Cl100kBase},
		{"text-embedding-3-large", Cl100kBase},
		{"text-embedding-ada-002", Cl100kBase},
		{"davinci-002", Cl100kBase},
		// Spelling: case, spaces, routing and fine-tune prefixes.
		{"GPT-4", Cl100kBase},
		{" gpt-4-turbo ", Cl100kBase},
		{"openai/gpt-4", Cl100kBase},
		{"openai/gpt-4o", O200kBase},
		{"azure/deployments/gpt-35-turbo", Cl100kBase},
		{"ft:gpt-3.5-turbo-0125:acme::abc123", Cl100kBase},
		{"ft:gpt-4o-mini-2024-07-18:acme::x", O200kBase},
		// Not gpt-4 even though the name starts so.
		{"gpt-4o-realtime-preview", O200kBase},
		{"gpt-40", O200kBase},
		// Unknown and local models count with o200k_base.
		{"", O200kBase},
		{"m", O200kBase},
		{"claude-sonnet-4", O200kBase},
		{"qwen2.5-coder:7b", O200kBase},
		{"llama3.1", O200kBase},
	}
	for _, tt := range tests {
		if got := ForModel(tt.model); got != tt.want {
			t.Errorf("ForModel(%q) = %v, want %v", tt.model, got, tt.want)
		}
	}
}

func TestEncodingNames(t *testing.T) {
	for _, e := range []Encoding{O200kBase, Cl100kBase} {
		b, err := json.Marshal(e)
		if err != nil {
			t.Fatal(err)
		}
		var back Encoding
		if err := json.Unmarshal(b, &back); err != nil || back != e {
			t.Errorf("%v: JSON %s read back as %v, %v", e, b, back, err)
		}
		if p, err := ParseEncoding(e.String()); err != nil || p != e {
			t.Errorf("ParseEncoding(%q) = %v, %v", e.String(), p, err)
		}
	}
	for _, name := range []string{"", "p50k_base", "O200K_BASE", "gpt-4o"} {
		_, err := ParseEncoding(name)
		if err == nil || !strings.Contains(err.Error(), "use o200k_base or cl100k_base") {
			t.Errorf("ParseEncoding(%q) = %v, want an error naming the encodings", name, err)
		}
	}
	if _, err := json.Marshal(Encoding(0)); err == nil {
		t.Error("marshalling the zero Encoding succeeded")
	}
	for _, e := range []Encoding{0, 3, 255} {
		if _, err := New(e); err == nil {
			t.Errorf("New(%v) succeeded", e)
		}
	}
}

func newCounter(t testing.TB, e Encoding) *Counter {
	t.Helper()
	c, err := New(e)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// TestCountSmall pins a few counts a reader can check with any tiktoken.
func TestCountSmall(t *testing.T) {
	tests := []struct {
		s             string
		o200k, cl100k int
	}{
		{"", 0, 0},
		{"hello world", 2, 2},
		{"<|endoftext|>", 7, 7}, // ordinary text, not the special token
		{"a\x7fb", 3, 3},        // DEL is a token of its own
		{" \n \n  \n", 2, 2},    // whitespace-only lines
	}
	o, c := newCounter(t, O200kBase), newCounter(t, Cl100kBase)
	for _, tt := range tests {
		if got := o.Count(tt.s); got != tt.o200k {
			t.Errorf("o200k_base Count(%q) = %d, want %d", tt.s, got, tt.o200k)
		}
		if got := c.Count(tt.s); got != tt.cl100k {
			t.Errorf("cl100k_base Count(%q) = %d, want %d", tt.s, got, tt.cl100k)
		}
	}
}

// TestCountInvalidUTF8: invalid bytes count as the U+FFFD that
// encoding/json sends in their place, one per byte.
func TestCountInvalidUTF8(t *testing.T) {
	c := newCounter(t, O200kBase)
	for _, s := range []string{"\xff", "a\xffb", "\xe4\xbd", "ok \xed\xa0\x80 ok", "\xf0\x9f\x98 end", genBytes(&rng{state: 3}, 500)} {
		b, err := json.Marshal(s)
		if err != nil {
			t.Fatal(err)
		}
		var sent string
		if err := json.Unmarshal(b, &sent); err != nil {
			t.Fatal(err)
		}
		if got, want := c.Count(s), c.Count(sent); got != want {
			t.Errorf("Count(%q) = %d, but the JSON-encoded text counts %d", s, got, want)
		}
	}
}

// TestSplitCoversText: the pieces of every corpus item, in order, are the
// item itself, and none is empty.
func TestSplitCoversText(t *testing.T) {
	for _, it := range buildCorpus() {
		s := jsonValid(it.Text)
		for _, e := range []Encoding{O200kBase, Cl100kBase} {
			var b strings.Builder
			empty := 0
			split(e, s, func(p string) {
				if p == "" {
					empty++
				}
				b.WriteString(p)
			})
			if b.String() != s || empty > 0 {
				t.Errorf("%s, %v: pieces do not rebuild the text (%d empty)", it.Name, e, empty)
			}
		}
	}
}

// TestLineAndMemo: Line counts the line with its newline; a memoised count
// is the count.
func TestLineAndMemo(t *testing.T) {
	o := newCounter(t, O200kBase)
	fresh := newCounter(t, O200kBase)
	for _, it := range buildCorpus()[:20] {
		for l := range strings.SplitSeq(it.Text, "\n") {
			if got, want := o.Line(l), fresh.count(jsonValid(l)+"\n"); got != want {
				t.Fatalf("%s: Line(%q) = %d, want %d", it.Name, l, got, want)
			}
			if again := o.Line(l); again != fresh.count(jsonValid(l)+"\n") || o.Count(l) != fresh.count(jsonValid(l)) {
				t.Fatalf("%s: memoised count of %q differs", it.Name, l)
			}
		}
	}
}

// TestMemoBounds: the memo forgets everything when it would pass its entry
// or byte bound, and a text larger than the byte bound is counted but not
// kept.
func TestMemoBounds(t *testing.T) {
	c := newCounter(t, O200kBase)
	c.memoMax, c.memoMaxBytes = 100, 1000
	for i := range 250 {
		c.Count(fmt.Sprintf("line %d", i))
		if len(c.memo) > 100 || c.memoBytes > 1000 {
			t.Fatalf("memo has %d entries, %d bytes", len(c.memo), c.memoBytes)
		}
	}
	if len(c.memo) != 250%100 {
		t.Errorf("memo has %d entries after 250 texts and a bound of 100, want 50", len(c.memo))
	}
	big := strings.Repeat("word ", 300)
	if got, want := c.Count(big), newCounter(t, O200kBase).count(big); got != want {
		t.Errorf("Count(big) = %d, want %d", got, want)
	}
	if _, kept := c.memo[memoKey{s: big}]; kept {
		t.Errorf("a %d-byte text was memoised under a %d-byte bound", len(big), c.memoMaxBytes)
	}
	c.memoMax = 1 << 20
	for i := range 200 {
		c.Line(strings.Repeat("y", i))
		if c.memoBytes > 1000 {
			t.Fatalf("memo holds %d bytes, bound 1000", c.memoBytes)
		}
	}
}

// TestConcurrentCount: counters shared by goroutines give the serial
// counts (run with -race by make test).
func TestConcurrentCount(t *testing.T) {
	corpus := buildCorpus()
	want := make([]int, len(corpus))
	serial := newCounter(t, Cl100kBase)
	for i, it := range corpus {
		want[i] = serial.Count(it.Text)
	}
	shared := newCounter(t, Cl100kBase)
	var wg sync.WaitGroup
	errs := make(chan string, 4*len(corpus))
	for g := range 4 {
		wg.Go(func() {
			for k := range corpus {
				i := (k + g*7) % len(corpus)
				if got := shared.Count(corpus[i].Text); got != want[i] {
					errs <- fmt.Sprintf("%s: %d, serial %d", corpus[i].Name, got, want[i])
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
}

// TestNilCounterEstimates: a nil Counter estimates and says so.
func TestNilCounterEstimates(t *testing.T) {
	var c *Counter
	if c.Exact() || c.Encoding() != 0 {
		t.Error("a nil Counter claims to be exact")
	}
	if got, want := c.Count("hello world, again"), Estimate("hello world, again"); got != want || got == 0 {
		t.Errorf("nil Count = %d, Estimate %d", got, want)
	}
	if !newCounter(t, O200kBase).Exact() {
		t.Error("a real Counter is not Exact")
	}
}

// TestEstimateRange: Estimate stays within half to twice the exact count
// on every corpus item of 100 tokens or more.
func TestEstimateRange(t *testing.T) {
	c := newCounter(t, O200kBase)
	for _, it := range buildCorpus() {
		n := c.Count(it.Text)
		if n < 100 {
			continue
		}
		if e := Estimate(it.Text); float64(e) < 0.5*float64(n) || float64(e) > 2*float64(n) {
			t.Errorf("%s: Estimate %d, exact %d", it.Name, e, n)
		}
	}
	if Estimate("") != 0 {
		t.Error("Estimate of nothing is not 0")
	}
}
