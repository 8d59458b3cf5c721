package worktree

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	git "github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
)

// DirtyError says a worktree was kept because it holds uncommitted changes.
type DirtyError struct {
	Path  string
	Files []string // "M a.txt", "?? new.txt", ... as git status --short says
}

func (e *DirtyError) Error() string {
	shown := e.Files
	if len(shown) > 5 {
		shown = append(append([]string{}, shown[:5]...), fmt.Sprintf("and %d more", len(e.Files)-5))
	}
	return fmt.Sprintf("worktree %s has uncommitted changes (%s): commit or discard them, then remove it with: git worktree remove %s",
		e.Path, strings.Join(shown, ", "), e.Path)
}

// Changes lists a worktree's uncommitted changes as `git status --short`
// does (an empty list: clean).
func Changes(path string) ([]string, error) {
	r, err := git.PlainOpenWithOptions(path, &git.PlainOpenOptions{EnableDotGitCommonDir: true})
	if err != nil {
		return nil, fmt.Errorf("worktree: open %s: %w", path, err)
	}
	w, err := r.Worktree()
	if err != nil {
		return nil, fmt.Errorf("worktree: %s: %w", path, err)
	}
	st, err := w.Status()
	if err != nil {
		return nil, fmt.Errorf("worktree: status of %s: %w", path, err)
	}
	var out []string
	for p, s := range st {
		if s.Staging == git.Unmodified && s.Worktree == git.Unmodified {
			continue
		}
		if s.Staging == git.Untracked || s.Worktree == git.Untracked {
			out = append(out, "?? "+p)
			continue
		}
		code := strings.TrimSpace(string([]byte{byte(s.Staging), byte(s.Worktree)}))
		out = append(out, code+" "+p)
	}
	sort.Strings(out)
	return out, nil
}

// RemoveOptions say what Remove may take with the worktree.
type RemoveOptions struct {
	// Branch and Commit are the branch Add made and its commit: the branch
	// is deleted too when it still names Commit (nothing was committed on
	// it since), and kept otherwise.
	Branch, Commit string
	// Force removes the worktree whatever it holds, and the branch whatever
	// it names: for a worktree whose changes the caller has read already
	// (a worker subagent's, whose changes are never committed).
	Force bool
}

// Removed says what Remove did.
type Removed struct {
	// KeptBranch is set when the branch was kept because it holds commits
	// made after Add.
	KeptBranch bool
}

// Remove removes the linked worktree at path (its directory and its
// administrative directory) when it holds no uncommitted change; else it
// removes nothing and returns a *DirtyError. A worktree whose directory is
// gone already is not an error.
func Remove(path string, opt RemoveOptions) (Removed, error) {
	var res Removed
	path, err := filepath.Abs(path)
	if err != nil {
		return res, fmt.Errorf("worktree: %w", err)
	}
	admin, err := gitdirOf(path)
	if errors.Is(err, fs.ErrNotExist) {
		return res, nil
	}
	if err != nil {
		return res, err
	}
	// only a linked worktree whose administrative directory names it back,
	// as git's own does: never a main worktree, nor one whose .git file a
	// command pointed elsewhere
	back, err := os.ReadFile(filepath.Join(admin, "gitdir"))
	if err != nil || filepath.Clean(strings.TrimSpace(string(back))) != filepath.Join(path, ".git") || filepath.Base(filepath.Dir(admin)) != "worktrees" {
		return res, fmt.Errorf("worktree: %s is not a linked worktree whose administrative directory %s names it: not removed", path, admin)
	}
	if !opt.Force {
		changes, err := Changes(path)
		if err != nil {
			return res, err
		}
		if len(changes) > 0 {
			return res, &DirtyError{Path: path, Files: changes}
		}
	}
	common := admin
	if b, err := os.ReadFile(filepath.Join(admin, "commondir")); err == nil {
		c := strings.TrimSpace(string(b))
		if !filepath.IsAbs(c) {
			c = filepath.Join(admin, c)
		}
		common = filepath.Clean(c)
	}
	if err := os.RemoveAll(path); err != nil {
		return res, fmt.Errorf("worktree: remove %s: %w", path, err)
	}
	if err := os.RemoveAll(admin); err != nil {
		return res, fmt.Errorf("worktree: remove %s: %w", admin, err)
	}
	if opt.Branch == "" {
		return res, nil
	}
	r, err := git.PlainOpen(filepath.Dir(common))
	if err != nil {
		r, err = git.PlainOpen(common) // a bare repository
	}
	if err != nil {
		return res, nil // the branch stays; nothing of the worktree does
	}
	ref := plumbing.NewBranchReferenceName(opt.Branch)
	cur, err := r.Storer.Reference(ref)
	if err != nil {
		return res, nil
	}
	if !opt.Force && cur.Hash().String() != opt.Commit {
		res.KeptBranch = true
		return res, nil
	}
	if err := r.Storer.RemoveReference(ref); err != nil {
		return res, fmt.Errorf("worktree: delete branch %s: %w", opt.Branch, err)
	}
	return res, nil
}
