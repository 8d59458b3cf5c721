// Package atomicfile owns the one way the agent replaces a file on disk: a
// temporary file in the same directory is written, given its mode, fsynced,
// renamed over the target, and the directory is fsynced, so that a crash or a
// power loss leaves the old content or the new one, never a mix or an empty
// file, and a rename that returned is durable.
//
// It works beneath an *os.Root, so a caller that confines paths (the file
// tools) gets the same guarantee against a directory swapped for a symlink
// between check and use: every step resolves beneath the root.
//
// It must not decide where files go or what they hold: callers pass the root,
// the name and the bytes. It depends on the standard library only.
package atomicfile

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"

	"path/filepath"
	"strings"
)

// TempMarker is part of every temporary file's name: "." + base + TempMarker +
// random hex. TempPattern matches the leftovers of a write of base.
const TempMarker = ".tmp-"

// TempPattern is a filepath.Match pattern for the temporary files a killed
// write of a file named base may leave in its directory.
func TempPattern(base string) string {
	r := strings.NewReplacer(`*`, `\*`, `?`, `\?`, `[`, `\[`, `\`, `\\`)
	return "." + r.Replace(base) + TempMarker + "*"
}

// WriteIn replaces name, a slash- or OS-separated path relative to root, with
// data and mode perm. The parent directory must exist.
func WriteIn(root *os.Root, name string, data []byte, perm fs.FileMode) error {
	return StreamIn(root, name, perm, func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	})
}

// StreamIn is WriteIn for content too large to hold twice: write fills the
// temporary file; an error from it leaves the old file in place.
func StreamIn(root *os.Root, name string, perm fs.FileMode, write func(io.Writer) error) (err error) {
	name = filepath.Clean(name)
	dir, base := filepath.Dir(name), filepath.Base(name)
	if base == "." || base == ".." || base == string(filepath.Separator) {
		return fmt.Errorf("atomic write: %q is not a file name", name)
	}
	var rnd [6]byte
	_, _ = rand.Read(rnd[:])
	tmp := filepath.Join(dir, "."+base+TempMarker+hex.EncodeToString(rnd[:]))
	f, err := root.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return fmt.Errorf("create temporary file: %w", err)
	}
	defer func() {
		if err != nil {
			_ = f.Close()
			_ = root.Remove(tmp)
		}
	}()
	if err = write(f); err != nil {
		return fmt.Errorf("write: %w", err)
	}
	if err = f.Chmod(perm); err != nil {
		return fmt.Errorf("chmod: %w", err)
	}
	if err = f.Sync(); err != nil {
		return fmt.Errorf("sync: %w", err)
	}
	if err = f.Close(); err != nil {
		return fmt.Errorf("close: %w", err)
	}
	if err = root.Rename(tmp, name); err != nil {
		return fmt.Errorf("rename into place: %w", err)
	}
	return SyncDirIn(root, dir)
}

// Write replaces the file at path (absolute or relative to the working
// directory) with data and mode perm; the parent directory must exist.
func Write(p string, data []byte, perm fs.FileMode) error {
	root, err := os.OpenRoot(filepath.Dir(p))
	if err != nil {
		return fmt.Errorf("atomic write %s: %w", p, err)
	}
	defer root.Close()
	if err := WriteIn(root, filepath.Base(p), data, perm); err != nil {
		return fmt.Errorf("atomic write %s: %w", p, err)
	}
	return nil
}

// SyncDirIn fsyncs the directory dir beneath root, making the renames and
// creations in it durable. A file system that cannot sync a directory
// (EINVAL, ENOTSUP) is not an error: there is nothing more to do there.
func SyncDirIn(root *os.Root, dir string) error {
	d, err := root.Open(dir)
	if err != nil {
		return fmt.Errorf("open directory to sync: %w", err)
	}
	defer d.Close()
	if err := d.Sync(); err != nil && !unsupported(err) {
		return fmt.Errorf("sync directory: %w", err)
	}
	return nil
}

// SyncDir fsyncs the directory at p (see SyncDirIn).
func SyncDir(p string) error {
	d, err := os.Open(p)
	if err != nil {
		return fmt.Errorf("open directory to sync: %w", err)
	}
	defer d.Close()
	if err := d.Sync(); err != nil && !unsupported(err) {
		return fmt.Errorf("sync directory %s: %w", p, err)
	}
	return nil
}

func unsupported(err error) bool {
	return errors.Is(err, errUnsupported1) || errors.Is(err, errUnsupported2) || errors.Is(err, errors.ErrUnsupported)
}
