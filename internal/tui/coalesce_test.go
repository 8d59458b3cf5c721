package tui

import (
	"strings"
	"sync"
	"testing"

	"agent/internal/app"
	"agent/internal/event"
)

// Text deltas within a frame arrive as one update; an event after them
// comes after all of their text; nothing is lost or reordered.
func TestCoalescerKeepsOrder(t *testing.T) {
	var mu sync.Mutex
	var got []app.Update
	c := newCoalescer(func(u app.Update) { mu.Lock(); got = append(got, u); mu.Unlock() })
	for _, d := range []string{"Hel", "lo, ", "wor", "ld"} {
		c.update(app.Update{Kind: app.UpdateText, Text: d})
	}
	c.update(app.Update{Kind: app.UpdateEvent, Event: event.New("r", &event.AssistantMessageData{Text: "Hello, world"})})
	c.update(app.Update{Kind: app.UpdateText, Text: "more"})
	c.flush()
	mu.Lock()
	defer mu.Unlock()
	var kinds []string
	for _, u := range got {
		switch u.Kind {
		case app.UpdateText:
			kinds = append(kinds, "text:"+u.Text)
		case app.UpdateEvent:
			kinds = append(kinds, "event")
		}
	}
	if s := strings.Join(kinds, " | "); s != "text:Hello, world | event | text:more" {
		t.Errorf("updates: %s", s)
	}
}
