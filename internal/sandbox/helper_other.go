//go:build !linux

package sandbox

import (
	"errors"
	"runtime"
)

// Detect: there is no sandbox outside Linux.
func Detect() Capabilities {
	return Capabilities{Reason: "the command sandbox is Linux-only (Landlock); " + runtime.GOOS + " has none built in"}
}

func nsStartError(error) bool { return false }

func apply(helperSpec, []string, []string) error {
	return errors.New("sandbox: not available on " + runtime.GOOS + "; the command was not run")
}
