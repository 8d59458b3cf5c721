//go:build linux

package checkpoint

import (
	"os"

	"golang.org/x/sys/unix"
)

// dirReader lists a directory and stats its entries relative to it, with
// one open, the getdents calls, one fstatat per entry and one close.
type dirReader struct {
	fd   int
	path string
}

func openDir(path string) (*dirReader, error) {
	for {
		fd, err := unix.Open(path, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC|unix.O_NOFOLLOW, 0)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return nil, &os.PathError{Op: "open", Path: path, Err: err}
		}
		return &dirReader{fd: fd, path: path}, nil
	}
}

// names lists the directory (without "." and ".."); buf is scratch space.
func (d *dirReader) names(buf []byte) ([]string, error) {
	var names []string
	for {
		n, err := unix.Getdents(d.fd, buf)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return nil, &os.PathError{Op: "getdents", Path: d.path, Err: err}
		}
		if n <= 0 {
			return names, nil
		}
		_, _, names = unix.ParseDirent(buf[:n], -1, names)
	}
}

func (d *dirReader) close() { _ = unix.Close(d.fd) }

func (d *dirReader) lstat(name string, st *fileStat) error {
	var s unix.Stat_t
	for {
		err := unix.Fstatat(d.fd, name, &s, unix.AT_SYMLINK_NOFOLLOW)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return &os.PathError{Op: "lstat", Path: name, Err: err}
		}
		fromStatT(&s, st)
		return nil
	}
}

func fromStatT(s *unix.Stat_t, st *fileStat) {
	st.mode = s.Mode
	st.size = s.Size
	st.mtime = s.Mtim.Nano()
	st.ctime = s.Ctim.Nano()
	st.ino = s.Ino
	st.dev = s.Dev
}

func lstatPath(path string, st *fileStat) error {
	var s unix.Stat_t
	if err := unix.Lstat(path, &s); err != nil {
		return &os.PathError{Op: "lstat", Path: path, Err: err}
	}
	fromStatT(&s, st)
	return nil
}
