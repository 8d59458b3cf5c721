package checkpoint

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"

	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/object"
)

// File is one entry of a snapshot, as Files hands it out: a slash path
// relative to the workspace, its mode (fs.ModeSymlink for a symlink, whose
// Data is the target) and its content.
type File struct {
	Path string
	Mode fs.FileMode
	Data []byte
}

// Files calls fn with every file of snapshot id (a commit or tree id), in
// path order, reading the shadow repository only. It stops at fn's first
// error and returns it, and honours ctx between files.
func (s *Store) Files(ctx context.Context, id string, fn func(File) error) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	t, err := s.goTree(id)
	if err != nil || t == nil {
		return err // nil tree: the empty snapshot
	}
	it := t.Files()
	defer it.Close()
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		f, err := it.Next()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("checkpoint: files of %s: %w", id, err)
		}
		data, err := blobBytes(f)
		if err != nil {
			return fmt.Errorf("checkpoint: %s in %s: %w", f.Name, id, err)
		}
		mode := fs.FileMode(0o644)
		switch f.Mode {
		case filemode.Executable:
			mode = 0o755
		case filemode.Symlink:
			mode = fs.ModeSymlink | 0o777
		}
		if err := fn(File{Path: f.Name, Mode: mode, Data: data}); err != nil {
			return err
		}
	}
}

func blobBytes(f *object.File) ([]byte, error) {
	r, err := f.Reader()
	if err != nil {
		return nil, err
	}
	defer r.Close()
	return io.ReadAll(r)
}
