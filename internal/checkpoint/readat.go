package checkpoint

import (
	"errors"
	"path/filepath"
	"slices"

	"github.com/go-git/go-git/v5/plumbing/filemode"
)

// What a snapshot reads, it reads beneath the workspace: every directory is
// opened relative to the one above it, every entry is stat'ed, opened and
// read relative to its directory, never through a symlink (dirReader, in
// stat_linux.go and stat_other.go). A process that swaps a directory or a
// file for a symlink while a snapshot runs makes the snapshot record the
// symlink (as git records symlinks), never what it points to.

// errChanged: an entry is no longer of the type its stat said between that
// stat and its open (a directory or a file swapped for a symlink, a file
// for a directory): the caller stats it again and records what it now is.
var errChanged = errors.New("changed type while the snapshot read it")

var errTooLarge = errors.New("file too large")

// maxTries bounds how often a snapshot looks again at one entry that keeps
// changing type under it; after that the entry is left out, as one that
// vanished would be.
const maxTries = 3

// readEntryAt returns the content of the regular file name of d, or the
// target of the symlink name, as mode (from st, the stat taken before)
// says. stable reports whether st describes what was read, so that the
// stat cache may vouch for it; errChanged if name is no longer of that
// type, errTooLarge if the file is over MaxFileSize.
func readEntryAt(d *dirReader, name string, mode filemode.FileMode, st *fileStat) (data []byte, stable bool, err error) {
	if mode == filemode.Symlink {
		t, err := d.readlink(name)
		if err != nil {
			return nil, false, err
		}
		var now fileStat
		return t, d.lstat(name, &now) == nil && now.isLink() && now.sig() == st.sig(), nil
	}
	f, err := d.open(name)
	if err != nil {
		return nil, false, err
	}
	defer f.close()
	var fst fileStat
	if err := f.stat(&fst); err != nil {
		return nil, false, err
	}
	if !fst.isRegular() {
		return nil, false, errChanged
	}
	if fst.size > MaxFileSize {
		return nil, false, errTooLarge
	}
	data, err = readUpTo(f, fst.size, MaxFileSize+1)
	if err != nil {
		return nil, false, err
	}
	if int64(len(data)) > MaxFileSize {
		return nil, false, errTooLarge
	}
	return data, fst.sig() == st.sig() && int64(len(data)) == fst.size, nil
}

// readUpTo reads f to its end or to max bytes, whichever comes first;
// hint is its expected size.
func readUpTo(f fileReader, hint, max int64) ([]byte, error) {
	buf := make([]byte, 0, min(hint, max-1)+1)
	for int64(len(buf)) < max {
		if len(buf) == cap(buf) {
			buf = slices.Grow(buf, int(min(4096, max-int64(len(buf)))))
		}
		n, err := f.read(buf[len(buf):min(int64(cap(buf)), max)])
		if err != nil {
			return nil, err
		}
		if n == 0 {
			break
		}
		buf = buf[:len(buf)+n]
	}
	return buf, nil
}

// fileAt is a small file a snapshot reads for its rules (a .gitignore, a
// .gitattributes): the entry name of a directory it holds open, or, when
// dir is nil, the file at the absolute path name (the repository's ignore
// files above the workspace).
type fileAt struct {
	dir  *dirReader
	name string
}

// key names the file in the ignore-file cache: its absolute path.
func (f fileAt) key() string {
	if f.dir == nil {
		return f.name
	}
	return f.dir.path + string(filepath.Separator) + f.name
}

func (f fileAt) lstat(st *fileStat) error {
	if f.dir == nil {
		return lstatPath(f.name, st)
	}
	return f.dir.lstat(f.name, st)
}

// read returns at most limit bytes of the regular file; for a file in an
// open directory, st becomes the stat data of the file that was read.
func (f fileAt) read(limit int64, st *fileStat) ([]byte, error) {
	if f.dir == nil {
		return readLimited(f.name, limit)
	}
	r, err := f.dir.open(f.name)
	if err != nil {
		return nil, err
	}
	defer r.close()
	if err := r.stat(st); err != nil {
		return nil, err
	}
	if !st.isRegular() {
		return nil, errChanged
	}
	return readUpTo(r, st.size, limit)
}

// hook runs the test hook between an entry's stat and its open.
func (s *Store) hook(rel string) {
	if s.beforeOpen != nil {
		s.beforeOpen(rel)
	}
}
