package tui

import (
	"runtime/debug"

	tea "charm.land/bubbletea/v2"

	"agent/internal/event"
)

// reopenReleaseEvents is the size of a reopened journal past which its
// decoding is worth handing back to the OS at once.
const reopenReleaseEvents = 2000

// releaseReopened is called once a reopened run's transcript is built from
// its journal: it drops the decoded events (the transcript and the run's
// state keep what they need; the message that carried them may stay
// referenced until the next one) and, for a long run, returns a command
// that gives the memory the decoding took back to the OS. Reopening 1,000
// steps decodes ~4,000 events; the collector's headroom and pages it had
// not yet returned kept the process 4-6 MiB above its steady size
// (issue 21: a reopened 1,000-step session ≤ 60 MiB; docs/benchmarks.md).
func releaseReopened(history []event.Event) tea.Cmd {
	n := len(history)
	clear(history)
	if n < reopenReleaseEvents {
		return nil
	}
	return func() tea.Msg {
		debug.FreeOSMemory()
		return nil
	}
}
