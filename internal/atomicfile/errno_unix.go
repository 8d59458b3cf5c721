//go:build unix

package atomicfile

import "syscall"

var (
	errUnsupported1 error = syscall.EINVAL
	errUnsupported2 error = syscall.ENOTSUP
)
