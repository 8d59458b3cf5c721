//go:build unix && !linux

package mcp

import (
	"errors"
	"os/exec"
	"syscall"
)

// configure starts a server in a new session: its own process group, no
// controlling terminal.
func configure(cmd *exec.Cmd, st Start) error {
	if st.NewNetNS || st.NewMountNS {
		return errors.New("namespaces are Linux-only")
	}
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	return nil
}

func signalGroup(cmd *exec.Cmd, kill bool) {
	sig := syscall.SIGTERM
	if kill {
		sig = syscall.SIGKILL
	}
	if cmd.Process != nil && cmd.Process.Pid > 0 {
		_ = syscall.Kill(-cmd.Process.Pid, sig)
	}
}
