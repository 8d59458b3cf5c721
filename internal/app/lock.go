package app

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/gofrs/flock"
)

// TryLockRun takes the run's lock file without waiting: a run is driven,
// rolled back or deleted by one process at a time. The kernel drops the lock
// when its process dies, so a crashed run can be taken over at once. A run a
// live process holds is ErrRunInUse.
func TryLockRun(home, runID string) (*flock.Flock, error) {
	dir := filepath.Join(home, "locks")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("lock directory: %w", err)
	}
	l := flock.New(filepath.Join(dir, runID+".lock"), flock.SetPermissions(0o600))
	ok, err := l.TryLock()
	if err != nil {
		return nil, fmt.Errorf("lock run %s: %w", runID, err)
	}
	if !ok {
		return nil, fmt.Errorf("run %s is %w", runID, ErrRunInUse)
	}
	return l, nil
}

// RunIsLive reports whether a process holds the run's lock now.
func RunIsLive(home, runID string) bool {
	fl, err := TryLockRun(home, runID)
	if err != nil {
		return errors.Is(err, ErrRunInUse)
	}
	fl.Unlock()
	return false
}
