//go:build linux

package sandbox

import (
	"errors"
	"fmt"
	"os/exec"
	"runtime"
	"syscall"

	llsys "github.com/landlock-lsm/go-landlock/landlock/syscall"
	"golang.org/x/sys/unix"
)

// Detect reads what this kernel supports: the Landlock ABI, and whether
// user namespaces can be made (assumed where the kernel allows them;
// Sandbox.NoUserNS learns otherwise at the first command).
func Detect() Capabilities {
	c := Capabilities{}
	v, err := llsys.LandlockGetABIVersion()
	switch {
	case err != nil && errors.Is(err, syscall.ENOSYS):
		c.Reason = "this kernel has no Landlock (Linux 5.13 or later with CONFIG_SECURITY_LANDLOCK)"
	case err != nil && errors.Is(err, syscall.EOPNOTSUPP):
		c.Reason = "Landlock is built into this kernel but not enabled (add landlock to the lsm= boot parameter)"
	case err != nil:
		c.Reason = fmt.Sprintf("Landlock is not usable here (%v)", err)
	default:
		c.LandlockABI = v
	}
	c.UserNS = userNSAllowed()
	return c
}

// userNSAllowed reads the kernel's switches for user namespaces.
func userNSAllowed() bool {
	if n, ok := readInt("/proc/sys/user/max_user_namespaces"); ok && n == 0 {
		return false
	}
	if unix.Getuid() == 0 {
		return true
	}
	if n, ok := readInt("/proc/sys/kernel/unprivileged_userns_clone"); ok && n == 0 {
		return false
	}
	if n, ok := readInt("/proc/sys/kernel/apparmor_restrict_unprivileged_userns"); ok && n == 1 {
		return false
	}
	return true
}

// nsStartError: a start failed because the namespaces could not be made.
func nsStartError(err error) bool {
	return errors.Is(err, syscall.EPERM) || errors.Is(err, syscall.EINVAL) || errors.Is(err, syscall.ENOSPC) ||
		errors.Is(err, syscall.EACCES) || errors.Is(err, syscall.EUSERS)
}

func apply(sp helperSpec, argv, environ []string) error {
	path, err := exec.LookPath(argv[0])
	if err != nil {
		return fmt.Errorf("sandbox: %w", err)
	}
	runtime.LockOSThread() // never unlocked: the confined thread execs
	if err := confine(sp); err != nil {
		return err
	}
	if err := syscall.Exec(path, argv, environ); err != nil {
		return fmt.Errorf("sandbox: exec %s: %w", argv[0], err)
	}
	return nil
}

// loopbackUp sets the lo interface of the current network namespace up.
func loopbackUp() error {
	s, err := unix.Socket(unix.AF_INET, unix.SOCK_DGRAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return err
	}
	defer unix.Close(s)
	ifr, err := unix.NewIfreq("lo")
	if err != nil {
		return err
	}
	if err := unix.IoctlIfreq(s, unix.SIOCGIFFLAGS, ifr); err != nil {
		return err
	}
	ifr.SetUint16(ifr.Uint16() | unix.IFF_UP)
	return unix.IoctlIfreq(s, unix.SIOCSIFFLAGS, ifr)
}
