package app

// Git worktrees of worker subagents: made from the parent's workspace (its
// present files, scanned as a checkpoint is, committed on a new branch
// with its HEAD as parent: the worker's base), diffed against that base,
// applied to the parent's workspace file by file, and removed with their
// branch. All of it is go-git (internal/worktree, internal/checkpoint): no
// git binary runs, so a repository's hooks, filters and config never run
// because a worker was made or removed.

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	git "github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/go-git/go-git/v5/plumbing/storer"

	"agent/internal/atomicfile"
	"agent/internal/checkpoint"
	"agent/internal/event"
	"agent/internal/worktree"
)

// worktreeDir is where the worktree of run id (a worker's or a fork's) lives: under the
// state directory, which commands of the worker see only down to it.
func worktreeDir(home, runID string) string { return filepath.Join(home, "worktrees", runID) }

// taskBranch is the branch of worker run id.
func taskBranch(runID string) string { return "agent/task-" + runID }

// baseFile records the base commit of the worktree at dir, beside it:
// written once the worktree is complete, so its absence means a worker's
// worktree was never finished (a crash while it was made).
func baseFile(dir string) string { return dir + ".base" }

// ensureWorktree makes the worktree a task_started names, from ws, unless
// it was finished before (a resume), and returns its base commit. A
// worktree left half-made by a crash is removed and made again: nothing
// ran in it, as its child starts only after this returns.
func ensureWorktree(ctx context.Context, home, ws string, ts event.TaskStartedData) (string, error) {
	if filepath.Dir(ts.Worktree) != filepath.Join(home, "worktrees") {
		return "", fmt.Errorf("the worktree %s of task call %s is not under the state directory", ts.Worktree, ts.CallID)
	}
	if b, err := os.ReadFile(baseFile(ts.Worktree)); err == nil {
		return strings.TrimSpace(string(b)), nil
	}
	if err := removeTaskWorktree(ts.Worktree, ts.Branch); err != nil {
		return "", fmt.Errorf("clear a half-made worktree: %w", err)
	}
	// what a crash mid-way may have left in the user's repository: the
	// worktree's registration and its branch
	if err := worktree.Forget(ws, ts.Worktree, ts.Branch); err != nil && checkWorkerRepo(ws) == nil {
		return "", fmt.Errorf("clear a half-made worktree: %w", err)
	}
	base, err := createWorktree(ctx, home, ws, ts.Worktree, ts.Branch)
	if err != nil {
		return "", err
	}
	if err := atomicfile.Write(baseFile(ts.Worktree), []byte(base+"\n"), 0o600); err != nil {
		_ = removeTaskWorktree(ts.Worktree, ts.Branch)
		return "", fmt.Errorf("record the worktree's base: %w", err)
	}
	return base, nil
}

// worktreeBase is the base commit of a worker's worktree.
func worktreeBase(ts event.TaskStartedData) (string, error) {
	if ts.Base != "" {
		return ts.Base, nil
	}
	b, err := os.ReadFile(baseFile(ts.Worktree))
	if err != nil {
		return "", fmt.Errorf("the worker's worktree %s was never finished: %w", ts.Worktree, err)
	}
	return strings.TrimSpace(string(b)), nil
}

// checkWorkerRepo says why ws cannot have a worker's worktree: it must be
// the top of a git repository whose HEAD names a commit.
func checkWorkerRepo(ws string) error {
	r, err := git.PlainOpenWithOptions(ws, &git.PlainOpenOptions{EnableDotGitCommonDir: true})
	if err != nil {
		if _, derr := git.PlainOpenWithOptions(ws, &git.PlainOpenOptions{DetectDotGit: true}); derr == nil {
			return fmt.Errorf("a worker needs the workspace %s to be the top of its git repository (it is inside one)", ws)
		}
		return fmt.Errorf("a worker needs the workspace to be a git repository (run git init and commit): %w", err)
	}
	if _, err := r.Head(); err != nil {
		return errors.New("a worker needs a commit to start from: the workspace's repository has none (commit once, then retry)")
	}
	return nil
}

// createWorktree makes dir a linked worktree of the repository at ws on
// the new branch, holding ws's present files (changes, new files not
// ignored, deletions) committed with ws's HEAD as parent: the worker's
// base, which it returns.
func createWorktree(ctx context.Context, home, ws, dir, branch string) (string, error) {
	if err := checkWorkerRepo(ws); err != nil {
		return "", err
	}
	if err := os.MkdirAll(filepath.Dir(dir), 0o700); err != nil {
		return "", fmt.Errorf("make the worktrees directory: %w", err)
	}
	cps, err := checkpoint.Open(home, ws)
	if err != nil {
		return "", fmt.Errorf("open the checkpoints of %s: %w", ws, err)
	}
	defer cps.Close()
	repo, err := git.PlainOpenWithOptions(ws, &git.PlainOpenOptions{EnableDotGitCommonDir: true})
	if err != nil {
		return "", fmt.Errorf("open the git repository of %s: %w", ws, err)
	}
	wt, err := worktree.Add(ctx, worktree.AddOptions{
		Repo: ws, Path: dir, Branch: branch,
		Tree: func(dst storer.EncodedObjectStorer) (plumbing.Hash, error) {
			h, _, err := cps.CopyFiles(ctx, dst)
			if err != nil {
				return h, err
			}
			return withTracked(ctx, repo, dst, ws, h)
		},
		Message: "agent: the parent's files as the worker's base\n",
	})
	if err != nil {
		return "", fmt.Errorf("make the worker's worktree: %w", err)
	}
	return wt.Commit, nil
}

// fileChange is one path a worker changed: A added, M modified, D deleted
// (T, a type change, counts as M).
type fileChange struct {
	Status byte
	Path   string
}

// baseTree is the tree of commit base in the repository of the worktree
// at dir.
func baseTree(dir, base string) (*object.Tree, error) {
	r, err := git.PlainOpenWithOptions(dir, &git.PlainOpenOptions{EnableDotGitCommonDir: true})
	if err != nil {
		return nil, fmt.Errorf("open the worker's worktree %s: %w", dir, err)
	}
	c, err := r.CommitObject(plumbing.NewHash(base))
	if err != nil {
		return nil, fmt.Errorf("the worker's base commit %s: %w", base, err)
	}
	t, err := c.Tree()
	if err != nil {
		return nil, fmt.Errorf("the tree of the worker's base %s: %w", base, err)
	}
	return t, nil
}

// worktreeChanges returns the files the worker changed against base and,
// with patch, the unified diff (git's format). The worktree's files are
// scanned as a checkpoint scans them, in the shadow repository of the
// worktree (the worker's own, under home).
func worktreeChanges(ctx context.Context, home, dir, base string, patch bool) ([]fileChange, string, error) {
	bt, err := baseTree(dir, base)
	if err != nil {
		return nil, "", err
	}
	cps, err := checkpoint.Open(home, dir)
	if err != nil {
		return nil, "", fmt.Errorf("open the checkpoints of the worker's worktree %s: %w", dir, err)
	}
	defer cps.Close()
	changes, diff, err := cps.DiffFrom(ctx, bt, patch)
	if err != nil {
		return nil, "", err
	}
	files := make([]fileChange, 0, len(changes))
	for _, c := range changes {
		st := byte('M')
		switch c.Action {
		case checkpoint.ActionAdded:
			st = 'A'
		case checkpoint.ActionDeleted:
			st = 'D'
		}
		files = append(files, fileChange{Status: st, Path: c.Path})
	}
	return files, diff, nil
}

// applyWorktree brings the worker's changes against base into ws, file by
// file: a file still as it was at the base gets the worker's version; one
// already like the worker's is left; any other is a conflict, left alone.
func applyWorktree(ctx context.Context, home, ws, dir, base string) (applied, same, conflicts []string, err error) {
	files, _, err := worktreeChanges(ctx, home, dir, base, false)
	if err != nil {
		return nil, nil, nil, err
	}
	bt, err := baseTree(dir, base)
	if err != nil {
		return nil, nil, nil, err
	}
	root, err := os.OpenRoot(ws)
	if err != nil {
		return nil, nil, nil, err
	}
	defer root.Close()
	for _, fc := range files {
		if !filepath.IsLocal(fc.Path) {
			conflicts = append(conflicts, fc.Path+": not a path inside the workspace")
			continue
		}
		var baseData []byte
		baseHas := fc.Status != 'A'
		if baseHas {
			if baseData, err = blobAt(bt, fc.Path); err != nil {
				return applied, same, conflicts, err
			}
		}
		wData, wMode, wHas, werr := readRegular(filepath.Join(dir, fc.Path))
		if werr != nil {
			conflicts = append(conflicts, fc.Path+": "+werr.Error())
			continue
		}
		pData, _, pHas, perr := readRegularIn(root, fc.Path)
		if perr != nil {
			conflicts = append(conflicts, fc.Path+": "+perr.Error())
			continue
		}
		switch {
		case pHas == wHas && bytes.Equal(pData, wData):
			same = append(same, fc.Path)
			continue
		case pHas != baseHas || !bytes.Equal(pData, baseData):
			conflicts = append(conflicts, fc.Path+": changed in the workspace since the task started; not applied")
			continue
		}
		if !wHas {
			if err := root.Remove(fc.Path); err != nil && !errors.Is(err, fs.ErrNotExist) {
				return applied, same, conflicts, err
			}
		} else {
			if d := filepath.Dir(fc.Path); d != "." {
				if err := root.MkdirAll(d, 0o755); err != nil {
					return applied, same, conflicts, err
				}
			}
			if err := root.WriteFile(fc.Path, wData, wMode); err != nil {
				return applied, same, conflicts, err
			}
		}
		applied = append(applied, fc.Path)
	}
	return applied, same, conflicts, nil
}

// blobAt is the content of the file at p in tree t (a symlink's target).
func blobAt(t *object.Tree, p string) ([]byte, error) {
	f, err := t.File(p)
	if err != nil {
		return nil, fmt.Errorf("%s in the worker's base: %w", p, err)
	}
	r, err := f.Reader()
	if err != nil {
		return nil, fmt.Errorf("%s in the worker's base: %w", p, err)
	}
	defer r.Close()
	return io.ReadAll(r)
}

// readRegular reads a regular file (has false when it does not exist).
func readRegular(p string) ([]byte, fs.FileMode, bool, error) {
	fi, err := os.Lstat(p)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, 0, false, nil
	}
	if err != nil {
		return nil, 0, false, err
	}
	if !fi.Mode().IsRegular() {
		return nil, 0, false, errors.New("not a regular file (a symlink or a directory); apply it by hand")
	}
	b, err := os.ReadFile(p)
	return b, fi.Mode().Perm(), true, err
}

// readRegularIn is readRegular beneath root.
func readRegularIn(root *os.Root, p string) ([]byte, fs.FileMode, bool, error) {
	fi, err := root.Lstat(p)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, 0, false, nil
	}
	if err != nil {
		return nil, 0, false, err
	}
	if !fi.Mode().IsRegular() {
		return nil, 0, false, errors.New("not a regular file in the workspace; apply it by hand")
	}
	b, err := root.ReadFile(p)
	return b, fi.Mode().Perm(), true, err
}

// removeTaskWorktree removes the worktree at dir and its branch from the
// repository it belongs to, whatever it holds (the caller has read its
// changes). A worktree already gone is no error; a directory that is no
// linked worktree (half-made) is removed as a directory.
func removeTaskWorktree(dir, branch string) error {
	if err := os.Remove(baseFile(dir)); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	if _, err := os.Lstat(dir); errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	_, rerr := worktree.Remove(dir, worktree.RemoveOptions{Branch: branch, Force: true})
	if _, err := os.Lstat(dir); err == nil {
		if err := os.RemoveAll(dir); err != nil {
			if rerr != nil {
				return fmt.Errorf("%w (and removing the directory: %v)", rerr, err)
			}
			return err
		}
	}
	// the shadow repository of the worktree (the worker's checkpoints and
	// the scans of its diffs), once no run has snapshots in it
	if wts := filepath.Dir(dir); filepath.Base(wts) == "worktrees" {
		if err := checkpoint.RemoveUnusedRepo(filepath.Dir(wts), dir); err != nil {
			return fmt.Errorf("the worktree is removed, its checkpoint repository not: %w", err)
		}
	}
	return nil
}
