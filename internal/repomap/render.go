package repomap

import (
	"cmp"
	"container/heap"
	"slices"
	"strings"
)

// cand is one definition competing for a place in the map.
type cand struct {
	f, k  int32 // live file index, index into its Defs
	score float64
}

// candHeap is a min-heap on score, used to keep the best K candidates.
type candHeap []cand

func (h candHeap) Len() int { return len(h) }
func (h candHeap) Less(i, j int) bool {
	if h[i].score != h[j].score {
		return h[i].score < h[j].score
	}
	if h[i].f != h[j].f {
		return h[i].f > h[j].f
	}
	return h[i].k > h[j].k
}
func (h candHeap) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *candHeap) Push(x any)   { *h = append(*h, x.(cand)) }
func (h *candHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

// topK returns the best k candidates produced by each, best first.
func topK(k int, each func(yield func(cand))) []cand {
	h := make(candHeap, 0, k)
	each(func(c cand) {
		if len(h) < k {
			heap.Push(&h, c)
		} else if k > 0 && better(c, h[0]) {
			h[0] = c
			heap.Fix(&h, 0)
		}
	})
	out := []cand(h)
	slices.SortFunc(out, func(a, b cand) int {
		if better(a, b) {
			return -1
		}
		if better(b, a) {
			return 1
		}
		return 0
	})
	return out
}

func better(a, b cand) bool {
	if a.score != b.score {
		return a.score > b.score
	}
	if a.f != b.f {
		return a.f < b.f
	}
	return a.k < b.k
}

// mapRenderer renders a prefix of the candidates as aider-style text.
type mapRenderer struct {
	live     []*srcFile
	cands    []cand
	fileRank []float64
}

// render returns the lines for the first n candidates and the files shown.
func (r *mapRenderer) render(n int) ([]string, []File) {
	byFile := map[int32][]int32{}
	for _, c := range r.cands[:n] {
		byFile[c.f] = append(byFile[c.f], c.k)
	}
	files := make([]int32, 0, len(byFile))
	for f := range byFile {
		files = append(files, f)
	}
	slices.SortFunc(files, func(a, b int32) int {
		if c := cmp.Compare(r.fileRank[b], r.fileRank[a]); c != 0 {
			return c
		}
		return strings.Compare(r.live[a].rel, r.live[b].rel)
	})
	var lines []string
	var out []File
	for _, f := range files {
		fi := r.live[f].info
		defs := fi.defs
		show := make([]byte, len(defs)) // 0 hidden, 1 selected, 2 context
		for _, k := range byFile[f] {
			show[k] = 1
		}
		for _, k := range byFile[f] {
			if d := &defs[k]; d.depth > 0 && d.parN > 0 {
				parent := fi.parent(d)
				for j := int(k) - 1; j >= 0; j-- {
					if defs[j].depth < d.depth && fi.name(&defs[j]) == parent {
						if show[j] == 0 {
							show[j] = 2
						}
						break
					}
				}
			}
		}
		file := File{Path: r.live[f].rel, Rank: r.fileRank[f]}
		lines = append(lines, r.live[f].rel+":")
		gap := false
		for j := range defs {
			d := &defs[j]
			if show[j] == 0 {
				gap = true
				continue
			}
			if gap {
				lines = append(lines, "⋮")
				gap = false
			}
			sig := fi.sig(d)
			lines = append(lines, strings.Repeat("  ", 1+min(int(d.depth), 4))+sig)
			if show[j] == 1 {
				file.Symbols = append(file.Symbols, Symbol{Name: fi.name(d), Kind: fi.kind(d), Line: int(d.line), Signature: sig})
			}
		}
		if gap {
			lines = append(lines, "⋮")
		}
		out = append(out, file)
	}
	return lines, out
}

// fitted is the result of fitting text into the budget.
type fitted struct {
	text   string
	tokens int
	files  []File
}

// fit renders the newcomer items and the longest candidate prefix that
// fit in budget tokens. Token counts come from per-line counts summed
// (binary search over the number of definitions), then the final text
// is counted once exactly and trimmed if the sum underestimated it.
func fit(ctr *counter, budget int, share float64, items []item, r *mapRenderer) fitted {
	cost := func(lines []string) int {
		t := 0
		for _, l := range lines {
			t += ctr.line(l)
		}
		return t
	}
	pickItems := func(limit int) []item {
		order := slices.Clone(items)
		slices.SortStableFunc(order, func(a, b item) int { return cmp.Compare(a.prio, b.prio) })
		used := 0
		titled := map[int]bool{}
		full := map[int]bool{} // sections whose next item did not fit
		var picked []item
		for _, it := range order {
			if full[it.sec] {
				continue
			}
			c := ctr.line(it.text)
			if t := secTitles[it.sec]; t != "" && !titled[it.sec] {
				c += ctr.line(t)
			}
			if used+c > limit {
				full[it.sec] = true
				continue
			}
			used += c
			titled[it.sec] = true
			picked = append(picked, it)
		}
		slices.SortFunc(picked, func(a, b item) int {
			if a.sec != b.sec {
				return cmp.Compare(a.sec, b.sec)
			}
			return cmp.Compare(a.order, b.order)
		})
		return picked
	}
	itemLines := func(picked []item) []string {
		var out []string
		sec := -1
		for _, it := range picked {
			if it.sec != sec {
				sec = it.sec
				if t := secTitles[sec]; t != "" {
					out = append(out, t)
				}
			}
			out = append(out, it.text)
		}
		return out
	}
	assemble := func(top, body []string) string {
		var b strings.Builder
		for _, l := range top {
			b.WriteString(l)
			b.WriteByte('\n')
		}
		if len(top) > 0 && len(body) > 0 {
			b.WriteByte('\n')
		}
		for _, l := range body {
			b.WriteString(l)
			b.WriteByte('\n')
		}
		return b.String()
	}

	picked := pickItems(int(float64(budget) * share))
	top := itemLines(picked)
	avail := budget - cost(top) - 1
	// Binary search the largest n whose rendering fits; bound the search
	// by a cheap estimate so lines far past the budget are never counted.
	hi := min(len(r.cands), max(avail, 0)/3+1)
	lo := 0
	for lo < hi {
		mid := (lo + hi + 1) / 2
		lines, _ := r.render(mid)
		if cost(lines) <= avail {
			lo = mid
		} else {
			hi = mid - 1
		}
	}
	n := lo
	body, files := r.render(n)
	if n == len(r.cands) {
		// the whole map fits: give the rest to the newcomer section
		picked = pickItems(budget - cost(body) - 1)
		top = itemLines(picked)
	}
	text := assemble(top, body)
	tokens := ctr.Count(text)
	for tokens > budget && (n > 0 || len(picked) > 0) {
		if n > 0 {
			n -= max(1, n/20)
			body, files = r.render(n)
		} else {
			picked = picked[:len(picked)-1]
			top = itemLines(picked)
		}
		text = assemble(top, body)
		tokens = ctr.Count(text)
	}
	if tokens > budget {
		text, tokens, files = "", 0, nil
	}
	return fitted{text: text, tokens: tokens, files: files}
}
