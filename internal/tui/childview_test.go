package tui

import (
	"strings"
	"testing"
	"time"

	"agent/internal/tui/theme"
	"agent/internal/tui/transcript"
)

// The subagent view's header carries model output (the child's current
// tool call): its escapes are shown, never sent to the terminal.
func TestChildViewHeaderIsSanitised(t *testing.T) {
	th := theme.New(true, false)
	m := &model{th: th, width: 160, now: time.Now}
	m.subs.order = []*subagent{{run: "r1", kind: "explore", desc: "look around", status: transcript.StatusRunning,
		started: time.Now(), doing: "run_command printf \x1b]52;c;aGk=\x07 \x1b[2J", tr: newTranscript(th, nil)}}
	v := m.childView(10)
	for _, bad := range []string{"\x1b]52", "\x07", "\x1b[2J"} {
		if strings.Contains(v, bad) {
			t.Errorf("the subagent view prints %q raw:\n%q", bad, v)
		}
	}
	if !strings.Contains(stripANSI(v), "run_command printf") {
		t.Errorf("the subagent view lacks the child's tool call:\n%s", stripANSI(v))
	}
}
