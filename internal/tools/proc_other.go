//go:build !unix

package tools

import (
	"os"
	"os/exec"
)

// setProcessGroup is a no-op where process groups do not exist.
func setProcessGroup(cmd *exec.Cmd) {}

// killGroup kills the command's process (its children may survive here).
func killGroup(cmd *exec.Cmd) {
	if cmd.Process != nil {
		_ = cmd.Process.Kill()
	}
}

func exitCode(ps *os.ProcessState) int { return ps.ExitCode() }
