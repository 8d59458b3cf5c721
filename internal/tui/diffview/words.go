package diffview

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// Word-level highlights: a removed line and the added line that replaces
// it (the i-th "-" and the i-th "+" of a run of changes in a hunk) are
// compared word by word, and the words that differ get a deeper shade of
// the line's background. Lines too different to compare usefully (less
// than half of the shorter in common) or too long get none.

// rng is a byte range of a line's display text.
type rng struct{ from, to int }

// maxWordTokens bounds the comparison (its cost is the product of the two
// lines' tokens).
const maxWordTokens = 300

// pairLines pairs each run's removed lines with its added lines, in order.
func (m *Model) pairLines() {
	m.pair = map[int32]int32{}
	i := 0
	for fi := range m.diff.Files {
		for hi := range m.diff.Files[fi].Hunks {
			ls := m.diff.Files[fi].Hunks[hi].Lines
			for j := 0; j < len(ls); {
				if ls[j].Kind != LineDel {
					j++
					continue
				}
				d0 := j
				for j < len(ls) && ls[j].Kind == LineDel {
					j++
				}
				a0 := j
				for j < len(ls) && ls[j].Kind == LineAdd {
					j++
				}
				for k := 0; k < min(a0-d0, j-a0); k++ {
					del, add := int32(i+d0+k), int32(i+a0+k)
					m.pair[del], m.pair[add] = add, del
				}
			}
			i += len(ls)
		}
	}
}

// emphOf is the changed words of line li's display text against its pair's.
func (m *Model) emphOf(li int32, text string) []rng {
	p, ok := m.pair[li]
	if !ok {
		return nil
	}
	other, _ := strings.CutSuffix(m.lines[p].Text, "\r")
	other = displayText(other, m.opts.TabWidth)
	return changedWords(text, other)
}

// tokens splits s into words (letters, digits, _), runs of spaces, and
// single other characters, as byte ranges.
func tokens(s string) []rng {
	var out []rng
	class := func(r rune) int {
		switch {
		case r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r):
			return 1
		case r == ' ' || r == '\t':
			return 2
		}
		return 0
	}
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		c, j := class(r), i+n
		if c != 0 {
			for j < len(s) {
				r2, n2 := utf8.DecodeRuneInString(s[j:])
				if class(r2) != c {
					break
				}
				j += n2
			}
		}
		out = append(out, rng{i, j})
		i = j
	}
	return out
}

// changedWords is the ranges of a's words that are not in the longest
// common subsequence of a's and b's words; nil when the lines are too long
// or too different for the highlight to help.
func changedWords(a, b string) []rng {
	ta, tb := tokens(a), tokens(b)
	if len(ta) == 0 || len(ta) > maxWordTokens || len(tb) > maxWordTokens {
		return nil
	}
	n, k := len(ta), len(tb)
	// lcs[i][j]: the common length (in bytes) of ta[i:] and tb[j:]
	lcs := make([][]int32, n+1)
	for i := range lcs {
		lcs[i] = make([]int32, k+1)
	}
	for i := n - 1; i >= 0; i-- {
		for j := k - 1; j >= 0; j-- {
			if a[ta[i].from:ta[i].to] == b[tb[j].from:tb[j].to] {
				lcs[i][j] = lcs[i+1][j+1] + int32(ta[i].to-ta[i].from)
			} else {
				lcs[i][j] = max(lcs[i+1][j], lcs[i][j+1])
			}
		}
	}
	common := int(lcs[0][0])
	if len(strings.TrimSpace(a)) == 0 || common*2 < min(len(a), len(b)) {
		return nil // mostly different: the line's own shade says enough
	}
	var out []rng
	i, j := 0, 0
	for i < n {
		switch {
		case j < k && a[ta[i].from:ta[i].to] == b[tb[j].from:tb[j].to]:
			i, j = i+1, j+1
			continue
		case j < k && lcs[i][j+1] >= lcs[i+1][j]:
			j++
			continue
		}
		r := ta[i]
		if strings.TrimSpace(a[r.from:r.to]) != "" || (len(out) > 0 && out[len(out)-1].to == r.from) {
			if len(out) > 0 && out[len(out)-1].to == r.from {
				out[len(out)-1].to = r.to
			} else {
				out = append(out, r)
			}
		}
		i++
	}
	// a space run that closed a range is not a change of its own
	for x := range out {
		for out[x].to > out[x].from && (a[out[x].to-1] == ' ' || a[out[x].to-1] == '\t') {
			out[x].to--
		}
	}
	if len(out) == 1 && out[0].from == 0 && out[0].to == len(a) {
		return nil
	}
	return out
}

// seg is a piece of a line to write: its class and whether it changed.
type seg struct {
	class tokClass
	text  string
	emph  bool
}

// split cuts the spans at the changed words' boundaries.
func splitEmph(spans []span, emph []rng) []seg {
	out := make([]seg, 0, len(spans)+2*len(emph))
	pos, e := 0, 0
	for _, s := range spans {
		text := s.text
		for text != "" {
			for e < len(emph) && emph[e].to <= pos {
				e++
			}
			end := len(text)
			in := false
			if e < len(emph) {
				if emph[e].from <= pos {
					in = true
					end = min(end, emph[e].to-pos)
				} else {
					end = min(end, emph[e].from-pos)
				}
			}
			out = append(out, seg{class: s.class, text: text[:end], emph: in})
			text, pos = text[end:], pos+end
		}
	}
	return out
}
