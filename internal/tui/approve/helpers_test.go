package approve

import (
	"time"

	tea "charm.land/bubbletea/v2"

	"agent/internal/tui/tuitest"
)

// clock is a settable time source.
type clock struct{ t time.Time }

func (c *clock) now() time.Time          { return c.t }
func (c *clock) advance(d time.Duration) { c.t = c.t.Add(d) }

// typeText sends each rune of s as a key press.
func typeText(m *Model, s string) {
	for _, r := range s {
		m.Update(tea.KeyPressMsg{Code: r, Text: string(r)})
	}
}

// decisions are the DecisionMsgs among the messages of cmd.
func decisions(cmd tea.Cmd) []DecisionMsg {
	var out []DecisionMsg
	for _, m := range tuitest.Msgs(cmd) {
		if d, ok := m.(DecisionMsg); ok {
			out = append(out, d)
		}
	}
	return out
}
