package tools

import (
	"errors"
	"io"
	"os"
	"sync"

	"golang.org/x/sys/unix"
)

// builtinOpenSupported reports whether openat2 can confine the in-process
// commands' writes (Linux 5.6 and later); without it bash runs them.
var builtinOpenSupported = sync.OnceValue(func() bool {
	fd, err := unix.Openat2(unix.AT_FDCWD, ".", &unix.OpenHow{Flags: unix.O_PATH | unix.O_CLOEXEC, Resolve: unix.RESOLVE_BENEATH | unix.RESOLVE_NO_SYMLINKS})
	if err != nil {
		return false
	}
	unix.Close(fd)
	return true
})

// openBeneath opens rel (workspace-relative, slash-separated) under root
// for writing as bash's ">" (truncate) or ">>" (append) would, creating it
// with mode 0666 less the umask. It refuses to leave root and to follow a
// symlink anywhere on the way (ELOOP, EXDEV: "Permission denied" to the
// command, as the sandbox would answer).
func openBeneath(root, rel string, appendTo bool) (io.WriteCloser, error) {
	dir, err := unix.Open(root, unix.O_PATH|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, &os.PathError{Op: "open", Path: rel, Err: err}
	}
	defer unix.Close(dir)
	flags := unix.O_WRONLY | unix.O_CREAT | unix.O_CLOEXEC | unix.O_NOCTTY | unix.O_NONBLOCK
	if appendTo {
		flags |= unix.O_APPEND
	} else {
		flags |= unix.O_TRUNC
	}
	for {
		fd, err := unix.Openat2(dir, rel, &unix.OpenHow{Flags: uint64(flags), Mode: 0o666,
			Resolve: unix.RESOLVE_BENEATH | unix.RESOLVE_NO_SYMLINKS | unix.RESOLVE_NO_MAGICLINKS})
		if err == unix.EINTR {
			continue
		}
		if errors.Is(err, unix.ELOOP) || errors.Is(err, unix.EXDEV) {
			err = unix.EACCES
		}
		if err != nil {
			return nil, &os.PathError{Op: "open", Path: rel, Err: err}
		}
		f := os.NewFile(uintptr(fd), rel)
		if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
			// a FIFO or device planted under the name: bash would block
			// or write to it; the sandboxed bash will decide
			f.Close()
			return nil, &os.PathError{Op: "open", Path: rel, Err: unix.EACCES}
		}
		return f, nil
	}
}
