//go:build !unix

package mcp

import "os/exec"

// Without process groups a server's children may outlive it here.
func configure(*exec.Cmd) {}

func signalGroup(cmd *exec.Cmd, _ bool) {
	if cmd.Process != nil {
		_ = cmd.Process.Kill()
	}
}
