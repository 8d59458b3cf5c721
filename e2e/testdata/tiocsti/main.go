// Command tiocsti tries to type its first argument into a terminal: with
// the TIOCSTI ioctl on stdin, stdout, stderr and /dev/tty (also with the
// ioctl's request disguised by upper bits, which the kernel ignores), and
// by writing to /dev/tty. It prints what each attempt did. The e2e tests
// run it as a sandboxed command.
package main

import (
	"fmt"
	"os"
	"strings"
	"syscall"
	"unsafe"
)

const tiocsti = 0x5412

func push(fd int, req uintptr, s string) string {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if _, _, e := syscall.Syscall(syscall.SYS_IOCTL, uintptr(fd), req, uintptr(unsafe.Pointer(&c))); e != 0 {
			return e.Error()
		}
	}
	return "injected"
}

func main() {
	line := os.Args[1] + "\n"
	var got []string
	for fd, name := range []string{"stdin", "stdout", "stderr"} {
		got = append(got, name+":"+push(fd, tiocsti, line))
		got = append(got, name+"-hi:"+push(fd, 1<<32|tiocsti, line))
	}
	if f, err := os.OpenFile("/dev/tty", os.O_RDWR, 0); err == nil {
		got = append(got, "tty:"+push(int(f.Fd()), tiocsti, line))
		if _, err := f.WriteString("TTY-WRITE-" + os.Args[1] + "\n"); err == nil {
			got = append(got, "tty-write:written")
		}
	} else {
		got = append(got, "tty-open:"+err.Error())
	}
	fmt.Println(strings.Join(got, " "))
}
