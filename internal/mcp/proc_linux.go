package mcp

import (
	"os/exec"
	"syscall"

	"agent/internal/proc"
)

// configure starts a server in a new session (its own process group, no
// controlling terminal: nothing it does reaches the person's terminal),
// and has the kernel kill it if the agent dies without closing it.
func configure(cmd *exec.Cmd, st Start) error {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Pdeathsig: syscall.SIGKILL}
	proc.Namespaces(cmd.SysProcAttr, st.NewNetNS, st.NewMountNS)
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
