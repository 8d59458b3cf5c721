//go:build !unix

package checkpoint

import "os"

// lockFile is a no-op where flock does not exist: go-git locks only HEAD,
// once, when it creates the repository, and both writers write the same.
func lockFile(*os.File) error { return nil }

func unlockFile(*os.File) error { return nil }

// tryLockFile cannot tell a live object log from a dead one without flock:
// every other process's log is read as live and folded by its owner.
func tryLockFile(*os.File) (bool, error) { return false, nil }
