//go:build !linux

package hooks

import "syscall"

// sysProcAttr starts a hook in a session of its own (no controlling
// terminal, its own process group).
func sysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setsid: true}
}
