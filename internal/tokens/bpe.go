package tokens

import (
	_ "embed" // the vocabulary files
	"fmt"
	"hash/maphash"
	"math"
	"strings"
	"sync"
)

// vocab is one encoding's byte-pair ranks, token bytes to rank (its id),
// kept compact: every token's bytes in one string (the embedded file's,
// not copied), their end offsets, and an open-addressing table of ids
// (linear probing, under 40 % full).
type vocab struct {
	blob  string   // the tokens' bytes, in id order
	ends  []uint32 // ends[id] is where token id ends in blob
	slots []uint32 // id+1 of the token hashed there, 0 for none
	seed  maphash.Seed
}

// token returns the bytes of token id.
func (v *vocab) token(id uint32) string {
	start := uint32(0)
	if id > 0 {
		start = v.ends[id-1]
	}
	return v.blob[start:v.ends[id]]
}

// rank returns the rank of the token whose bytes are s, if s is a token.
func (v *vocab) rank(s string) (uint32, bool) {
	mask := uint64(len(v.slots) - 1)
	for i := maphash.String(v.seed, s) & mask; ; i = (i + 1) & mask {
		id := v.slots[i]
		if id == 0 {
			return noRank, false
		}
		if v.token(id-1) == s {
			return id - 1, true
		}
	}
}

// The vocabularies, written by internal/genvocab from the ones
// github.com/tiktoken-go/tokenizer compiles in (see its doc for the format).
//
//go:generate go run ./internal/genvocab -dir vocab
var (
	//go:embed vocab/o200k_base.tokv
	o200kFile string
	//go:embed vocab/cl100k_base.tokv
	cl100kFile string
)

// vocabSizes are the ordinary (non-special) token counts of the encodings;
// a vocabulary file of another size is refused.
var vocabSizes = [...]int{O200kBase: 199_998, Cl100kBase: 100_256}

// vocabs builds each encoding's table once per process, on first use. With
// the embedded files these are the package's only package-level values that
// are not constants, and what they hold never changes once built.
var vocabs = [...]func() (*vocab, error){
	O200kBase:  sync.OnceValues(func() (*vocab, error) { return loadVocab(O200kBase, vocabFile(O200kBase)) }),
	Cl100kBase: sync.OnceValues(func() (*vocab, error) { return loadVocab(Cl100kBase, vocabFile(Cl100kBase)) }),
}

// vocabFile returns the embedded vocabulary file of enc.
func vocabFile(enc Encoding) string {
	if enc == Cl100kBase {
		return cl100kFile
	}
	return o200kFile
}

const vocabMagic = "tokv1\n"

// loadVocab reads a vocabulary file: the magic, the token count N as a
// little-endian uint32, N token lengths of a byte each, the tokens' bytes.
func loadVocab(enc Encoding, file string) (*vocab, error) {
	bad := func(why string) (*vocab, error) {
		return nil, fmt.Errorf("tokens: the embedded %v vocabulary is damaged (%s); rebuild after `go generate ./internal/tokens/`", enc, why)
	}
	if !strings.HasPrefix(file, vocabMagic) || len(file) < len(vocabMagic)+4 {
		return bad("no header")
	}
	h := file[len(vocabMagic):]
	n := int(uint32(h[0]) | uint32(h[1])<<8 | uint32(h[2])<<16 | uint32(h[3])<<24)
	if n != vocabSizes[enc] || len(h) < 4+n {
		return bad(fmt.Sprintf("%d tokens, want %d", n, vocabSizes[enc]))
	}
	lens, blob := h[4:4+n], h[4+n:]
	v := &vocab{blob: blob, ends: make([]uint32, n), seed: maphash.MakeSeed()}
	end := uint32(0)
	for id := range n {
		if lens[id] == 0 {
			return bad(fmt.Sprintf("token %d is empty", id))
		}
		end += uint32(lens[id])
		v.ends[id] = end
	}
	if int(end) != len(blob) {
		return bad(fmt.Sprintf("%d bytes of tokens, the lengths add up to %d", len(blob), end))
	}
	slots := 1
	for slots < n*5/2 {
		slots <<= 1
	}
	v.slots = make([]uint32, slots)
	mask := uint64(slots - 1)
	for id := range uint32(n) {
		tok := v.token(id)
		i := maphash.String(v.seed, tok) & mask
		for ; v.slots[i] != 0; i = (i + 1) & mask {
			if v.token(v.slots[i]-1) == tok {
				return bad(fmt.Sprintf("tokens %d and %d have the same bytes", v.slots[i]-1, id))
			}
		}
		v.slots[i] = id + 1
	}
	return v, nil
}

// mergeHeapFrom is the piece length from which merging uses a heap: the
// linear scan is faster for the short pieces of ordinary text.
const mergeHeapFrom = 256

// noRank marks a pair that is not a token.
const noRank = math.MaxUint32

// scratch is a count's reusable merge state.
type scratch struct {
	parts []part
	nodes []node
	heap  []cand
}

type part struct {
	start int
	rank  uint32 // rank of the token parts[i]..parts[i+2], or noRank
}

// count returns the number of tokens tiktoken's byte-pair merge makes of
// one piece: a piece that is a token is one; otherwise, starting from its
// bytes, the adjacent pair with the lowest rank (the leftmost among equals)
// merges until no pair is a token.
func (v *vocab) count(piece string, sc *scratch) int {
	if _, ok := v.rank(piece); ok {
		return 1
	}
	if len(piece) >= mergeHeapFrom {
		return v.countHeap(piece, sc)
	}
	parts := sc.parts[:0]
	for i := range len(piece) + 1 {
		parts = append(parts, part{start: i, rank: noRank})
	}
	rank := func(i int) uint32 {
		if i+2 >= len(parts) {
			return noRank
		}
		r, _ := v.rank(piece[parts[i].start:parts[i+2].start])
		return r
	}
	for i := range len(parts) - 2 {
		parts[i].rank = rank(i)
	}
	for len(parts) > 2 {
		best, at := uint32(noRank), -1
		for i := range len(parts) - 2 {
			if parts[i].rank < best {
				best, at = parts[i].rank, i
			}
		}
		if at < 0 {
			break
		}
		parts = append(parts[:at+1], parts[at+2:]...)
		parts[at].rank = rank(at)
		if at > 0 {
			parts[at-1].rank = rank(at - 1)
		}
	}
	sc.parts = parts
	return len(parts) - 1
}

// node is a part boundary in countHeap's linked list.
type node struct {
	prev, next int32
	rank       uint32 // rank of merging this part with the next, or noRank
}

type cand struct {
	rank uint32
	at   int32
}

func (a cand) less(b cand) bool { return a.rank < b.rank || (a.rank == b.rank && a.at < b.at) }

// countHeap is count for a long piece: the same merges in O(n log n), the
// pairs kept in a min-heap by (rank, position) and stale entries skipped.
func (v *vocab) countHeap(piece string, sc *scratch) int {
	n := int32(len(piece))
	nodes := sc.nodes[:0]
	for i := range n + 1 {
		nodes = append(nodes, node{prev: i - 1, next: i + 1, rank: noRank})
	}
	nodes[n].next = -1
	rankAt := func(i int32) uint32 {
		j := nodes[i].next
		if j < 0 || nodes[j].next < 0 {
			return noRank
		}
		r, _ := v.rank(piece[i:nodes[j].next])
		return r
	}
	h := sc.heap[:0]
	push := func(c cand) {
		h = append(h, c)
		for k := len(h) - 1; k > 0; {
			p := (k - 1) / 2
			if !h[k].less(h[p]) {
				break
			}
			h[k], h[p] = h[p], h[k]
			k = p
		}
	}
	pop := func() cand {
		top := h[0]
		last := len(h) - 1
		h[0] = h[last]
		h = h[:last]
		for k := 0; ; {
			c := 2*k + 1
			if c >= len(h) {
				break
			}
			if c+1 < len(h) && h[c+1].less(h[c]) {
				c++
			}
			if !h[c].less(h[k]) {
				break
			}
			h[k], h[c] = h[c], h[k]
			k = c
		}
		return top
	}
	for i := range n - 1 {
		if r := rankAt(i); r != noRank {
			nodes[i].rank = r
			push(cand{r, i})
		}
	}
	count := int(n)
	for len(h) > 0 {
		c := pop()
		i := c.at
		if nodes[i].rank != c.rank || nodes[i].next < 0 {
			continue // stale: this pair changed since it was pushed
		}
		j := nodes[i].next
		k := nodes[j].next
		nodes[j].rank = noRank
		nodes[j].next = -2 // removed
		nodes[i].next = k
		if k >= 0 {
			nodes[k].prev = i
		}
		count--
		for _, b := range [2]int32{i, nodes[i].prev} {
			if b < 0 {
				continue
			}
			nodes[b].rank = rankAt(b)
			if nodes[b].rank != noRank {
				push(cand{nodes[b].rank, b})
			}
		}
	}
	sc.nodes, sc.heap = nodes, h
	return count
}
