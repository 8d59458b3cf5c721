//go:build !linux

package checkpoint

import (
	"os"
	"path/filepath"
)

type dirReader struct {
	f    *os.File
	path string
}

func openDir(path string) (*dirReader, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	return &dirReader{f: f, path: path}, nil
}

func (d *dirReader) names([]byte) ([]string, error) { return d.f.Readdirnames(-1) }
func (d *dirReader) close()                         { _ = d.f.Close() }

func (d *dirReader) lstat(name string, st *fileStat) error {
	return lstatPath(filepath.Join(d.path, name), st)
}

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
