//go:build !linux

package checkpoint

import (
	"io"
	"io/fs"
	"os"
	"syscall"
)

// dirReader is a directory of the workspace held open by a snapshot, as an
// *os.Root of its own: its entries are stat'ed without following them and
// opened beneath it, so nothing outside the workspace is read through a
// symlink swapped in. (Elsewhere than Linux the check that an entry is not
// a symlink and its open are two steps; the root still keeps the open
// inside the directory.)
type dirReader struct {
	root *os.Root
	f    *os.File // the directory itself, for listing
	path string
}

func openDir(path string) (*dirReader, error) {
	fi, err := os.Lstat(path)
	if err != nil {
		return nil, err
	}
	if !fi.IsDir() {
		return nil, &os.PathError{Op: "open", Path: path, Err: errChanged}
	}
	r, err := os.OpenRoot(path)
	if err != nil {
		return nil, err
	}
	return rootReader(r, path)
}

func rootReader(r *os.Root, path string) (*dirReader, error) {
	f, err := r.Open(".")
	if err != nil {
		_ = r.Close()
		return nil, err
	}
	return &dirReader{root: r, f: f, path: path}, nil
}

func (d *dirReader) sub(name string) (*dirReader, error) {
	p := d.path + string(os.PathSeparator) + name
	fi, err := d.root.Lstat(name)
	if err != nil {
		return nil, err
	}
	if !fi.IsDir() {
		return nil, &os.PathError{Op: "open", Path: p, Err: errChanged}
	}
	r, err := d.root.OpenRoot(name)
	if err != nil {
		return nil, err
	}
	return rootReader(r, p)
}

func (d *dirReader) names([]byte) ([]string, error) { return d.f.Readdirnames(-1) }

func (d *dirReader) close() {
	_ = d.f.Close()
	_ = d.root.Close()
}

func (d *dirReader) fstat(st *fileStat) error {
	fi, err := d.f.Stat()
	if err != nil {
		return err
	}
	fromFileInfo(fi, st)
	return nil
}

func (d *dirReader) lstat(name string, st *fileStat) error {
	fi, err := d.root.Lstat(name)
	if err != nil {
		return err
	}
	fromFileInfo(fi, st)
	return nil
}

func (d *dirReader) readlink(name string) ([]byte, error) {
	fi, err := d.root.Lstat(name)
	if err != nil {
		return nil, err
	}
	if fi.Mode()&fs.ModeSymlink == 0 {
		return nil, &os.PathError{Op: "readlink", Path: name, Err: errChanged}
	}
	t, err := d.root.Readlink(name)
	return []byte(t), err
}

// fileReader is an entry of a directory opened for reading.
type fileReader struct{ f *os.File }

func (d *dirReader) open(name string) (fileReader, error) {
	fi, err := d.root.Lstat(name)
	if err != nil {
		return fileReader{}, err
	}
	if fi.Mode()&fs.ModeSymlink != 0 {
		return fileReader{}, &os.PathError{Op: "open", Path: name, Err: errChanged}
	}
	f, err := d.root.OpenFile(name, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	return fileReader{f: f}, err
}

func (f fileReader) stat(st *fileStat) error {
	fi, err := f.f.Stat()
	if err != nil {
		return err
	}
	fromFileInfo(fi, st)
	return nil
}

func (f fileReader) read(p []byte) (int, error) {
	n, err := f.f.Read(p)
	if err == io.EOF {
		err = nil
	}
	return n, err
}

func (f fileReader) close() { _ = f.f.Close() }

func lstatPath(path string, st *fileStat) error {
	fi, err := os.Lstat(path)
	if err != nil {
		return err
	}
	fromFileInfo(fi, st)
	return nil
}

// fromFileInfo is the portable fallback.
func fromFileInfo(fi os.FileInfo, st *fileStat) {
	m := fi.Mode()
	st.mode = uint32(m.Perm())
	switch {
	case m.IsRegular():
		st.mode |= sIFREG
	case m.IsDir():
		st.mode |= sIFDIR
	case m&os.ModeSymlink != 0:
		st.mode |= sIFLNK
	}
	st.size = fi.Size()
	st.mtime = fi.ModTime().UnixNano()
	st.ctime, st.ino, st.dev = 0, 0, 0
}
