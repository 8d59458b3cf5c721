//go:build !unix

package atomicfile

import "errors"

var (
	errUnsupported1 = errors.New("atomicfile: unused")
	errUnsupported2 = errUnsupported1
)
