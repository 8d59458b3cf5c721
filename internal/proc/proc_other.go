//go:build !unix

package proc

import (
	"errors"
	"os"
	"os/exec"
)

// Without process groups a command's children may outlive it here.

const groupsSupported = false

func configure(_ *exec.Cmd, spec Spec) error {
	if spec.NewNetNS || spec.NewMountNS {
		return errors.New("network namespaces are Linux-only")
	}
	return nil
}
func lockThread()                   {}
func unlockThread()                 {}
func identify(int) (string, uint64) { return "", 0 }
func groupAlive(int) bool           { return false }
func killGroup(int)                 {}
func signal(pid int, _ bool) {
	if p, err := os.FindProcess(pid); err == nil {
		_ = p.Kill()
	}
}
func alive(int) bool                   { return false }
func exitCode(ps *os.ProcessState) int { return ps.ExitCode() }

func scan([]Identity, string) (map[int][]Info, error) { return nil, nil }
