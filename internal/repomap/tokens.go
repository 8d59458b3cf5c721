package repomap

import (
	"fmt"

	"agent/internal/tokens"
)

// counter is the token counter one Build renders with. Its memo of
// per-line counts (the budget search sums them, so each distinct line is
// encoded once per Build rather than once per candidate rendering) lives as
// long as the Build: there is no counter shared across calls.
type counter struct{ *tokens.Counter }

// line returns the token count of one line including its newline.
func (c counter) line(s string) int { return c.Line(s) }

// getCounter returns a new counter for the named encoding ("" means
// DefaultEncoding).
func getCounter(encoding string) (*counter, error) {
	if encoding == "" {
		encoding = DefaultEncoding
	}
	enc, err := tokens.ParseEncoding(encoding)
	if err != nil {
		return nil, fmt.Errorf("repomap: tokenizer: %w", err)
	}
	c, err := tokens.New(enc)
	if err != nil {
		return nil, fmt.Errorf("repomap: tokenizer: %w", err)
	}
	return &counter{c}, nil
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
