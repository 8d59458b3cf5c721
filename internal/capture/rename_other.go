//go:build !linux

package capture

import (
	"io/fs"
	"os"
)

// renameNoReplace moves the finished task into place unless something is
// there already.
func renameNoReplace(from, to string) error {
	if _, err := os.Lstat(to); err == nil {
		return fs.ErrExist
	}
	return os.Rename(from, to)
}
