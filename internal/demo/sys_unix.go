//go:build unix

package demo

import (
	"os"
	"syscall"

	"github.com/charmbracelet/x/term"
	"golang.org/x/sys/unix"
)

// mkfifo makes the release gate.
func mkfifo(path string) error { return syscall.Mkfifo(path, 0o600) }

// openReaderNonblock opens the gate for reading without waiting for a writer.
func openReaderNonblock(path string) (*os.File, error) {
	return os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
}

// rawInput puts the terminal's input in raw mode (keys arrive one by one,
// ctrl+c is a key, nothing echoes) but keeps its output processing (a
// newline also returns the carriage): Bubble Tea, whose input is the demo's
// pipe and not the terminal, renders for a terminal in that state. It
// returns how to restore the terminal.
func rawInput(f *os.File) (func(), error) {
	old, err := term.MakeRaw(f.Fd())
	if err != nil {
		return nil, err
	}
	restore := func() { _ = term.Restore(f.Fd(), old) }
	if t, err := unix.IoctlGetTermios(int(f.Fd()), ioctlGetTermios); err == nil {
		t.Oflag |= unix.OPOST | unix.ONLCR
		_ = unix.IoctlSetTermios(int(f.Fd()), ioctlSetTermios, t)
	}
	return restore, nil
}
