package transcript

import (
	"strings"

	"agent/internal/termtext"
)

// LiveLines is how many lines of a running command's output its card shows.
const LiveLines = 5

// liveLines is the last n lines of a running command's output as a card
// shows them: a line rewritten with carriage returns (a progress bar) as
// it stands now, escapes and controls removed, blank ends dropped.
func liveLines(s string, n int) []string {
	s = strings.TrimRight(s, "\r\n \t")
	if s == "" {
		return nil
	}
	all := strings.Split(s, "\n")
	if len(all) > n {
		all = all[len(all)-n:]
	}
	out := make([]string, 0, len(all))
	for _, l := range all {
		l = strings.TrimRight(l, "\r")
		if i := strings.LastIndexByte(l, '\r'); i >= 0 {
			l = l[i+1:]
		}
		out = append(out, termtext.VisibleSpaced(termtext.Strip(l)))
	}
	return out
}
