package capture

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing/filemode"

	"agent/internal/checkpoint"
)

// Checkpoint is the fixture of a run's checkpoint in the shadow repository
// (read only).
type Checkpoint struct {
	Store *checkpoint.Store
	ID    string
}

func (c Checkpoint) Files(ctx context.Context, fn func(File) error) error {
	return c.Store.Files(ctx, c.ID, func(f checkpoint.File) error {
		return fn(File{Path: f.Path, Mode: f.Mode, Data: f.Data})
	})
}

func (c Checkpoint) Describe() string {
	return fmt.Sprintf("the workspace at checkpoint %s, the run's first (taken before its first change)", shortID(c.ID))
}

// GitHead is the fixture of the commit a workspace's git HEAD names: for a
// run that made no checkpoint (it changed nothing). The user's repository
// is only read.
type GitHead struct {
	Workspace string
}

func (g GitHead) Files(ctx context.Context, fn func(File) error) error {
	repo, err := git.PlainOpenWithOptions(g.Workspace, &git.PlainOpenOptions{DetectDotGit: true})
	if err != nil {
		return fmt.Errorf("%w: the run made no checkpoint and %s is not a git repository (%v)", ErrNoFixture, g.Workspace, err)
	}
	head, err := repo.Head()
	if err != nil {
		return fmt.Errorf("%w: the run made no checkpoint and the git HEAD of %s names no commit (%v)", ErrNoFixture, g.Workspace, err)
	}
	c, err := repo.CommitObject(head.Hash())
	if err != nil {
		return fmt.Errorf("git HEAD of %s: %w", g.Workspace, err)
	}
	t, err := c.Tree()
	if err != nil {
		return fmt.Errorf("git HEAD of %s: %w", g.Workspace, err)
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
			return fmt.Errorf("git HEAD of %s: %w", g.Workspace, err)
		}
		r, err := f.Reader()
		if err != nil {
			return fmt.Errorf("git HEAD of %s: %s: %w", g.Workspace, f.Name, err)
		}
		data, err := io.ReadAll(r)
		r.Close()
		if err != nil {
			return fmt.Errorf("git HEAD of %s: %s: %w", g.Workspace, f.Name, err)
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

func (g GitHead) Describe() string {
	return fmt.Sprintf("the commit of the git HEAD of %s when captured (the run made no checkpoint, so it changed no file; uncommitted files it saw are not here)", g.Workspace)
}

func shortID(id string) string {
	if len(id) > 12 {
		return id[:12]
	}
	return id
}
