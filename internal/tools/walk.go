package tools

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"syscall"

	"agent/internal/gitignore"
)

// walkWorkspace walks the directory startRel (canonical) of the workspace
// beneath root with internal/gitignore's walk: lexical order, .git entries
// and ignored paths left out (the same rules the repo map and checkpoints
// apply), symlinks reported but never followed, every directory opened
// relative to its parent and never through a symlink.
func walkWorkspace(ctx context.Context, root *os.Root, startRel string, fn gitignore.WalkFunc) error {
	return gitignore.Walk(ctx, root, gitignore.NewTree(root.Name(), root.FS()), startRel, fn)
}

// openEntry opens a file a walk found, for reading: a regular file relative
// to its directory (never through a symlink); a symlink only when it leads
// to a regular file inside the workspace that the policy does not hide,
// opened by its canonical path beneath the root.
func openEntry(env *Env, root *os.Root, e gitignore.Entry) (*os.File, error) {
	switch {
	case e.Type.IsRegular():
		return e.Open()
	case e.Type&fs.ModeSymlink != 0:
		_, rel, err := Resolve(env.Workspace, e.Rel)
		if err != nil {
			return nil, err
		}
		if env.hidden(rel) {
			return nil, fmt.Errorf("%s leads to a hidden path", e.Rel)
		}
		f, _, err := OpenRegular(root, rel)
		return f, err
	}
	return nil, fmt.Errorf("%s is not a regular file: %w", e.Rel, syscall.EINVAL)
}

// symlinkToFileInside reports whether the symlink rel leads to a regular file
// inside the workspace that the policy does not hide.
func symlinkToFileInside(env *Env, root *os.Root, rel string) bool {
	_, crel, err := Resolve(env.Workspace, rel)
	if err != nil || env.hidden(crel) {
		return false
	}
	fi, err := root.Stat(crel)
	return err == nil && fi.Mode().IsRegular()
}
