package app

import (
	"sync"

	"agent/internal/protocol"
)

// hub fans updates out to subscribers, synchronously and in order, on the
// goroutine that drives the run: a subscriber must not block for long (the
// TUI hands the update to its program; the headless renderers print).
type hub struct {
	mu   sync.Mutex
	next int
	subs map[int]func(protocol.Update)
}

// Subscribe calls fn with every update from now on; the returned func ends
// the subscription.
func (s *Service) Subscribe(fn func(protocol.Update)) (cancel func()) {
	h := &s.hub
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.subs == nil {
		h.subs = map[int]func(protocol.Update){}
	}
	id := h.next
	h.next++
	h.subs[id] = fn
	return func() {
		h.mu.Lock()
		delete(h.subs, id)
		h.mu.Unlock()
	}
}

func (h *hub) publish(u protocol.Update) {
	h.mu.Lock()
	fns := make([]func(protocol.Update), 0, len(h.subs))
	for i := 0; i < h.next; i++ {
		if fn, ok := h.subs[i]; ok {
			fns = append(fns, fn)
		}
	}
	h.mu.Unlock()
	for _, fn := range fns {
		fn(u)
	}
}
