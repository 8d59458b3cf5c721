package repomap

import (
	"math"
	"slices"
	"strings"
)

// The graph has one node per file. A file that uses an identifier gets an
// edge to every other file defining it, weighted as aider does:
// sqrt(uses) × 10 if the request names the identifier × 10 if the name is
// long and compound × 0.1 if it starts with "_" × 0.1 if more than five
// files define it × 50 if the using file is in focus or in the
// conversation. Import edges add weight 1 per import, shared among the
// files of the imported package. Edges are never materialised per pair:
// one PageRank step sums, per identifier, the flow of its users and hands
// that sum to each definer, so a step costs O(uses + definitions).

const (
	maxIters = 30
	tol      = 1e-6
)

type rankInput struct {
	comp    []*compiled
	ids     int               // number of interned ids
	muls    []float32         // nameMul by id
	mention map[int32]float64 // named in the request: strength in (0,1]
	chat    []bool            // focus or conversation file
	imports [][]int32         // resolved import targets per file
	idf     bool              // damp identifiers used by many files (query mode)
	pers    []float64         // personalization (unnormalized); all zero = uniform
	damping float64           // probability of following an edge (0 = 0.85)
}

type ranking struct {
	fileRank []float64
	defScore [][]float64 // per file, parallel to FileTags.Defs
	defCount []int32     // by interned id: files defining the name
}

// rank runs the personalized PageRank and scores every definition by the
// rank that flows into it.
func rank(in rankInput) ranking {
	n := len(in.comp)
	damping := in.damping
	if damping <= 0 || damping >= 1 {
		damping = 0.85
	}
	defCount := make([]int32, in.ids)
	for _, c := range in.comp {
		for _, id := range c.udefs {
			defCount[id]++
		}
	}
	local := make([]int32, in.ids)
	nd := 0
	for _, dc := range defCount {
		if dc != 0 {
			nd++
		}
	}
	mul := make([]float64, 0, nd)
	nl := int32(0)
	for id, dc := range defCount {
		if dc == 0 {
			continue
		}
		nl++
		local[id] = nl // 1-based; 0 = not defined
		m := float64(in.muls[id])
		if dc > 5 {
			m *= 0.1
		}
		if s := in.mention[int32(id)]; s > 0 {
			m *= 1 + 9*s*s // ×10 for a sure mention, less for a plain word
		}
		mul = append(mul, m)
	}

	if in.idf {
		// an identifier used by many files says little about the request
		users := make([]int32, nl)
		for _, c := range in.comp {
			for _, id := range c.refs {
				if l := local[id]; l > 0 {
					users[l-1]++
				}
			}
		}
		for l, u := range users {
			mul[l] /= math.Log2(2 + float64(u))
		}
	}

	// edges
	offs := make([]int32, n+1)
	ne := 0
	for _, c := range in.comp {
		ne += len(c.refs) // at most one edge per reference
	}
	eLocal := make([]int32, 0, ne)
	eW := make([]float64, 0, ne)
	selfW := make([][]float64, n) // per file, parallel to udefs
	W := make([]float64, n)
	for r, c := range in.comp {
		selfW[r] = make([]float64, len(c.udefs))
		chatMul := 1.0
		if in.chat[r] {
			chatMul = 50
		}
		k := 0
		for j, id := range c.refs {
			l := local[id]
			if l == 0 {
				continue
			}
			for k < len(c.udefs) && c.udefs[k] < id {
				k++
			}
			self := k < len(c.udefs) && c.udefs[k] == id
			others := defCount[id]
			if self {
				others--
			}
			if others == 0 {
				continue
			}
			w := mul[l-1] * float64(c.refW[j]) * chatMul
			if self {
				selfW[r][k] = w
			}
			eLocal = append(eLocal, l-1)
			eW = append(eW, w)
			W[r] += w * float64(others)
		}
		offs[r+1] = int32(len(eLocal))
		for _, t := range in.imports[r] {
			if int(t) != r {
				W[r] += importWeight(len(in.imports[r]))
			}
		}
	}

	P := make([]float64, n)
	sum := 0.0
	for i, v := range in.pers {
		sum += v
		P[i] = v
	}
	if sum == 0 {
		for i := range P {
			P[i] = 1
		}
		sum = float64(n)
	}
	for i := range P {
		P[i] /= sum
	}

	p := append([]float64(nil), P...)
	next := make([]float64, n)
	S := make([]float64, nl)
	flow := func(p []float64) {
		clear(S)
		clear(next)
		for r := range n {
			if W[r] == 0 {
				continue
			}
			f := p[r] / W[r]
			for e := offs[r]; e < offs[r+1]; e++ {
				S[eLocal[e]] += f * eW[e]
			}
			if imps := in.imports[r]; len(imps) > 0 {
				iw := f * importWeight(len(imps))
				for _, t := range imps {
					if int(t) != r {
						next[t] += iw
					}
				}
			}
		}
		for d, c := range in.comp {
			for k, id := range c.udefs {
				v := S[local[id]-1]
				if selfW[d][k] > 0 {
					v -= p[d] / W[d] * selfW[d][k]
				}
				next[d] += v
			}
		}
	}
	for range maxIters {
		flow(p)
		dangling := 0.0
		for r := range n {
			if W[r] == 0 {
				dangling += p[r]
			}
		}
		diff := 0.0
		for d := range n {
			v := damping*next[d] + (damping*dangling+(1-damping))*P[d]
			diff += math.Abs(v - p[d])
			next[d] = v
		}
		p, next = next, p
		if diff < float64(n)*tol {
			break
		}
	}

	// The ranks are quantised to 12 decimals: the same tree gives the same
	// ranks (and the same order of ties) whether its index was built fresh or
	// read from a snapshot, where the edges are summed in another order and
	// the last bits of a float differ.
	for i, v := range p {
		p[i] = math.Round(v*1e12) / 1e12
	}
	// definition scores from the final ranks
	flow(p)
	out := ranking{fileRank: p, defScore: make([][]float64, n), defCount: defCount}
	for d, c := range in.comp {
		scores := make([]float64, len(c.defIDs))
		self := slices.ContainsFunc(selfW[d], func(w float64) bool { return w > 0 })
		for k, id := range c.defIDs {
			l := local[id]
			if l == 0 {
				continue // not among the definitions (only a damaged snapshot says so)
			}
			v := S[l-1]
			// subtract d's own share, found by binary search in udefs
			if self {
				if j, ok := findID(c.udefs, id); ok && selfW[d][j] > 0 {
					v -= p[d] / W[d] * selfW[d][j]
				}
			}
			scores[k] = max(v, 0)
		}
		out.defScore[d] = scores
	}
	return out
}

func importWeight(n int) float64 { return 1 / math.Sqrt(float64(n)) }

func findID(s []int32, id int32) (int, bool) {
	lo, hi := 0, len(s)
	for lo < hi {
		m := (lo + hi) / 2
		if s[m] < id {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return lo, lo < len(s) && s[lo] == id
}

// nameMul is the part of aider's identifier weight that depends on the
// name alone: ×10 for long compound names, ×0.1 for _private ones. The
// ×10 for names in the request and ×0.1 for names defined in more than
// five files are applied per run.
func nameMul(name string) float64 {
	m := 1.0
	if len(name) >= 8 && isCompound(name) {
		m *= 10
	}
	if strings.HasPrefix(name, "_") {
		m *= 0.1
	}
	return m
}

// isCompound reports snake_case, kebab-case or camelCase names.
func isCompound(s string) bool {
	upper, lower, letter := false, false, false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= 'A' && c <= 'Z':
			upper, letter = true, true
		case c >= 'a' && c <= 'z':
			lower, letter = true, true
		}
	}
	return letter && (strings.Contains(strings.Trim(s, "_"), "_") || strings.Contains(s, "-")) || upper && lower
}
