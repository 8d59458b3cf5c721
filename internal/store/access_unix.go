//go:build unix

package store

import "golang.org/x/sys/unix"

// canWrite reports whether this process may write p (a read-only file
// system, or missing permission, says no).
var canWrite = func(p string) bool { return unix.Access(p, unix.W_OK) == nil }
