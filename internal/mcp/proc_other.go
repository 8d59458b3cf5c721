//go:build !unix

package mcp

import (
	"errors"
	"os/exec"
)

// Without process groups a server's children may outlive it here.
func configure(_ *exec.Cmd, st Start) error {
	if st.NewNetNS || st.NewMountNS {
		return errors.New("namespaces are Linux-only")
	}
	return nil
}

func signalGroup(cmd *exec.Cmd, _ bool) {
	if cmd.Process != nil {
		_ = cmd.Process.Kill()
	}
}
