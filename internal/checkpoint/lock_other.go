//go:build !unix

package checkpoint

import "os"

// lockFile is a no-op where flock does not exist: go-git locks only HEAD,
// once, when it creates the repository, and both writers write the same.
func lockFile(*os.File) error { return nil }

func unlockFile(*os.File) error { return nil }
