package mcp

import (
	"os/exec"
	"syscall"
)

// configure starts a server in a new session (its own process group, no
// controlling terminal: nothing it does reaches the person's terminal),
// and has the kernel kill it if the agent dies without closing it.
func configure(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Pdeathsig: syscall.SIGKILL}
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
