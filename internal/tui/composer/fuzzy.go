package composer

import (
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// A fuzzy match: the query's characters appear in the candidate in order,
// case-insensitively. Its score rewards characters at the start of a path
// segment or word, consecutive characters and characters in the base name,
// and penalises gaps and a late start, so shorter and earlier matches come
// first; equal scores sort the shorter candidate, then the smaller one,
// first.

const (
	scoreChar        = 16
	scoreBoundary    = 24
	scoreConsecutive = 16
	scoreBase        = 8
	maxStartPenalty  = 40
)

// fuzzy holds a lower-cased query, as bytes too when it is ASCII (then a
// byte never matches inside a multi-byte character, and matching needs no
// decoding).
type fuzzy struct {
	q     []rune
	ascii []byte
}

func newFuzzy(query string) fuzzy {
	q := make([]rune, 0, len(query))
	ascii := true
	for _, r := range query {
		q = append(q, lower(r))
		ascii = ascii && r < utf8.RuneSelf
	}
	f := fuzzy{q: q}
	if ascii {
		f.ascii = []byte(string(q))
	}
	return f
}

func lowerByte(c byte) byte {
	if 'A' <= c && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}

func lower(r rune) rune {
	if r < utf8.RuneSelf {
		if 'A' <= r && r <= 'Z' {
			return r + 'a' - 'A'
		}
		return r
	}
	return unicode.ToLower(r)
}

// match scores s; pos, if not nil, gets the byte offsets of the matched
// characters. Two alignments are scored, the shortest window after the
// earliest match in the whole of s and in its base name alone, and the
// better one is taken (so "view" in "a/preview/view.go" is the file's
// name, not the directory's).
func (f fuzzy) match(s string, pos *[]int) (int, bool) {
	if len(f.q) == 0 {
		return 0, true
	}
	base := strings.LastIndexByte(s, '/') + 1
	score, ok := f.matchFrom(s, 0, base, nil)
	if !ok {
		return 0, false
	}
	from := 0
	if base > 0 {
		if sc, ok := f.matchFrom(s, base, base, nil); ok && sc > score {
			score, from = sc, base
		}
	}
	if pos != nil {
		f.matchFrom(s, from, base, pos)
	}
	return score, true
}

// matchFrom scores the alignment in s[from:] (base is where the base name
// starts).
func (f fuzzy) matchFrom(s string, from, base int, pos *[]int) (int, bool) {
	if f.ascii != nil {
		return f.matchBytes(s, from, base, pos)
	}
	// Forward: the earliest end of a match.
	j, end := 0, -1
	for i, r := range s[from:] {
		if lower(r) == f.q[j] {
			j++
			if j == len(f.q) {
				end = from + i
				break
			}
		}
	}
	if end < 0 {
		return 0, false
	}
	// Backward from there: the latest start, which makes the window short.
	j = len(f.q) - 1
	start := end
	_, endSize := utf8.DecodeRuneInString(s[end:])
	for i := end + endSize; i > from; {
		r, size := utf8.DecodeLastRuneInString(s[:i])
		i -= size
		if lower(r) == f.q[j] {
			j--
			if j < 0 {
				start = i
				break
			}
		}
	}
	score, matched := 0, 0
	prevEnd := -1
	var prev rune
	if start > 0 {
		prev, _ = utf8.DecodeLastRuneInString(s[:start])
	}
	j = 0
	winEnd := start
	for i, r := range s[start:] {
		i += start
		if j < len(f.q) && lower(r) == f.q[j] {
			j++
			score += scoreChar
			if i == 0 || boundary(prev, r) {
				score += scoreBoundary
			}
			if i == prevEnd {
				score += scoreConsecutive
			}
			if i >= base {
				score += scoreBase
			}
			if pos != nil {
				*pos = append(*pos, i)
			}
			size := utf8.RuneLen(r)
			matched += size
			prevEnd = i + size
			winEnd = prevEnd
			if j == len(f.q) {
				break
			}
		}
		prev = r
	}
	score -= (winEnd - start) - matched
	score -= min(start, maxStartPenalty)
	return score, true
}

// matchBytes is matchFrom for an ASCII query.
func (f fuzzy) matchBytes(s string, from, base int, pos *[]int) (int, bool) {
	q := f.ascii
	j, end := 0, -1
	for i := from; i < len(s); i++ {
		if lowerByte(s[i]) == q[j] {
			j++
			if j == len(q) {
				end = i
				break
			}
		}
	}
	if end < 0 {
		return 0, false
	}
	j = len(q) - 1
	start := end
	for i := end; i >= from; i-- {
		if lowerByte(s[i]) == q[j] {
			j--
			if j < 0 {
				start = i
				break
			}
		}
	}
	score, prevEnd := 0, -1
	j = 0
	for i := start; i <= end; i++ {
		c := s[i]
		if lowerByte(c) != q[j] {
			continue
		}
		j++
		score += scoreChar
		if i == 0 || boundary(rune(s[i-1]), rune(c)) && s[i-1] < utf8.RuneSelf {
			score += scoreBoundary
		}
		if i == prevEnd {
			score += scoreConsecutive
		}
		if i >= base {
			score += scoreBase
		}
		if pos != nil {
			*pos = append(*pos, i)
		}
		prevEnd = i + 1
		if j == len(q) {
			break
		}
	}
	score -= (end + 1 - start) - len(q)
	score -= min(start, maxStartPenalty)
	return score, true
}

// boundary reports whether r starts a segment or a word after prev.
func boundary(prev, r rune) bool {
	switch prev {
	case '/', '_', '-', '.', ' ', '@':
		return true
	}
	return unicode.IsLower(prev) && unicode.IsUpper(r)
}

// scored is a candidate and its score.
type scored struct {
	s     string
	score int
	idx   int
}

func better(a, b scored) bool {
	if a.score != b.score {
		return a.score > b.score
	}
	if len(a.s) != len(b.s) {
		return len(a.s) < len(b.s)
	}
	return a.s < b.s
}

// topMatches returns the best k candidates matching query, best first.
func topMatches(query string, cands []string, k int) []scored {
	f := newFuzzy(query)
	top := make([]scored, 0, k+1)
	for i, c := range cands {
		sc, ok := f.match(c, nil)
		if !ok {
			continue
		}
		m := scored{s: c, score: sc, idx: i}
		if len(top) == k && !better(m, top[k-1]) {
			continue
		}
		at, _ := slices.BinarySearchFunc(top, m, func(a, b scored) int {
			if better(a, b) {
				return -1
			}
			return 1
		})
		top = slices.Insert(top, at, m)
		if len(top) > k {
			top = top[:k]
		}
	}
	return top
}

// matchPositions is the byte offsets in s of query's matched characters.
func matchPositions(query, s string) []int {
	var pos []int
	newFuzzy(query).match(s, &pos)
	return pos
}
