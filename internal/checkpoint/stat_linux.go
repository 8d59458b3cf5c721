//go:build linux

package checkpoint

import (
	"os"

	"golang.org/x/sys/unix"
)

// dirReader is a directory of the workspace held open by a snapshot. It
// lists the directory and stats, opens and reads its entries relative to
// its descriptor and never through a symlink (fstatat with
// AT_SYMLINK_NOFOLLOW, openat with O_NOFOLLOW, readlinkat), so an entry
// swapped for a symlink after it was listed is seen as the symlink it now
// is: nothing outside the workspace is read through it.
type dirReader struct {
	fd   int
	path string // absolute, for messages and the ignore-file cache
}

// openDir opens the workspace directory at path (not through a symlink).
func openDir(path string) (*dirReader, error) {
	fd, err := openat(unix.AT_FDCWD, path, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC|unix.O_NOFOLLOW)
	if err != nil {
		return nil, &os.PathError{Op: "open", Path: path, Err: err}
	}
	return &dirReader{fd: fd, path: path}, nil
}

// sub opens the subdirectory name relative to d. An entry that is no
// longer a directory (a symlink, a file) fails with errChanged.
func (d *dirReader) sub(name string) (*dirReader, error) {
	p := d.path + "/" + name
	fd, err := openat(d.fd, name, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC|unix.O_NOFOLLOW)
	if err == unix.ELOOP || err == unix.ENOTDIR {
		err = errChanged
	}
	if err != nil {
		return nil, &os.PathError{Op: "openat", Path: p, Err: err}
	}
	return &dirReader{fd: fd, path: p}, nil
}

func openat(dfd int, name string, flags int) (int, error) {
	for {
		fd, err := unix.Openat(dfd, name, flags, 0)
		if err != unix.EINTR {
			return fd, err
		}
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

// fstat stats the directory itself.
func (d *dirReader) fstat(st *fileStat) error {
	var s unix.Stat_t
	if err := fstatFD(d.fd, &s); err != nil {
		return &os.PathError{Op: "fstat", Path: d.path, Err: err}
	}
	fromStatT(&s, st)
	return nil
}

// lstat stats the entry name of d without following it.
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

// readlink reads the target of the symlink name of d; errChanged if name
// is no longer a symlink.
func (d *dirReader) readlink(name string) ([]byte, error) {
	buf := make([]byte, 256)
	for {
		n, err := unix.Readlinkat(d.fd, name, buf)
		switch {
		case err == unix.EINTR:
			continue
		case err == unix.EINVAL:
			err = errChanged
		case err == nil && n == len(buf):
			buf = make([]byte, 2*len(buf)) // perhaps cut short: read again
			continue
		case err == nil:
			return buf[:n], nil
		}
		return nil, &os.PathError{Op: "readlinkat", Path: d.path + "/" + name, Err: err}
	}
}

// fileReader is an entry of a directory opened for reading.
type fileReader struct{ fd int }

// open opens the entry name of d for reading, relative to d and never
// through a symlink (errChanged if it is now one), without blocking on a
// FIFO; the caller checks the type on the open file.
func (d *dirReader) open(name string) (fileReader, error) {
	fd, err := openat(d.fd, name, unix.O_RDONLY|unix.O_NOFOLLOW|unix.O_NONBLOCK|unix.O_NOCTTY|unix.O_CLOEXEC)
	if err == unix.ELOOP {
		err = errChanged
	}
	if err != nil {
		return fileReader{fd: -1}, &os.PathError{Op: "openat", Path: d.path + "/" + name, Err: err}
	}
	return fileReader{fd: fd}, nil
}

func (f fileReader) stat(st *fileStat) error {
	var s unix.Stat_t
	if err := fstatFD(f.fd, &s); err != nil {
		return &os.PathError{Op: "fstat", Err: err}
	}
	fromStatT(&s, st)
	return nil
}

// read reads into p; 0, nil at the end of the file.
func (f fileReader) read(p []byte) (int, error) {
	for {
		n, err := unix.Read(f.fd, p)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return 0, &os.PathError{Op: "read", Err: err}
		}
		return n, nil
	}
}

func (f fileReader) close() { _ = unix.Close(f.fd) }

func fstatFD(fd int, s *unix.Stat_t) error {
	for {
		if err := unix.Fstat(fd, s); err != unix.EINTR {
			return err
		}
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
