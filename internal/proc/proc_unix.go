//go:build unix && !linux

package proc

import (
	"errors"
	"os"
	"os/exec"
	"syscall"
)

// Where there is no /proc and no parent-death signal, a command runs in its
// own process group; what it leaves is found by its group id only.

const groupsSupported = true

func configure(cmd *exec.Cmd, spec Spec) error {
	if spec.NewNetNS || spec.NewMountNS {
		return errNoNetNS
	}
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	return nil
}
func lockThread()   {}
func unlockThread() {}

func identify(int) (string, uint64) { return "", 0 }

func groupAlive(pgid int) bool { return pgid > 0 && syscall.Kill(-pgid, 0) == nil }

func killGroup(pgid int) {
	if pgid > 0 {
		_ = syscall.Kill(-pgid, syscall.SIGKILL)
	}
}

func signal(pid int, kill bool) {
	sig := syscall.SIGTERM
	if kill {
		sig = syscall.SIGKILL
	}
	_ = syscall.Kill(pid, sig) // a negative pid is a whole group
}

func alive(pid int) bool { return syscall.Kill(pid, 0) == nil }

func exitCode(ps *os.ProcessState) int {
	if ws, ok := ps.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return 128 + int(ws.Signal())
	}
	return ps.ExitCode()
}

// scan reports a whole live group as one entry (pid -PGID): without /proc
// its members cannot be listed.
func scan(ids []Identity, _ string) (map[int][]Info, error) {
	out := map[int][]Info{}
	for _, id := range ids {
		if groupAlive(id.PGID) {
			out[id.PGID] = []Info{{PID: -id.PGID, PGID: id.PGID, Command: "(process group)"}}
		}
	}
	return out, nil
}

var errNoNetNS = errors.New("network namespaces are Linux-only")
