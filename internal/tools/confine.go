package tools

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"strings"
	"sync"
	"syscall"

	"agent/internal/atomicfile"
)

// Confinement. Resolve decides, for the message and for the canonical path,
// where a path leads; every file operation then goes through the workspace
// opened as an *os.Root, which resolves each component beneath it and refuses
// any step out (a ".." past the root, an absolute symlink, a relative one
// that climbs out). So a process that swaps a directory for a symlink between
// the check and the use cannot redirect a tool outside the workspace: the
// operation fails instead, and the tool reports the path as outside.

// rootCache holds the workspace opened once per Env (opening it costs a
// syscall; more to the point, a handle keeps to the directory the agent
// started in even if the path is later made to lead elsewhere).
type rootCache struct {
	mu   sync.Mutex
	key  string // the Env.Workspace it was opened for
	root *os.Root
	dir  string // the symlink-resolved directory it was opened on
}

// openRoot returns the workspace opened as an *os.Root, opening it on first
// use. It refuses to go on when the workspace path no longer names the
// directory first opened (moved, replaced, or swapped for a symlink).
func (e *Env) openRoot() (*os.Root, error) {
	if e.shared != nil {
		return e.shared.openRoot()
	}
	c := &e.root
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.root == nil || c.key != e.Workspace {
		dir, err := workspaceRoot(e.Workspace)
		if err != nil {
			return nil, err
		}
		r, err := os.OpenRoot(dir)
		if err != nil {
			return nil, fmt.Errorf("open the workspace: %w", err)
		}
		if c.root != nil {
			c.root.Close()
		}
		c.key, c.root, c.dir = e.Workspace, r, dir
		return r, nil
	}
	held, err1 := c.root.Stat(".")
	now, err2 := os.Stat(c.dir)
	if err1 != nil || err2 != nil || !os.SameFile(held, now) {
		return nil, fmt.Errorf("the workspace %s is no longer the directory the agent opened (it was moved, removed or replaced); start the agent again in the workspace", c.dir)
	}
	return c.root, nil
}

// confined maps the error of an operation beneath the root for the path p
// the model gave. When the path now resolves outside (a directory on the way
// was swapped for a symlink after it was resolved) it is that PathError;
// when the operation was refused for escaping but the swap is already
// undone, a PathError that says so; otherwise err itself.
func confined(workspace, p string, err error) error {
	if err == nil || !escaped(err) {
		return err
	}
	if _, _, rerr := Resolve(workspace, p); rerr != nil {
		var pe *PathError
		if errors.As(rerr, &pe) {
			return pe
		}
	}
	root, _ := workspaceRoot(workspace)
	return &PathError{Path: p, Workspace: root, Reason: ReasonMoved}
}

// escaped reports whether err is os.Root's refusal of a step outside it.
// (os does not export that error; its text is stable.)
func escaped(err error) bool {
	return err != nil && strings.Contains(err.Error(), "path escapes from parent")
}

// OpenRegular opens the regular file rel (canonical, from Resolve) beneath
// root for reading. It stats before opening so that a FIFO or a device is
// refused without being opened, opens without blocking and checks the type
// again on the open file, in case the path changed in between. A missing
// file is fs.ErrNotExist; a directory or a special file an error naming it.
func OpenRegular(root *os.Root, rel string) (*os.File, fs.FileInfo, error) {
	fi, err := root.Stat(rel)
	if err != nil {
		return nil, nil, err
	}
	if err := regular(fi, rel); err != nil {
		return nil, nil, err
	}
	f, err := root.OpenFile(rel, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, nil, err
	}
	if fi, err = f.Stat(); err == nil {
		err = regular(fi, rel)
	}
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	return f, fi, nil
}

// errIsDir marks a directory where a file was expected.
var errIsDir = errors.New("is a directory")

func regular(fi fs.FileInfo, rel string) error {
	if fi.IsDir() {
		return fmt.Errorf("%s %w", rel, errIsDir)
	}
	if !fi.Mode().IsRegular() {
		return fmt.Errorf("%s is not a regular file", rel)
	}
	return nil
}

// readRegular reads the whole regular file rel beneath root.
func readRegular(root *os.Root, rel string) ([]byte, fs.FileInfo, error) {
	f, fi, err := OpenRegular(root, rel)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	// Sized from the open file, as os.ReadFile does (a file that grows is
	// still read to its end).
	data := make([]byte, 0, fi.Size()+1)
	for {
		n, err := f.Read(data[len(data):cap(data)])
		data = data[:len(data)+n]
		if err == io.EOF {
			return data, fi, nil
		}
		if err != nil {
			return nil, nil, err
		}
		if len(data) == cap(data) {
			data = append(data, 0)[:len(data)]
		}
	}
}

// writeIn replaces the file rel (canonical, from ResolveWrite) beneath root
// with data: missing parent directories are created beneath the root (and
// their creation made durable), then internal/atomicfile writes a temporary
// file beside the target, fsyncs it, renames it over the target and fsyncs
// the directory, every step beneath the root.
//
// The parent is opened once, as an *os.Root of its own, and the file is
// written in it: each step then resolves one name, not the whole path, and
// the file's own name (a temporary file created exclusively, then renamed
// over it) is never followed, even to somewhere inside.
func writeIn(root *os.Root, rel string, data []byte, mode fs.FileMode) error {
	dir := path.Dir(rel)
	parent, err := root.OpenRoot(dir)
	if errors.Is(err, fs.ErrNotExist) {
		if err := mkdirAllIn(root, dir); err != nil {
			return fmt.Errorf("create parent directories: %w", err)
		}
		parent, err = root.OpenRoot(dir)
	}
	if err != nil {
		return err
	}
	defer parent.Close()
	return atomicfile.WriteIn(parent, path.Base(rel), data, mode)
}

// mkdirAllIn creates dir and its missing parents beneath root and fsyncs
// the directory holding each one it created.
func mkdirAllIn(root *os.Root, dir string) error {
	if dir == "." {
		return nil
	}
	// The deepest existing ancestor: below it, everything is created.
	first := dir
	for {
		if _, err := root.Stat(first); err == nil {
			break
		} else if !errors.Is(err, fs.ErrNotExist) {
			return err
		}
		parent := path.Dir(first)
		if parent == first || parent == "." {
			first = "."
			break
		}
		first = parent
	}
	if first == dir {
		return nil
	}
	if err := root.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	for d := dir; d != first; d = path.Dir(d) {
		if err := atomicfile.SyncDirIn(root, path.Dir(d)); err != nil {
			return err
		}
	}
	return nil
}
