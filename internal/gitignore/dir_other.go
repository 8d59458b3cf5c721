//go:build !linux

package gitignore

import (
	"io/fs"
	"os"
	"syscall"
)

// openDirIn opens the directory rel beneath root, refusing anything else
// unopened (opening a FIFO would block).
func openDirIn(root *os.Root, rel string) (*os.File, error) {
	fi, err := root.Stat(rel)
	if err != nil {
		return nil, err
	}
	if !fi.IsDir() {
		return nil, &fs.PathError{Op: "open", Path: rel, Err: errNotDir}
	}
	return root.Open(rel)
}

// Sub opens the subdirectory name of d beneath the root, refusing a symlink.
// (Elsewhere than Linux the check and the open are two steps; os.Root still
// keeps the open inside the workspace.)
func (d *Dir) Sub(name string) (*Dir, error) {
	rel := d.child(name)
	fi, err := d.root.Lstat(rel)
	if err != nil {
		return nil, err
	}
	if !fi.IsDir() {
		return nil, &fs.PathError{Op: "open", Path: rel, Err: errNotDir}
	}
	return OpenDir(d.root, rel)
}

// OpenFile opens the entry name of d for reading beneath the root, refusing
// a symlink, without blocking on a FIFO.
func (d *Dir) OpenFile(name string) (*os.File, error) {
	rel := d.child(name)
	fi, err := d.root.Lstat(rel)
	if err != nil {
		return nil, err
	}
	if fi.Mode()&fs.ModeSymlink != 0 {
		return nil, &fs.PathError{Op: "open", Path: rel, Err: syscall.ELOOP}
	}
	return d.root.OpenFile(rel, os.O_RDONLY|syscall.O_NONBLOCK, 0)
}

// Lstat stats the entry name of d without following it.
func (d *Dir) Lstat(name string) (fs.FileInfo, error) { return d.root.Lstat(d.child(name)) }
