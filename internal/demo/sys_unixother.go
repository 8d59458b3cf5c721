//go:build unix && !linux && !darwin && !freebsd && !netbsd && !openbsd && !dragonfly

package demo

import "golang.org/x/sys/unix"

const (
	ioctlGetTermios = unix.TCGETS
	ioctlSetTermios = unix.TCSETS
)
