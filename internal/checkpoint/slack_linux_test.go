//go:build linux

package checkpoint

import (
	"os"
	"testing"
)

// Nanosecond-timestamp file systems get the fine racy slack; one the agent
// does not know keeps git's coarse 2 s.
func TestTimestampSlack(t *testing.T) {
	if got := timestampSlack("/proc"); got != racySlack {
		t.Errorf("procfs: slack %v, want the coarse %v", got, racySlack)
	}
	if _, err := os.Stat("/dev/shm"); err == nil {
		if got := timestampSlack("/dev/shm"); got != fineSlack {
			t.Errorf("tmpfs: slack %v, want %v", got, fineSlack)
		}
	}
	if got := timestampSlack("/no/such/dir"); got != racySlack {
		t.Errorf("an unreadable path: slack %v, want %v", got, racySlack)
	}
}
