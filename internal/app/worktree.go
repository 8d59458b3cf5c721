package app

// Git worktrees of worker subagents: made from the parent's workspace (its
// HEAD plus its current files, committed as the worker's base on a new
// branch), diffed against that base, applied to the parent's workspace
// file by file, and removed with their branch. Git runs with hooks off:
// a repository's hooks never run because a worker was made or removed.

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"agent/internal/atomicfile"
	"agent/internal/event"
)

// worktreeDir is where the worktree of worker run id lives: under the
// state directory, which commands of the worker see only down to it.
func worktreeDir(home, runID string) string { return filepath.Join(home, "worktrees", runID) }

// taskBranch is the branch of worker run id.
func taskBranch(runID string) string { return "agent/task-" + runID }

// git runs git in dir with hooks off and returns its stdout.
func git(ctx context.Context, dir string, env []string, args ...string) ([]byte, error) {
	full := append([]string{"-C", dir, "-c", "core.hooksPath=/dev/null", "-c", "core.fsmonitor=false"}, args...)
	cmd := exec.CommandContext(ctx, "git", full...)
	cmd.Env = append(os.Environ(), "GIT_TERMINAL_PROMPT=0", "GIT_OPTIONAL_LOCKS=0")
	cmd.Env = append(cmd.Env, env...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		msg := strings.TrimSpace(errb.String())
		if msg == "" {
			msg = err.Error()
		}
		return out.Bytes(), fmt.Errorf("git %s: %s", args[0], msg)
	}
	return out.Bytes(), nil
}

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
	if err := removeTaskWorktree(ctx, ts.Worktree, ts.Branch); err != nil {
		return "", fmt.Errorf("clear a half-made worktree: %w", err)
	}
	// what a crash mid-way may have left in the user's repository: the
	// worktree's registration and its branch
	_, _ = git(ctx, ws, nil, "worktree", "prune")
	_, _ = git(ctx, ws, nil, "branch", "-D", "-q", ts.Branch)
	base, err := createWorktree(ctx, ws, ts.Worktree, ts.Branch)
	if err != nil {
		return "", err
	}
	if err := atomicfile.Write(baseFile(ts.Worktree), []byte(base+"\n"), 0o600); err != nil {
		_ = removeTaskWorktree(context.WithoutCancel(ctx), ts.Worktree, ts.Branch)
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

// createWorktree makes dir a git worktree of the repository at ws on a new
// branch from HEAD, copies ws's current files over it (changes, new files
// not ignored, deletions) and commits them as the worker's base. It
// returns the base commit.
func createWorktree(ctx context.Context, ws, dir, branch string) (string, error) {
	top, err := git(ctx, ws, nil, "rev-parse", "--show-toplevel")
	if err != nil {
		return "", fmt.Errorf("a worker needs the workspace to be a git repository (run git init and commit): %w", err)
	}
	if t, _ := filepath.EvalSymlinks(strings.TrimSpace(string(top))); t != ws {
		return "", fmt.Errorf("a worker needs the workspace %s to be the top of its git repository (it is inside %s)", ws, t)
	}
	if _, err := git(ctx, ws, nil, "rev-parse", "--verify", "-q", "HEAD^{commit}"); err != nil {
		return "", errors.New("a worker needs a commit to start from: the workspace's repository has none (commit once, then retry)")
	}
	if err := os.MkdirAll(filepath.Dir(dir), 0o700); err != nil {
		return "", fmt.Errorf("make the worktrees directory: %w", err)
	}
	if _, err := git(ctx, ws, nil, "worktree", "add", "--quiet", "-b", branch, dir, "HEAD"); err != nil {
		return "", fmt.Errorf("make the worker's worktree: %w", err)
	}
	fail := func(err error) (string, error) {
		_ = removeTaskWorktree(context.WithoutCancel(ctx), dir, branch)
		return "", err
	}
	st, err := git(ctx, ws, nil, "status", "--porcelain=v1", "-z", "--untracked-files=all", "--no-renames", "--ignore-submodules=all")
	if err != nil {
		return fail(err)
	}
	n := 0
	for _, ent := range strings.Split(string(st), "\x00") {
		if len(ent) < 4 {
			continue
		}
		xy, rel := ent[:2], ent[3:]
		if !filepath.IsLocal(rel) {
			continue
		}
		src, dst := filepath.Join(ws, rel), filepath.Join(dir, rel)
		if strings.Contains(xy, "D") {
			if _, err := os.Lstat(src); errors.Is(err, fs.ErrNotExist) {
				if err := os.Remove(dst); err != nil && !errors.Is(err, fs.ErrNotExist) {
					return fail(err)
				}
				n++
				continue
			}
		}
		if err := copyEntry(src, dst); err != nil {
			return fail(fmt.Errorf("copy %s into the worker's worktree: %w", rel, err))
		}
		n++
	}
	if n > 0 {
		if _, err := git(ctx, dir, nil, "add", "-A"); err != nil {
			return fail(err)
		}
		if _, err := git(ctx, dir, nil, "-c", "user.name=agent", "-c", "user.email=agent@localhost", "-c", "commit.gpgsign=false",
			"commit", "-q", "--no-verify", "--allow-empty", "-m", "agent: the parent's files as the worker's base"); err != nil {
			return fail(err)
		}
	}
	base, err := git(ctx, dir, nil, "rev-parse", "HEAD")
	if err != nil {
		return fail(err)
	}
	return strings.TrimSpace(string(base)), nil
}

// copyEntry copies a regular file or a symlink from src to dst.
func copyEntry(src, dst string) error {
	fi, err := os.Lstat(src)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return err
	}
	_ = os.Remove(dst)
	switch {
	case fi.Mode()&fs.ModeSymlink != 0:
		t, err := os.Readlink(src)
		if err != nil {
			return err
		}
		return os.Symlink(t, dst)
	case fi.Mode().IsRegular():
		b, err := os.ReadFile(src)
		if err != nil {
			return err
		}
		return os.WriteFile(dst, b, fi.Mode().Perm())
	}
	return nil // a directory (a nested repository) or a special file: left out
}

// fileChange is one path a worker changed: A added, M modified, D deleted
// (T, a type change, counts as M).
type fileChange struct {
	Status byte
	Path   string
}

// withTempIndex runs f with GIT_INDEX_FILE set to a copy of dir's index
// to which every change of the worktree was added, so that diffs against
// the base see new files without touching the worktree's own index.
func withTempIndex(ctx context.Context, dir string, f func(env []string) error) error {
	idx, err := git(ctx, dir, nil, "rev-parse", "--path-format=absolute", "--git-path", "index")
	if err != nil {
		return err
	}
	tmp, err := os.CreateTemp("", "agent-task-index-*")
	if err != nil {
		return err
	}
	tmpPath := tmp.Name()
	defer os.Remove(tmpPath)
	if b, err := os.ReadFile(strings.TrimSpace(string(idx))); err == nil {
		_, _ = tmp.Write(b)
	}
	tmp.Close()
	env := []string{"GIT_INDEX_FILE=" + tmpPath}
	if _, err := git(ctx, dir, env, "add", "-A"); err != nil {
		return err
	}
	return f(env)
}

// worktreeChanges returns the files the worker changed against base and,
// with patch, the unified diff.
func worktreeChanges(ctx context.Context, dir, base string, patch bool) ([]fileChange, string, error) {
	var files []fileChange
	var diff string
	err := withTempIndex(ctx, dir, func(env []string) error {
		out, err := git(ctx, dir, env, "diff", "--cached", "--name-status", "-z", "--no-renames", base)
		if err != nil {
			return err
		}
		parts := strings.Split(string(out), "\x00")
		for i := 0; i+1 < len(parts); i += 2 {
			if parts[i] == "" {
				break
			}
			s := parts[i][0]
			if s == 'T' {
				s = 'M'
			}
			files = append(files, fileChange{Status: s, Path: parts[i+1]})
		}
		if patch {
			out, err := git(ctx, dir, env, "diff", "--cached", "--no-renames", "--no-color", "--no-ext-diff", base)
			if err != nil {
				return err
			}
			diff = string(out)
		}
		return nil
	})
	return files, diff, err
}

// applyWorktree brings the worker's changes against base into ws, file by
// file: a file still as it was at the base gets the worker's version; one
// already like the worker's is left; any other is a conflict, left alone.
func applyWorktree(ctx context.Context, ws, dir, base string) (applied, same, conflicts []string, err error) {
	files, _, err := worktreeChanges(ctx, dir, base, false)
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
			if baseData, err = git(ctx, dir, nil, "cat-file", "blob", base+":"+fc.Path); err != nil {
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
// repository it belongs to. A worktree already gone is no error.
func removeTaskWorktree(ctx context.Context, dir, branch string) error {
	if err := os.Remove(baseFile(dir)); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	if _, err := os.Stat(dir); errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	common, err := git(ctx, dir, nil, "rev-parse", "--path-format=absolute", "--git-common-dir")
	if err != nil {
		if rerr := os.RemoveAll(dir); rerr != nil {
			return rerr
		}
		return nil
	}
	gd := strings.TrimSpace(string(common))
	repo := filepath.Dir(gd)
	if _, err := git(ctx, repo, []string{"GIT_DIR=" + gd}, "worktree", "remove", "--force", "--force", dir); err != nil {
		if rerr := os.RemoveAll(dir); rerr != nil {
			return fmt.Errorf("%w (and removing the directory: %v)", err, rerr)
		}
		_, _ = git(ctx, repo, []string{"GIT_DIR=" + gd}, "worktree", "prune")
	}
	if branch != "" {
		_, _ = git(ctx, repo, []string{"GIT_DIR=" + gd}, "branch", "-D", "-q", branch)
	}
	return nil
}
