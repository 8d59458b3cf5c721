package composer

import (
	"context"
	"fmt"
	"io/fs"
	"os"

	"agent/internal/gitignore"
)

// DefaultFileLimit caps the file list @ completes from, so that a huge
// repository costs a bounded walk and bounded memory.
const DefaultFileLimit = 20000

// FileList is the workspace's files @ completes from: slash paths relative
// to the workspace, and whether the list stopped at its cap.
type FileList struct {
	Paths     []string
	Truncated bool
}

// FileLister lists the workspace's files. The composer calls it in a
// tea.Cmd (off the UI goroutine) when an @ completion opens, with the
// context given to New.
type FileLister func(ctx context.Context) (FileList, error)

// WorkspaceFiles is a FileLister of the regular files of workspace (see
// ListFiles), at most DefaultFileLimit of them.
func WorkspaceFiles(workspace string) FileLister {
	return func(ctx context.Context) (FileList, error) {
		return ListFiles(ctx, workspace, DefaultFileLimit)
	}
}

// ListFiles lists the regular files of workspace in lexical order, depth
// first, as slash paths relative to it: .git, what the repository's ignore
// rules exclude (.gitignore files, info/exclude, those above the workspace
// in its repository) and symlinks are left out, and nothing is opened
// outside the workspace (the walk is beneath an os.Root). It stops after
// limit files (limit <= 0 means DefaultFileLimit) and says so in
// Truncated.
func ListFiles(ctx context.Context, workspace string, limit int) (FileList, error) {
	if limit <= 0 {
		limit = DefaultFileLimit
	}
	root, err := os.OpenRoot(workspace)
	if err != nil {
		return FileList{}, fmt.Errorf("list the files of workspace %s: %w", workspace, err)
	}
	defer root.Close()
	var out FileList
	tree := gitignore.NewTree(root.Name(), root.FS())
	err = gitignore.Walk(ctx, root, tree, ".", func(e gitignore.Entry) error {
		if e.IsDir() || !e.Type.IsRegular() {
			return nil
		}
		if len(out.Paths) == limit {
			out.Truncated = true
			return fs.SkipAll
		}
		out.Paths = append(out.Paths, e.Rel)
		return nil
	})
	if err != nil {
		return FileList{}, fmt.Errorf("list the files of workspace %s: %w", workspace, err)
	}
	return out, nil
}
