//go:build linux

package hooks

import "syscall"

// sysProcAttr starts a hook in a session of its own (no controlling
// terminal, its own process group) that the kernel kills when the agent
// dies: a SIGKILLed agent leaves no hook deciding on for no one (the
// resumed run asks again).
func sysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setsid: true, Pdeathsig: syscall.SIGKILL}
}
