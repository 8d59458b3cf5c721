//go:build linux

package gitignore

import (
	"io/fs"
	"os"
	"time"

	"golang.org/x/sys/unix"
)

// openDirIn opens the directory rel beneath root; O_DIRECTORY makes
// anything else (a FIFO among them, which would block) fail at once.
func openDirIn(root *os.Root, rel string) (*os.File, error) {
	return root.OpenFile(rel, os.O_RDONLY|unix.O_DIRECTORY|unix.O_NONBLOCK, 0)
}

// Sub opens the subdirectory name relative to d, refusing a symlink.
func (d *Dir) Sub(name string) (*Dir, error) {
	fd, err := d.openat(name, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC)
	if err != nil {
		return nil, err
	}
	rel := d.child(name)
	return &Dir{f: os.NewFile(uintptr(fd), d.root.Name()+"/"+rel), root: d.root, rel: rel}, nil
}

// OpenFile opens the entry name of d for reading, relative to d: never
// through a symlink (a symlink is refused with ELOOP), and without blocking
// on a FIFO (the caller checks the type with Stat).
func (d *Dir) OpenFile(name string) (*os.File, error) {
	fd, err := d.openat(name, unix.O_RDONLY|unix.O_NOFOLLOW|unix.O_NONBLOCK|unix.O_NOCTTY|unix.O_CLOEXEC)
	if err != nil {
		return nil, err
	}
	return os.NewFile(uintptr(fd), d.root.Name()+"/"+d.child(name)), nil
}

func (d *Dir) openat(name string, flags int) (int, error) {
	rc, err := d.f.SyscallConn()
	if err != nil {
		return -1, err
	}
	fd := -1
	var oerr error
	cerr := rc.Control(func(dfd uintptr) {
		for {
			fd, oerr = unix.Openat(int(dfd), name, flags, 0)
			if oerr != unix.EINTR {
				return
			}
		}
	})
	if cerr != nil {
		return -1, cerr
	}
	if oerr != nil {
		return -1, &fs.PathError{Op: "openat", Path: d.child(name), Err: oerr}
	}
	return fd, nil
}

// Lstat stats the entry name of d, relative to d, without following it.
func (d *Dir) Lstat(name string) (fs.FileInfo, error) {
	rc, err := d.f.SyscallConn()
	if err != nil {
		return nil, err
	}
	var st unix.Stat_t
	var serr error
	cerr := rc.Control(func(dfd uintptr) {
		for {
			serr = unix.Fstatat(int(dfd), name, &st, unix.AT_SYMLINK_NOFOLLOW)
			if serr != unix.EINTR {
				return
			}
		}
	})
	if cerr != nil {
		return nil, cerr
	}
	if serr != nil {
		return nil, &fs.PathError{Op: "lstat", Path: d.child(name), Err: serr}
	}
	return &statInfo{name: name, st: st}, nil
}

// statInfo is an fs.FileInfo of a unix.Stat_t.
type statInfo struct {
	name string
	st   unix.Stat_t
}

func (s *statInfo) Name() string       { return s.name }
func (s *statInfo) Size() int64        { return s.st.Size }
func (s *statInfo) ModTime() time.Time { return time.Unix(s.st.Mtim.Unix()) }
func (s *statInfo) IsDir() bool        { return s.Mode().IsDir() }
func (s *statInfo) Sys() any           { return &s.st }
func (s *statInfo) Mode() fs.FileMode {
	m := fs.FileMode(s.st.Mode & 0o777)
	switch s.st.Mode & unix.S_IFMT {
	case unix.S_IFDIR:
		m |= fs.ModeDir
	case unix.S_IFLNK:
		m |= fs.ModeSymlink
	case unix.S_IFIFO:
		m |= fs.ModeNamedPipe
	case unix.S_IFSOCK:
		m |= fs.ModeSocket
	case unix.S_IFCHR:
		m |= fs.ModeDevice | fs.ModeCharDevice
	case unix.S_IFBLK:
		m |= fs.ModeDevice
	}
	if s.st.Mode&unix.S_ISUID != 0 {
		m |= fs.ModeSetuid
	}
	if s.st.Mode&unix.S_ISGID != 0 {
		m |= fs.ModeSetgid
	}
	if s.st.Mode&unix.S_ISVTX != 0 {
		m |= fs.ModeSticky
	}
	return m
}
