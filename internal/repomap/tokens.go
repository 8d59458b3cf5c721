package repomap

import (
	"fmt"
	"sync"

	"github.com/tiktoken-go/tokenizer"
)

// counter counts tokens with one tiktoken codec, memoising single lines:
// the budget search sums per-line counts, so each distinct line is encoded
// once per process rather than once per candidate rendering.
type counter struct {
	mu    sync.Mutex
	codec tokenizer.Codec
	memo  map[string]int
}

const maxMemo = 200_000

var (
	countersMu sync.Mutex
	counters   = map[string]*counter{}
)

func getCounter(encoding string) (*counter, error) {
	if encoding == "" {
		encoding = DefaultEncoding
	}
	countersMu.Lock()
	defer countersMu.Unlock()
	if c, ok := counters[encoding]; ok {
		return c, nil
	}
	codec, err := tokenizer.Get(tokenizer.Encoding(encoding))
	if err != nil {
		return nil, fmt.Errorf("repomap: tokenizer %q: %w", encoding, err)
	}
	c := &counter{codec: codec, memo: make(map[string]int, 1024)}
	counters[encoding] = c
	return c, nil
}

// Count returns the exact token count of s.
func (c *counter) Count(s string) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	n, err := c.codec.Count(s)
	if err != nil {
		return len(s) // invalid UTF-8 cannot occur in practice; be conservative
	}
	return n
}

// line returns the token count of one line including its newline.
func (c *counter) line(s string) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	if n, ok := c.memo[s]; ok {
		return n
	}
	n, err := c.codec.Count(s + "\n")
	if err != nil {
		n = len(s) + 1
	}
	if len(c.memo) >= maxMemo {
		clear(c.memo)
	}
	c.memo[s] = n
	return n
}

// CountTokens counts s with the named encoding ("" = DefaultEncoding).
// Tests and callers use it to check a Map against its budget.
func CountTokens(encoding, s string) (int, error) {
	c, err := getCounter(encoding)
	if err != nil {
		return 0, err
	}
	return c.Count(s), nil
}
