package tui

import (
	"strings"
	"sync"
	"testing"

	"agent/internal/event"
	"agent/internal/protocol"
)

// Text deltas within a frame arrive as one update; an event after them
// comes after all of their text; nothing is lost or reordered.
func TestCoalescerKeepsOrder(t *testing.T) {
	var mu sync.Mutex
	var got []protocol.Update
	c := newCoalescer(func(u protocol.Update) { mu.Lock(); got = append(got, u); mu.Unlock() })
	for _, d := range []string{"Hel", "lo, ", "wor", "ld"} {
		c.update(protocol.Update{Kind: protocol.UpdateText, Text: d})
	}
	c.update(protocol.Update{Kind: protocol.UpdateEvent, Event: event.New("r", &event.AssistantMessageData{Text: "Hello, world"})})
	c.update(protocol.Update{Kind: protocol.UpdateText, Text: "more"})
	c.flush()
	mu.Lock()
	defer mu.Unlock()
	var kinds []string
	for _, u := range got {
		switch u.Kind {
		case protocol.UpdateText:
			kinds = append(kinds, "text:"+u.Text)
		case protocol.UpdateEvent:
			kinds = append(kinds, "event")
		}
	}
	if s := strings.Join(kinds, " | "); s != "text:Hello, world | event | text:more" {
		t.Errorf("updates: %s", s)
	}
}
