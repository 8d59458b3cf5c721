//go:build unix

package checkpoint

import (
	"os"

	"golang.org/x/sys/unix"
)

// lockFile takes an exclusive flock on f (go-git locks HEAD while writing it).
func lockFile(f *os.File) error { return unix.Flock(int(f.Fd()), unix.LOCK_EX) }

func unlockFile(f *os.File) error { return unix.Flock(int(f.Fd()), unix.LOCK_UN) }
