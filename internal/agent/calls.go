package agent

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"sort"
	"strings"
)

// callAssembler puts streamed tool-call fragments back together. Model output
// is untrusted: fragments may come for indexes never started, ids may be
// missing or repeated; every case yields a well-formed call the loop can
// validate and answer.
type callAssembler struct {
	step  int
	byIdx map[int]*ToolCall
	order []int
	args  map[int]*strings.Builder
}

func newCallAssembler(step int) *callAssembler {
	return &callAssembler{step: step, byIdx: map[int]*ToolCall{}, args: map[int]*strings.Builder{}}
}

func (a *callAssembler) get(idx int) *ToolCall {
	c, ok := a.byIdx[idx]
	if !ok {
		c = &ToolCall{}
		a.byIdx[idx] = c
		a.args[idx] = &strings.Builder{}
		a.order = append(a.order, idx)
	}
	return c
}

func (a *callAssembler) add(se StreamEvent) {
	c := a.get(se.Index)
	switch se.Kind {
	case EvToolCallStart:
		if se.ID != "" {
			c.ID = se.ID
		}
		if se.Name != "" {
			c.Name = se.Name
		}
	case EvToolCallDelta:
		a.args[se.Index].WriteString(se.Text)
	}
}

// calls returns the assembled calls in stream order, with unique ids.
func (a *callAssembler) calls() []ToolCall {
	sort.SliceStable(a.order, func(i, j int) bool { return a.order[i] < a.order[j] })
	seen := map[string]bool{}
	out := make([]ToolCall, 0, len(a.order))
	for i, idx := range a.order {
		c := *a.byIdx[idx]
		c.Arguments = a.args[idx].String()
		if c.ID == "" || seen[c.ID] {
			c.ID = fmt.Sprintf("call_s%d_%d", a.step+1, i)
		}
		seen[c.ID] = true
		out = append(out, c)
	}
	return out
}

// ArgsHash binds an approval to exactly one call's tool and arguments.
func ArgsHash(name, args string) string {
	h := sha256.Sum256([]byte(name + "\x00" + args))
	return hex.EncodeToString(h[:8])
}
