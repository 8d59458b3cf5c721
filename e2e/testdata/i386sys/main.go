//go:build linux && amd64

// Command i386sys makes system calls through the i386 ABI (int $0x80),
// which a 64-bit process on x86_64 can use where the kernel keeps IA-32
// emulation: a seccomp filter that only matches x86_64 numbers does not see
// them. It prints the raw result of each (a negative errno, or a
// descriptor): TIOCSTI on stdin, and socket(AF_UNIX) through socketcall.
// The e2e attack tests run it as a sandboxed command.
package main

import (
	"fmt"
	"unsafe"
)

func int80(nr, a1, a2, a3 uintptr) uintptr

// Arguments the kernel reads through 32-bit pointers: globals, which the
// linker places below 4 GiB (the heap is not).
var (
	sockArgs [3]uint32
	char     [1]byte
)

const (
	nrIoctl      = 54
	nrSocketcall = 102
	sysSocket    = 1
	afUnix       = 1
	sockStream   = 1
	tiocsti      = 0x5412
)

func main() {
	char[0] = 'x'
	r := int32(int80(nrIoctl, 0, tiocsti, uintptr(unsafe.Pointer(&char[0]))))
	fmt.Printf("i386-ioctl-tiocsti=%d\n", r)
	sockArgs = [3]uint32{afUnix, sockStream, 0}
	r = int32(int80(nrSocketcall, sysSocket, uintptr(unsafe.Pointer(&sockArgs[0])), 0))
	fmt.Printf("i386-socket-unix=%d\n", r)
}
