package app

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// No git binary at run time (docs/developers.md): go-git does everything a
// run needs of git, so a repository's hooks, filters and config never run
// because of the agent. Only tests may run git, to check what go-git wrote.
func TestNoGitBinaryAtRunTime(t *testing.T) {
	root := filepath.Join("..", "..")
	gitExec := regexp.MustCompile(`exec\.(Command|CommandContext|LookPath)\((ctx, |[a-zA-Z.]+, )?"git"`)
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "testdata" || d.Name() == "node_modules" || strings.HasPrefix(d.Name(), ".") && p != root) {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") {
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		if loc := gitExec.FindIndex(b); loc != nil {
			t.Errorf("%s runs the git binary (%s): use go-git (internal/worktree, internal/checkpoint)", p, b[loc[0]:loc[1]])
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
