package worktree

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	git "github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
)

// Forget undoes what a crash in the middle of Add may have left in the
// repository whose worktree top is repo, for a worktree meant for path on
// branch: the administrative directories naming path, and the branch. Run
// it before making that worktree again, after removing path. Like `git
// worktree prune` and `git branch -D`, without a git binary.
func Forget(repo, path, branch string) error {
	common, err := commonDir(repo)
	if err != nil {
		return err
	}
	path, err = filepath.Abs(path)
	if err != nil {
		return fmt.Errorf("worktree: %w", err)
	}
	if _, err := os.Lstat(path); err == nil {
		return fmt.Errorf("worktree: %s still exists: remove it first", path)
	}
	base := filepath.Join(common, "worktrees")
	ents, err := os.ReadDir(base)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("worktree: %w", err)
	}
	for _, e := range ents {
		admin := filepath.Join(base, e.Name())
		b, err := os.ReadFile(filepath.Join(admin, "gitdir"))
		if err != nil {
			continue
		}
		if filepath.Clean(strings.TrimSpace(string(b))) == filepath.Join(path, ".git") {
			if err := os.RemoveAll(admin); err != nil {
				return fmt.Errorf("worktree: %w", err)
			}
		}
	}
	r, err := git.PlainOpenWithOptions(repo, &git.PlainOpenOptions{EnableDotGitCommonDir: true})
	if err != nil {
		return fmt.Errorf("worktree: open the git repository of %s: %w", repo, err)
	}
	ref := plumbing.NewBranchReferenceName(branch)
	if _, err := r.Storer.Reference(ref); err == nil {
		if err := r.Storer.RemoveReference(ref); err != nil {
			return fmt.Errorf("worktree: delete branch %s: %w", branch, err)
		}
	}
	return nil
}
