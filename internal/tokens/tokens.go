// Package tokens owns token counting: which tiktoken encoding a model uses
// (ForModel), an exact Counter (tiktoken's pre-tokenizer, written out in
// split.go, and its byte-pair merge over tiktoken's vocabularies, embedded
// in the binary as files generated from github.com/tiktoken-go/tokenizer:
// no file read, no network), a cheap Estimate for the case where no counter
// is at hand, and the per-model Correction that folds the provider's
// reported usage into a moving ratio.
//
// It holds no package-level mutable state: the caller creates a Counter (one
// per encoding, for as long as it wants the memo to live) and owns it; the
// rank tables behind the counters are built once and never change. It
// must not touch the journal, the network, the file system or the loop: the
// caller decides when to count, when to fold a sample and where the
// Correction is journaled.
package tokens

import (
	"fmt"
	"strings"
	"sync"
	"unicode/utf8"
)

// Encoding is one of the tiktoken encodings this package counts with. The
// zero value is no encoding.
type Encoding uint8

const (
	// O200kBase is the encoding of the gpt-4o, gpt-4.1, gpt-4.5, gpt-5 and
	// o-series families, and the one assumed for a model not in the table.
	O200kBase Encoding = iota + 1
	// Cl100kBase is the encoding of gpt-4 (not 4o/4.1/4.5), gpt-3.5 and the
	// text-embedding-3 and ada-002 embedding models.
	Cl100kBase
)

// DefaultEncoding is the encoding of a model ForModel does not know.
const DefaultEncoding = O200kBase

var encodingNames = [...]string{O200kBase: "o200k_base", Cl100kBase: "cl100k_base"}

// String returns tiktoken's name for e ("o200k_base").
func (e Encoding) String() string {
	if e.valid() {
		return encodingNames[e]
	}
	return fmt.Sprintf("Encoding(%d)", uint8(e))
}

func (e Encoding) valid() bool { return e >= O200kBase && e <= Cl100kBase }

// ParseEncoding returns the Encoding tiktoken calls name.
func ParseEncoding(name string) (Encoding, error) {
	for e, n := range encodingNames {
		if n != "" && n == name {
			return Encoding(e), nil
		}
	}
	return 0, fmt.Errorf("tokens: unknown encoding %q (use o200k_base or cl100k_base)", name)
}

// MarshalText writes e by name, so configs and journals carry "o200k_base".
func (e Encoding) MarshalText() ([]byte, error) {
	if !e.valid() {
		return nil, fmt.Errorf("tokens: cannot marshal %v", e)
	}
	return []byte(e.String()), nil
}

// UnmarshalText reads a name written by MarshalText.
func (e *Encoding) UnmarshalText(b []byte) error {
	v, err := ParseEncoding(string(b))
	if err != nil {
		return err
	}
	*e = v
	return nil
}

// cl100kFamilies lists the model-name prefixes that count with cl100k_base,
// after ForModel has lower-cased the name and dropped any "provider/" and
// "ft:" prefix. Every other model counts with o200k_base:
//
//	prefix                         encoding     examples
//	gpt-4o, chatgpt-4o             o200k_base   gpt-4o-mini, chatgpt-4o-latest
//	gpt-4.1, gpt-4.5, gpt-5        o200k_base   gpt-4.1-nano, gpt-5-mini
//	o1, o3, o4                     o200k_base   o1-pro, o3-mini, o4-mini
//	gpt-4 exactly, gpt-4-…         cl100k_base  gpt-4-turbo, gpt-4-32k-0613
//	gpt-3.5-…, gpt-35-…            cl100k_base  gpt-3.5-turbo-16k
//	text-embedding-3-…, -ada-002   cl100k_base  text-embedding-3-small
//	davinci-002, babbage-002       cl100k_base  (tiktoken's table)
//	anything else                  o200k_base   unknown or local models
//
// "gpt-4" is matched as the whole name or followed by '-', so "gpt-4o" and
// "gpt-4.1" stay o200k_base.
var cl100kFamilies = []string{"gpt-4-", "gpt-3.5-", "gpt-35-", "text-embedding-3-", "text-embedding-ada-002", "davinci-002", "babbage-002"}

// ForModel returns the encoding a model counts with: cl100k_base for the
// gpt-4 (not 4o/4.1/4.5)/gpt-3.5/embedding families, o200k_base for every
// other model, known (gpt-4o, gpt-4.1, o1, o3, o4, gpt-5) or not. The name is
// matched case-insensitively after dropping a routing prefix ("openai/",
// "azure/…/") and a fine-tune prefix ("ft:").
func ForModel(model string) Encoding {
	m := strings.ToLower(strings.TrimSpace(model))
	if i := strings.LastIndexByte(m, '/'); i >= 0 {
		m = m[i+1:]
	}
	m = strings.TrimPrefix(m, "ft:")
	if m == "gpt-4" || m == "gpt-3.5" || m == "gpt-35" {
		return Cl100kBase
	}
	for _, p := range cl100kFamilies {
		if strings.HasPrefix(m, p) {
			return Cl100kBase
		}
	}
	return O200kBase
}

// Memo bounds: a Counter forgets every memoised count when either is
// exceeded (repomap's budget search and a run's history stay well inside).
const (
	maxMemo      = 200_000  // entries
	maxMemoBytes = 64 << 20 // bytes of memoised text
)

// Counter counts tokens exactly with one encoding and memoises the counts
// of the texts it has seen, so a history counted at every step is encoded
// once. It is safe for concurrent use. The memo keeps the strings it is
// given (not copies) until it is cleared.
//
// A nil *Counter is usable: it Estimates and says so through Exact.
type Counter struct {
	enc   Encoding
	vocab *vocab

	mu        sync.Mutex
	memo      map[memoKey]int
	memoBytes int
	// The memo's bounds (maxMemo, maxMemoBytes; tests lower them).
	memoMax, memoMaxBytes int
}

type memoKey struct {
	s    string
	line bool // counted as s + "\n"
}

// New returns a Counter for enc. The vocabularies are embedded in the
// binary, so New fails only for an encoding this package does not know (or
// a damaged build). The first New of an encoding in a process builds its
// lookup table (a few milliseconds and 2.8 MiB for o200k_base); later ones
// share it and cost nothing.
func New(enc Encoding) (*Counter, error) {
	if !enc.valid() {
		return nil, fmt.Errorf("tokens: no counter for %v (use O200kBase or Cl100kBase)", enc)
	}
	v, err := vocabs[enc]()
	if err != nil {
		return nil, err
	}
	return &Counter{enc: enc, vocab: v, memo: make(map[memoKey]int, 1024), memoMax: maxMemo, memoMaxBytes: maxMemoBytes}, nil
}

// Encoding returns the encoding c counts with (0 for a nil Counter).
func (c *Counter) Encoding() Encoding {
	if c == nil {
		return 0
	}
	return c.enc
}

// Exact reports whether c's counts are the encoder's (true) or Estimates
// (false, a nil Counter): what a report shows as measured or estimated.
func (c *Counter) Exact() bool { return c != nil }

// Count returns the number of tokens in s as the model receives it. Invalid
// UTF-8 is counted as encoding/json sends it, each bad byte as U+FFFD.
// Special-token text such as "<|endoftext|>" counts as ordinary text, as
// tiktoken's encode_ordinary does. A nil Counter returns Estimate(s).
func (c *Counter) Count(s string) int {
	if c == nil {
		return Estimate(s)
	}
	return c.memoised(memoKey{s: s})
}

// Line returns the token count of s followed by a newline: repomap sums
// these to price a rendering line by line. A nil Counter estimates.
func (c *Counter) Line(s string) int {
	if c == nil {
		return Estimate(s + "\n")
	}
	return c.memoised(memoKey{s: s, line: true})
}

func (c *Counter) memoised(k memoKey) int {
	if k.s == "" && !k.line {
		return 0
	}
	c.mu.Lock()
	n, ok := c.memo[k]
	c.mu.Unlock()
	if ok {
		return n
	}
	text := k.s
	if k.line {
		text += "\n"
	}
	n = c.count(text)
	if len(k.s) > c.memoMaxBytes {
		return n // too large to keep
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.memo) >= c.memoMax || c.memoBytes+len(k.s) > c.memoMaxBytes {
		clear(c.memo)
		c.memoBytes = 0
	}
	if _, dup := c.memo[k]; !dup { // another goroutine may have counted it too
		c.memo[k] = n
		c.memoBytes += len(k.s)
	}
	return n
}

// count encodes s without the memo: the pieces of split, each merged.
func (c *Counter) count(s string) int {
	if !utf8.ValidString(s) {
		s = jsonValid(s)
	}
	var sc scratch
	n := 0
	split(c.enc, s, func(piece string) { n += c.vocab.count(piece, &sc) })
	return n
}

// jsonValid replaces each byte of an invalid UTF-8 sequence with U+FFFD, as
// encoding/json does when it marshals a string.
func jsonValid(s string) string {
	var b strings.Builder
	b.Grow(len(s) + 8)
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b.WriteRune(utf8.RuneError)
		} else {
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	return b.String()
}

// Estimate approximates a token count without a vocabulary: the text is
// split as o200k_base splits it and each piece counts a token per four bytes,
// rounded up. On the test corpus it lands within 0.65–1.7× of the exact
// count (lowest on random identifiers, highest on CJK). It is for a caller
// with no Counter; a Counter's Count is exact.
func Estimate(s string) int {
	n := 0
	split(O200kBase, s, func(piece string) { n += (len(piece) + 3) / 4 })
	return n
}
