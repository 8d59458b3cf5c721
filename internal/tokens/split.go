package tokens

import (
	"unicode"
	"unicode/utf8"
)

// The pre-tokenizer: tiktoken splits text into pieces with a regular
// expression before it merges each piece's bytes. The library's regexp
// engine gets two things wrong that real text hits (it drops DEL, U+007F,
// and splits runs of whitespace-only lines, " \n \n  \n", short), so the
// two patterns are matched here by hand, alternative by alternative, with
// the same leftmost-first, greedy-with-backtracking result as tiktoken's
// engine. o200k_base's pattern:
//
//	[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?
//	|[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?
//	|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n/]*|\s*[\r\n]+|\s+(?!\S)|\s+
//
// cl100k_base's:
//
//	(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+
//
// Every rune is matched by some alternative, so no byte is ever skipped.
// The text must be valid UTF-8 (Count makes it so).

// Rune classes, as bits.
const (
	clLetter  = 1 << iota // \p{L}
	clNumber              // \p{N}
	clSpace               // \s (White_Space)
	clNewline             // \r or \n
	clUpper               // [\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]
	clLower               // [\p{Ll}\p{Lm}\p{Lo}\p{M}]
)

// asciiClass holds the classes of the ASCII runes.
var asciiClass = func() (t [utf8.RuneSelf]uint8) {
	for r := range rune(utf8.RuneSelf) {
		t[r] = classOf(r)
	}
	return t
}()

func classOf(r rune) uint8 {
	var c uint8
	switch {
	case unicode.IsLetter(r):
		c |= clLetter
		if unicode.In(r, unicode.Lu, unicode.Lt, unicode.Lm, unicode.Lo) {
			c |= clUpper
		}
		if unicode.In(r, unicode.Ll, unicode.Lm, unicode.Lo) {
			c |= clLower
		}
	case unicode.IsNumber(r):
		c |= clNumber
	case unicode.IsMark(r):
		c |= clUpper | clLower
	case unicode.IsSpace(r):
		c |= clSpace
		if r == '\r' || r == '\n' {
			c |= clNewline
		}
	}
	return c
}

// at returns the rune class and size of the rune at s[i:] (i < len(s)).
func at(s string, i int) (uint8, int) {
	if b := s[i]; b < utf8.RuneSelf {
		return asciiClass[b], 1
	}
	r, n := utf8.DecodeRuneInString(s[i:])
	return classOf(r), n
}

// isPrefix: [^\r\n\p{L}\p{N}].
func isPrefix(c uint8) bool { return c&(clNewline|clLetter|clNumber) == 0 }

// isOther: [^\s\p{L}\p{N}].
func isOther(c uint8) bool { return c&(clSpace|clLetter|clNumber) == 0 }

// split calls piece for each piece of s in order.
func split(enc Encoding, s string, piece func(string)) {
	for i := 0; i < len(s); {
		var n int
		if enc == Cl100kBase {
			n = matchCl100k(s, i)
		} else {
			n = matchO200k(s, i)
		}
		piece(s[i:n])
		i = n
	}
}

func matchO200k(s string, i int) int {
	c, n := at(s, i)
	// The two word alternatives, each with its optional prefix first.
	for _, upperFirst := range [2]bool{false, true} {
		if isPrefix(c) && i+n < len(s) {
			if e, ok := o200kWord(s, i+n, upperFirst); ok {
				return contraction(s, e)
			}
		}
		if e, ok := o200kWord(s, i, upperFirst); ok {
			return contraction(s, e)
		}
	}
	if e, ok := common(s, i, c, n, true); ok {
		return e
	}
	return i + n // unreachable: every class is matched above
}

// o200kWord matches U*L+ (upperFirst false) or U+L* (true) at s[j:].
func o200kWord(s string, j int, upperFirst bool) (int, bool) {
	// The greedy run of U.
	u := j
	for u < len(s) {
		c, n := at(s, u)
		if c&clUpper == 0 {
			break
		}
		u += n
	}
	if upperFirst {
		if u == j {
			return 0, false
		}
		return lowerRun(s, u), true
	}
	// U* then L+: the rune after the run, if L, starts L+; otherwise U*
	// gives back runes until the last one of them that is also L.
	if u < len(s) {
		if c, _ := at(s, u); c&clLower != 0 {
			return lowerRun(s, u), true
		}
	}
	for k := u; k > j; {
		r, n := utf8.DecodeLastRuneInString(s[:k])
		k -= n
		if classOf(r)&clLower != 0 {
			// The runes after k in the run are U but not L, and the one
			// after the run is not L: L+ is this rune alone.
			return k + n, true
		}
	}
	return 0, false
}

// lowerRun returns the end of the greedy run of L from s[j:].
func lowerRun(s string, j int) int {
	for j < len(s) {
		c, n := at(s, j)
		if c&clLower == 0 {
			break
		}
		j += n
	}
	return j
}

// contraction extends a match ending at e over (?i:'s|'t|'re|'ve|'m|'ll|'d)
// if one follows. Case folding is Unicode's simple folding, as tiktoken's
// regex crate does it: 's also matches 'S and 'ſ (U+017F).
func contraction(s string, e int) int {
	if n := contractionLen(s, e); n > 0 {
		return e + n
	}
	return e
}

func contractionLen(s string, e int) int {
	if e >= len(s) || s[e] != '\'' {
		return 0
	}
	j := e + 1
	if j >= len(s) {
		return 0
	}
	fold := func(k int) (byte, int) {
		if k >= len(s) {
			return 0, 0
		}
		b := s[k]
		if b >= 'A' && b <= 'Z' {
			return b + 'a' - 'A', 1
		}
		if b == 0xC5 && k+1 < len(s) && s[k+1] == 0xBF { // ſ
			return 's', 2
		}
		return b, 1
	}
	b, n := fold(j)
	switch b {
	case 's', 't', 'm', 'd':
		return 1 + n
	case 'r', 'v':
		if b2, n2 := fold(j + n); b2 == 'e' {
			return 1 + n + n2
		}
	case 'l':
		if b2, n2 := fold(j + n); b2 == 'l' {
			return 1 + n + n2
		}
	}
	return 0
}

func matchCl100k(s string, i int) int {
	if n := contractionLen(s, i); n > 0 {
		return i + n
	}
	c, n := at(s, i)
	// [^\r\n\p{L}\p{N}]?\p{L}+
	j := i
	if isPrefix(c) {
		j = i + n
	}
	if e := letterRun(s, j); e > j {
		return e
	}
	if e, ok := common(s, i, c, n, false); ok {
		return e
	}
	return i + n // unreachable
}

func letterRun(s string, j int) int {
	for j < len(s) {
		c, n := at(s, j)
		if c&clLetter == 0 {
			break
		}
		j += n
	}
	return j
}

// common matches the alternatives both patterns share, in order:
// \p{N}{1,3}, ` ?[^\s\p{L}\p{N}]+[\r\n/]*` (the '/' only in o200k),
// \s*[\r\n]+, \s+(?!\S) and \s+. c and n are the class and size of the
// rune at i.
func common(s string, i int, c uint8, n int, slash bool) (int, bool) {
	if c&clNumber != 0 {
		e := i + n
		for range 2 {
			if e >= len(s) {
				break
			}
			c2, n2 := at(s, e)
			if c2&clNumber == 0 {
				break
			}
			e += n2
		}
		return e, true
	}
	j := i
	if s[i] == ' ' && i+1 < len(s) {
		if c2, _ := at(s, i+1); isOther(c2) {
			j = i + 1
		}
	}
	if c, _ := at(s, j); isOther(c) {
		e := j
		for e < len(s) {
			c2, n2 := at(s, e)
			if !isOther(c2) {
				break
			}
			e += n2
		}
		for e < len(s) && (s[e] == '\r' || s[e] == '\n' || (slash && s[e] == '/')) {
			e++
		}
		return e, true
	}
	if c&clSpace == 0 {
		return 0, false
	}
	// The run of whitespace from i, and the end of its last newline.
	w, lastNL, prev := i, -1, i
	for w < len(s) {
		c2, n2 := at(s, w)
		if c2&clSpace == 0 {
			break
		}
		if c2&clNewline != 0 {
			lastNL = w + n2
		}
		prev = w
		w += n2
	}
	switch {
	case lastNL > 0: // \s*[\r\n]+ backtracks to the last newline
		return lastNL, true
	case w == len(s): // \s+(?!\S) at the end
		return w, true
	case prev > i: // \s+(?!\S): all but the last space before a non-space
		return prev, true
	default: // \s+
		return w, true
	}
}
