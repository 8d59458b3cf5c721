//go:build !linux

package tools

import (
	"errors"
	"io"
)

// builtinOpenSupported: only Linux's openat2 confines the in-process
// commands' writes; elsewhere bash runs every command.
func builtinOpenSupported() bool { return false }

func openBeneath(string, string, bool) (io.WriteCloser, error) {
	return nil, errors.New("in-process commands need Linux")
}
