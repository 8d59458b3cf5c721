package contextbuild

import (
	"crypto/sha256"
	"hash"

	"agent/internal/agent"
)

// hashPrefix keeps the hash state of the messages a layer hashed at the
// previous build. The older rounds (L6) grow by a round a step and are
// otherwise the same messages, so a build hashes only what follows them
// (at 800 steps, hashing the whole layer again was a fifth of a build).
type hashPrefix struct {
	msgs []agent.Message // what was hashed (copies sharing the strings)
	sum  hash.Hash       // the state after msgs; only ever cloned
}

// hashMsgs hashes msgs into l as l.hashMsg of each would, from the state
// after the previous build's messages when they are the first of msgs and
// l has hashed nothing yet (else from l's state, and nothing is kept).
func (p *hashPrefix) hashMsgs(l *layer, msgs []agent.Message) {
	if l.sum != nil {
		p.msgs, p.sum = p.msgs[:0], nil
		for k := range msgs {
			l.hashMsg(&msgs[k])
		}
		return
	}
	start := 0
	if p.sum != nil && len(p.msgs) <= len(msgs) {
		k := 0
		for k < len(p.msgs) && sameHashed(&p.msgs[k], &msgs[k]) {
			k++
		}
		if k == len(p.msgs) {
			if c, err := p.sum.(hash.Cloner).Clone(); err == nil {
				l.sum, start = c.(hash.Hash), k
			}
		}
	}
	if start == 0 {
		l.sum = sha256.New()
		p.msgs = p.msgs[:0]
	}
	for k := start; k < len(msgs); k++ {
		l.hashMsg(&msgs[k])
	}
	p.msgs = append(p.msgs, msgs[start:]...)
	p.sum = nil
	if c, ok := l.sum.(hash.Cloner); ok {
		if s, err := c.Clone(); err == nil {
			p.sum = s.(hash.Hash)
		}
	}
}

// sameHashed reports whether a and b hash the same (layer.hashMsg).
func sameHashed(a, b *agent.Message) bool {
	if a.Role != b.Role || a.Content != b.Content || a.ToolCallID != b.ToolCallID || len(a.ToolCalls) != len(b.ToolCalls) {
		return false
	}
	for i := range a.ToolCalls {
		x, y := &a.ToolCalls[i], &b.ToolCalls[i]
		if x.ID != y.ID || x.Name != y.Name || x.Arguments != y.Arguments {
			return false
		}
	}
	return true
}
