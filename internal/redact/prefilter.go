package redact

// automaton is a case-insensitive Aho-Corasick matcher compiled to a dense
// DFA over byte classes: bytes that occur in no keyword share class 0, and an
// upper-case letter shares the class of its lower-case form. Transitions are
// stored premultiplied (state*nclass) so the hot loop is one add and one load
// per input byte, and states with outputs are numbered last so that "is this
// a hit?" is one comparison.
type automaton struct {
	class    [256]int32
	nclass   int32
	delta    []int32 // delta[state*nclass+class] = next state*nclass
	firstOut int32   // premultiplied id of the first state with outputs
	outStart []int32 // per state id: outputs are outs[outStart[id]:outStart[id+1]]
	outs     []int32 // keyword indexes
}

// newAutomaton compiles the lower-case keywords kws. Keyword i is reported as
// index i.
func newAutomaton(kws []string) *automaton {
	a := &automaton{}
	// Byte classes.
	var cls [256]int32
	n := int32(1)
	for _, kw := range kws {
		for i := 0; i < len(kw); i++ {
			c := lower(kw[i])
			if cls[c] == 0 {
				cls[c] = n
				n++
			}
		}
	}
	for c := 'A'; c <= 'Z'; c++ {
		cls[c] = cls[c+'a'-'A']
	}
	a.class = cls
	a.nclass = n
	nc := int(n)

	// Trie.
	type node struct {
		next []int32
		fail int32
		out  []int32
	}
	newNode := func() node {
		nx := make([]int32, nc)
		for i := range nx {
			nx[i] = -1
		}
		return node{next: nx}
	}
	nodes := []node{newNode()}
	for k, kw := range kws {
		s := int32(0)
		for i := 0; i < len(kw); i++ {
			c := cls[lower(kw[i])]
			if nodes[s].next[c] < 0 {
				nodes = append(nodes, newNode())
				nodes[s].next[c] = int32(len(nodes) - 1)
			}
			s = nodes[s].next[c]
		}
		nodes[s].out = append(nodes[s].out, int32(k))
	}

	// Breadth-first: failure links, inherited outputs, complete transitions.
	order := make([]int32, 0, len(nodes))
	for c := 0; c < nc; c++ {
		if t := nodes[0].next[c]; t >= 0 {
			nodes[t].fail = 0
			order = append(order, t)
		} else {
			nodes[0].next[c] = 0
		}
	}
	for q := 0; q < len(order); q++ {
		s := order[q]
		f := nodes[s].fail
		nodes[s].out = append(nodes[s].out, nodes[f].out...)
		for c := 0; c < nc; c++ {
			t := nodes[s].next[c]
			if t >= 0 {
				nodes[t].fail = nodes[f].next[c]
				order = append(order, t)
			} else {
				nodes[s].next[c] = nodes[f].next[c]
			}
		}
	}

	// Renumber: states without outputs first (root stays 0).
	id := make([]int32, len(nodes))
	next := int32(0)
	for s := range nodes {
		if len(nodes[s].out) == 0 {
			id[s] = next
			next++
		}
	}
	firstOut := next
	for s := range nodes {
		if len(nodes[s].out) != 0 {
			id[s] = next
			next++
		}
	}
	a.firstOut = firstOut * n
	a.delta = make([]int32, len(nodes)*nc)
	a.outStart = make([]int32, len(nodes)+1)
	byID := make([]int32, len(nodes))
	for s := range nodes {
		byID[id[s]] = int32(s)
		for c := 0; c < nc; c++ {
			a.delta[int(id[s])*nc+c] = id[nodes[s].next[c]] * n
		}
	}
	for i, s := range byID {
		a.outStart[i] = int32(len(a.outs))
		a.outs = append(a.outs, nodes[s].out...)
	}
	a.outStart[len(nodes)] = int32(len(a.outs))
	return a
}

// outputs returns the keyword indexes recognised in premultiplied state s.
func (a *automaton) outputs(s int32) []int32 {
	id := s / a.nclass
	return a.outs[a.outStart[id]:a.outStart[id+1]]
}
