package tui

import (
	"strings"
	"sync"
	"time"

	"agent/internal/protocol"
)

// textFrame is how long streamed text waits to be sent with what follows
// it: about one frame, so the program draws once per frame, not once per
// token.
const textFrame = 16 * time.Millisecond

// coalescer hands the service's updates to the program in order, joining
// the assistant-text deltas that arrive within a frame into one update.
// Any other update first sends the text waiting before it.
type coalescer struct {
	send func(protocol.Update)

	mu      sync.Mutex
	pending strings.Builder
	timer   *time.Timer
}

func newCoalescer(send func(protocol.Update)) *coalescer { return &coalescer{send: send} }

// update is the service subscriber.
func (c *coalescer) update(u protocol.Update) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if u.Kind == protocol.UpdateText {
		c.pending.WriteString(u.Text)
		if c.timer == nil {
			c.timer = time.AfterFunc(textFrame, c.flush)
		}
		return
	}
	c.flushLocked()
	c.send(u)
}

// flush sends the text waiting, if any.
func (c *coalescer) flush() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.flushLocked()
}

func (c *coalescer) flushLocked() {
	if c.timer != nil {
		c.timer.Stop()
		c.timer = nil
	}
	if c.pending.Len() > 0 {
		text := c.pending.String()
		c.pending.Reset()
		c.send(protocol.Update{Kind: protocol.UpdateText, Text: text})
	}
}
