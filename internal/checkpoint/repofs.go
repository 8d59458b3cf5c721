package checkpoint

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"

	"github.com/go-git/go-billy/v5"
)

// privateDir and privateFile are the modes of everything the shadow
// repository holds: only the user can read it, whatever the process umask
// and whatever the state directory's own mode. go-git asks for 0755
// directories and 0644/0444 files; repoFS takes the owner's bits of what it
// asks for and nothing else.
const (
	privateDir  fs.FileMode = 0o700
	privateFile fs.FileMode = 0o600
)

// syncOp says what a syncEvent records.
type syncOp uint8

const (
	opSyncFile   syncOp = iota + 1 // a file's data was fsynced (Path: its name then)
	opRename                       // Path was renamed to To
	opSyncDir                      // a directory was fsynced
	opRef                          // a ref was written with atomicfile (fsync, rename, fsync directory)
	opMkdir                        // a directory was created
	opRefRewrite                   // a head ref was rewritten in place and fsynced
)

func (o syncOp) String() string {
	switch o {
	case opSyncFile:
		return "sync-file"
	case opRename:
		return "rename"
	case opSyncDir:
		return "sync-dir"
	case opRef:
		return "ref"
	case opMkdir:
		return "mkdir"
	case opRefRewrite:
		return "ref-rewrite"
	}
	return fmt.Sprintf("syncOp(%d)", uint8(o))
}

// syncEvent is one durability step, for tests (absolute paths).
type syncEvent struct {
	Op       syncOp
	Path, To string
}

// syncer remembers the directories whose entries changed since they were
// last fsynced and fsyncs them on request, so a batch of new objects costs
// one fsync per directory, not one per object. hook, when set (tests),
// sees every durability step.
type syncer struct {
	mu    sync.Mutex
	dirty map[string]struct{}
	hook  func(syncEvent)
}

func (y *syncer) note(ev syncEvent) {
	if y.hook != nil {
		y.hook(ev)
	}
}

// markDirty records that dir (absolute) gained or lost an entry.
func (y *syncer) markDirty(dir string) {
	y.mu.Lock()
	if y.dirty == nil {
		y.dirty = map[string]struct{}{}
	}
	y.dirty[dir] = struct{}{}
	y.mu.Unlock()
}

// syncFile fsyncs f, whose name (absolute) is p.
func (y *syncer) syncFile(f *os.File, p string) error {
	if err := f.Sync(); err != nil {
		return fmt.Errorf("sync %s: %w", p, err)
	}
	y.note(syncEvent{Op: opSyncFile, Path: p})
	return nil
}

// syncData fdatasyncs f, whose name (absolute) is p (a new file written
// once: its size is all the metadata it needs).
func (y *syncer) syncData(f *os.File, p string) error {
	if err := fdatasync(f); err != nil {
		return fmt.Errorf("sync %s: %w", p, err)
	}
	y.note(syncEvent{Op: opSyncFile, Path: p})
	return nil
}

// syncDirs fsyncs every dirty directory. A directory that no longer exists
// (pruned meanwhile) has nothing left to make durable.
func (y *syncer) syncDirs() error {
	y.mu.Lock()
	dirs := make([]string, 0, len(y.dirty))
	for d := range y.dirty {
		dirs = append(dirs, d)
	}
	y.dirty = nil
	y.mu.Unlock()
	sort.Strings(dirs)
	for i, d := range dirs {
		if err := syncDir(d); err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				continue
			}
			for _, rest := range dirs[i:] {
				y.markDirty(rest)
			}
			return err
		}
		y.note(syncEvent{Op: opSyncDir, Path: d})
	}
	return nil
}

func syncDir(d string) error {
	f, err := os.Open(d)
	if err != nil {
		return err
	}
	defer f.Close()
	if err := f.Sync(); err != nil && !errors.Is(err, errors.ErrUnsupported) {
		return fmt.Errorf("sync directory %s: %w", d, err)
	}
	return nil
}

// mkdirAll creates dir (absolute) and its missing parents with mode 0700
// and marks the parent of each one it creates dirty. It costs one mkdir
// when the parent exists.
func (y *syncer) mkdirAll(dir string) error {
	err := os.Mkdir(dir, privateDir)
	switch {
	case err == nil:
		y.markDirty(filepath.Dir(dir))
		y.note(syncEvent{Op: opMkdir, Path: dir})
		return nil
	case errors.Is(err, fs.ErrExist):
		if fi, serr := os.Stat(dir); serr == nil && fi.IsDir() {
			return nil
		}
		return err
	case errors.Is(err, fs.ErrNotExist):
		parent := filepath.Dir(dir)
		if parent == dir {
			return err
		}
		if err := y.mkdirAll(parent); err != nil {
			return err
		}
		if err := os.Mkdir(dir, privateDir); err != nil {
			if errors.Is(err, fs.ErrExist) {
				return nil // made by another process meanwhile
			}
			return err
		}
		y.markDirty(parent)
		y.note(syncEvent{Op: opMkdir, Path: dir})
		return nil
	}
	return err
}

// repoFS is the billy filesystem go-git reads and writes the shadow
// repository through, in place of go-billy's osfs. What it creates is
// private (directories 0700, files 0600; the objects go-git makes
// read-only become 0400) without touching the process umask; every file
// it writes is fsynced on Close and the directories whose entries it
// changes are marked dirty in the syncer, for the Store to fsync before it
// records anything that depends on them. Objects do not go through it
// (see objectBatch and packs.go); it carries go-git's own writes: the
// repository's scaffolding, HEAD and config, and removed refs.
//
// Paths are relative to root and made by go-git from hashes and ref
// names; one that would leave root is refused. Names starting with "."
// under refs/ are hidden from ReadDir, as git itself skips them: they are
// the temporary files of a ref being written.
type repoFS struct {
	root string
	sy   *syncer
}

var (
	_ billy.Filesystem = (*repoFS)(nil)
	_ billy.Chmod      = (*repoFS)(nil)
)

func newRepoFS(root string, sy *syncer) *repoFS { return &repoFS{root: root, sy: sy} }

func (r *repoFS) abs(name string) (string, error) {
	rel := filepath.Clean(filepath.FromSlash(strings.TrimLeft(filepath.ToSlash(name), "/")))
	if rel == "." {
		return r.root, nil
	}
	if !filepath.IsLocal(rel) {
		return "", fmt.Errorf("checkpoint: %q: %w", name, billy.ErrCrossedBoundary)
	}
	return filepath.Join(r.root, rel), nil
}

// Create implements billy.Basic.
func (r *repoFS) Create(name string) (billy.File, error) {
	return r.OpenFile(name, os.O_RDWR|os.O_CREATE|os.O_TRUNC, 0o666)
}

// Open implements billy.Basic.
func (r *repoFS) Open(name string) (billy.File, error) {
	return r.OpenFile(name, os.O_RDONLY, 0)
}

// OpenFile implements billy.Basic; a file opened for writing is fsynced when
// it is closed.
func (r *repoFS) OpenFile(name string, flag int, perm fs.FileMode) (billy.File, error) {
	p, err := r.abs(name)
	if err != nil {
		return nil, err
	}
	perm &= privateDir
	f, err := os.OpenFile(p, flag, perm)
	if err != nil && flag&os.O_CREATE != 0 && errors.Is(err, fs.ErrNotExist) {
		if err := r.sy.mkdirAll(filepath.Dir(p)); err != nil {
			return nil, err
		}
		f, err = os.OpenFile(p, flag, perm)
	}
	if err != nil {
		return nil, err
	}
	written := flag&(os.O_WRONLY|os.O_RDWR) != 0
	if flag&os.O_CREATE != 0 {
		r.sy.markDirty(filepath.Dir(p))
	}
	return &repoFile{File: f, name: name, abs: p, sy: r.sy, written: written}, nil
}

// Stat implements billy.Basic.
func (r *repoFS) Stat(name string) (fs.FileInfo, error) {
	p, err := r.abs(name)
	if err != nil {
		return nil, err
	}
	return os.Stat(p)
}

// Rename implements billy.Basic; the target's directory becomes dirty (a
// temporary name vanishing from its directory needs no durability).
func (r *repoFS) Rename(from, to string) error {
	pf, err := r.abs(from)
	if err != nil {
		return err
	}
	pt, err := r.abs(to)
	if err != nil {
		return err
	}
	err = os.Rename(pf, pt)
	if err != nil && errors.Is(err, fs.ErrNotExist) {
		if merr := r.sy.mkdirAll(filepath.Dir(pt)); merr != nil {
			return merr
		}
		err = os.Rename(pf, pt)
	}
	if err != nil {
		return err
	}
	r.sy.markDirty(filepath.Dir(pt))
	r.sy.note(syncEvent{Op: opRename, Path: pf, To: pt})
	return nil
}

// Remove implements billy.Basic; the directory becomes dirty, so that a
// deleted run's refs and objects stay deleted after a power loss.
func (r *repoFS) Remove(name string) error {
	p, err := r.abs(name)
	if err != nil {
		return err
	}
	if err := os.Remove(p); err != nil {
		return err
	}
	r.sy.markDirty(filepath.Dir(p))
	return nil
}

// Join implements billy.Basic.
func (r *repoFS) Join(elem ...string) string { return filepath.Join(elem...) }

// TempFile implements billy.TempFile (mode 0600, fsynced on Close).
func (r *repoFS) TempFile(dir, prefix string) (billy.File, error) {
	p, err := r.abs(dir)
	if err != nil {
		return nil, err
	}
	f, err := os.CreateTemp(p, prefix)
	if err != nil && errors.Is(err, fs.ErrNotExist) {
		if err := r.sy.mkdirAll(p); err != nil {
			return nil, err
		}
		f, err = os.CreateTemp(p, prefix)
	}
	if err != nil {
		return nil, err
	}
	name := filepath.Join(dir, filepath.Base(f.Name()))
	return &repoFile{File: f, name: name, abs: f.Name(), sy: r.sy, written: true}, nil
}

// ReadDir implements billy.Dir.
func (r *repoFS) ReadDir(name string) ([]fs.FileInfo, error) {
	p, err := r.abs(name)
	if err != nil {
		return nil, err
	}
	ents, err := os.ReadDir(p)
	if err != nil {
		return nil, err
	}
	rel := filepath.ToSlash(filepath.Clean(name))
	hideDot := rel == "refs" || strings.HasPrefix(rel, "refs/")
	out := make([]fs.FileInfo, 0, len(ents))
	for _, e := range ents {
		if hideDot && strings.HasPrefix(e.Name(), ".") {
			continue
		}
		fi, err := e.Info()
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, err
		}
		out = append(out, fi)
	}
	return out, nil
}

// MkdirAll implements billy.Dir (always mode 0700).
func (r *repoFS) MkdirAll(name string, _ fs.FileMode) error {
	p, err := r.abs(name)
	if err != nil {
		return err
	}
	return r.sy.mkdirAll(p)
}

// Lstat implements billy.Symlink.
func (r *repoFS) Lstat(name string) (fs.FileInfo, error) {
	p, err := r.abs(name)
	if err != nil {
		return nil, err
	}
	return os.Lstat(p)
}

// Symlink implements billy.Symlink. A shadow repository holds no symlinks
// of its own (symlinks of the workspace are blobs).
func (r *repoFS) Symlink(_, _ string) error { return billy.ErrNotSupported }

// Readlink implements billy.Symlink.
func (r *repoFS) Readlink(name string) (string, error) {
	p, err := r.abs(name)
	if err != nil {
		return "", err
	}
	return os.Readlink(p)
}

// Chroot implements billy.Chroot.
func (r *repoFS) Chroot(name string) (billy.Filesystem, error) {
	p, err := r.abs(name)
	if err != nil {
		return nil, err
	}
	return newRepoFS(p, r.sy), nil
}

// Root implements billy.Chroot.
func (r *repoFS) Root() string { return r.root }

// Chmod implements billy.Chmod: only the owner's bits are kept (go-git's
// read-only 0444 objects become 0400).
func (r *repoFS) Chmod(name string, mode fs.FileMode) error {
	p, err := r.abs(name)
	if err != nil {
		return err
	}
	return os.Chmod(p, mode&privateDir)
}

// repoFile is a file of a repoFS: Name is relative to the repository, and a
// file opened for writing is fsynced before it is closed.
type repoFile struct {
	*os.File
	name    string
	abs     string
	sy      *syncer
	written bool
	mu      sync.Mutex
}

func (f *repoFile) Name() string { return f.name }

func (f *repoFile) Close() error {
	if f.written {
		if err := f.sy.syncFile(f.File, f.abs); err != nil {
			_ = f.File.Close()
			return err
		}
	}
	return f.File.Close()
}

func (f *repoFile) Lock() error {
	f.mu.Lock()
	defer f.mu.Unlock()
	return lockFile(f.File)
}

func (f *repoFile) Unlock() error {
	f.mu.Lock()
	defer f.mu.Unlock()
	return unlockFile(f.File)
}
