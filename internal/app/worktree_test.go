package app

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"agent/internal/event"
)

func gitT(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-C", dir, "-c", "user.name=t", "-c", "user.email=t@t"}, args...)...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return string(out)
}

func writeT(t *testing.T, p, body string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
}

func readT(t *testing.T, p string) string {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// A worker starts from the parent's current files (not only HEAD); its
// changes apply file by file, a file the parent changed meanwhile is a
// conflict left alone, a second apply changes nothing, and removing the
// worktree leaves no entry in the user's repository.
func TestWorktreeLifecycle(t *testing.T) {
	ctx := context.Background()
	ws := t.TempDir()
	ws, _ = filepath.EvalSymlinks(ws)
	for _, f := range []string{"a.txt", "b.txt", "gone.txt", "keep.txt"} {
		writeT(t, filepath.Join(ws, f), f+" v1\n")
	}
	// an executable and a symlink come out as git has them
	writeT(t, filepath.Join(ws, "bin/run.sh"), "#!/bin/sh\n")
	os.Chmod(filepath.Join(ws, "bin/run.sh"), 0o755)
	os.Symlink("bin/run.sh", filepath.Join(ws, "link"))
	gitT(t, ws, "init", "-q")
	gitT(t, ws, "add", "-A")
	gitT(t, ws, "commit", "-qm", "init")
	// the parent's uncommitted state: a change, a new file, a deletion
	writeT(t, filepath.Join(ws, "a.txt"), "a.txt parent\n")
	writeT(t, filepath.Join(ws, "new/n.txt"), "new file\n")
	os.Remove(filepath.Join(ws, "gone.txt"))

	// hooks never run: go-git runs none
	writeT(t, filepath.Join(ws, ".git/hooks/post-checkout"), "#!/bin/sh\ntouch "+filepath.Join(ws, "HOOK-RAN")+"\n")
	os.Chmod(filepath.Join(ws, ".git/hooks/post-checkout"), 0o755)
	home := t.TempDir()
	dir := worktreeDir(home, "20260101T000000-wt0001")
	// no git binary is needed: PATH names none while the worktree is made
	path := os.Getenv("PATH")
	os.Setenv("PATH", "")
	base, err := createWorktree(ctx, home, ws, dir, "agent/task-x")
	if err != nil {
		t.Fatal(err)
	}
	if got := readT(t, filepath.Join(dir, "a.txt")); got != "a.txt parent\n" {
		t.Fatalf("worktree a.txt = %q, want the parent's current file", got)
	}
	if got := readT(t, filepath.Join(dir, "new/n.txt")); got != "new file\n" {
		t.Fatalf("worktree new/n.txt = %q", got)
	}
	if _, err := os.Stat(filepath.Join(dir, "gone.txt")); !os.IsNotExist(err) {
		t.Fatal("a file the parent deleted is in the worktree")
	}
	os.Setenv("PATH", path)
	// git itself sees a clean worktree on its branch, whose base has the
	// workspace's HEAD as parent
	if out := gitT(t, dir, "status", "--porcelain"); out != "" {
		t.Fatalf("git status in a fresh worktree:\n%s", out)
	}
	if fi, err := os.Stat(filepath.Join(dir, "bin/run.sh")); err != nil || fi.Mode().Perm()&0o100 == 0 {
		t.Fatalf("bin/run.sh in the worktree: %v %v, want executable", fi, err)
	}
	if target, err := os.Readlink(filepath.Join(dir, "link")); err != nil || target != "bin/run.sh" {
		t.Fatalf("link in the worktree: %q %v", target, err)
	}
	if got, want := strings.TrimSpace(gitT(t, ws, "rev-parse", base+"^")), strings.TrimSpace(gitT(t, ws, "rev-parse", "HEAD")); got != want {
		t.Fatalf("the base's parent is %s, want HEAD %s", got, want)
	}
	if out := gitT(t, ws, "worktree", "list", "--porcelain"); !strings.Contains(out, "branch refs/heads/agent/task-x") {
		t.Fatalf("git worktree list does not show the worker's:\n%s", out)
	}
	if _, err := os.Stat(filepath.Join(ws, "HOOK-RAN")); err == nil {
		t.Fatal("a hook of the repository ran")
	}
	if files, _, err := worktreeChanges(ctx, home, dir, base, false); err != nil || len(files) != 0 {
		t.Fatalf("a fresh worktree has changes against its base: %v %v", files, err)
	}
	// the worker's work
	writeT(t, filepath.Join(dir, "a.txt"), "a.txt worker\n")
	writeT(t, filepath.Join(dir, "b.txt"), "b.txt worker\n")
	writeT(t, filepath.Join(dir, "w/made.txt"), "made\n")
	os.Remove(filepath.Join(dir, "keep.txt"))
	// meanwhile the parent changed b.txt
	writeT(t, filepath.Join(ws, "b.txt"), "b.txt parent later\n")

	files, diff, err := worktreeChanges(ctx, home, dir, base, true)
	if err != nil {
		t.Fatal(err)
	}
	if len(files) != 4 || !strings.Contains(diff, "+made") {
		t.Fatalf("changes = %v, diff:\n%s", files, diff)
	}
	applied, same, conflicts, err := applyWorktree(ctx, home, ws, dir, base)
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(applied)
	if !slices.Equal(applied, []string{"a.txt", "keep.txt", "w/made.txt"}) || len(same) != 0 {
		t.Fatalf("applied %v same %v", applied, same)
	}
	if len(conflicts) != 1 || !strings.HasPrefix(conflicts[0], "b.txt:") {
		t.Fatalf("conflicts = %v, want b.txt", conflicts)
	}
	if got := readT(t, filepath.Join(ws, "b.txt")); got != "b.txt parent later\n" {
		t.Fatalf("a conflicting file was overwritten: %q", got)
	}
	if got := readT(t, filepath.Join(ws, "a.txt")); got != "a.txt worker\n" {
		t.Fatalf("a.txt = %q", got)
	}
	if _, err := os.Stat(filepath.Join(ws, "keep.txt")); !os.IsNotExist(err) {
		t.Fatal("the worker's deletion was not applied")
	}
	applied, same, _, err = applyWorktree(ctx, home, ws, dir, base)
	if err != nil || len(applied) != 0 || len(same) != 3 {
		t.Fatalf("second apply: applied %v same %v err %v, want nothing new", applied, same, err)
	}
	if err := removeTaskWorktree(dir, "agent/task-x"); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Fatal("the worktree directory is still there")
	}
	if out := gitT(t, ws, "worktree", "list", "--porcelain"); strings.Count(out, "worktree ") != 1 {
		t.Fatalf("git worktree list:\n%s", out)
	}
	if out := gitT(t, ws, "branch", "--list", "agent/task-x"); out != "" {
		t.Fatalf("the branch is left: %q", out)
	}
	// the shadow repository its diffs were scanned in went with it; the
	// workspace's own stays
	repos, _ := filepath.Glob(filepath.Join(home, "checkpoints", "*.git"))
	if len(repos) != 1 {
		t.Fatalf("shadow repositories left: %v, want only the workspace's", repos)
	}
}

func TestWorktreeNeedsGit(t *testing.T) {
	ws := t.TempDir()
	ws, _ = filepath.EvalSymlinks(ws)
	_, err := createWorktree(context.Background(), t.TempDir(), ws, filepath.Join(t.TempDir(), "wt"), "agent/task-y")
	if err == nil || !strings.Contains(err.Error(), "git repository") {
		t.Fatalf("err = %v, want one that says a worker needs a git repository", err)
	}
}

// A crash while a worker's worktree was made (no base recorded yet, or
// the directory gone but still registered) is made good by the resume's
// ensureWorktree; a finished one is kept as it is.
func TestEnsureWorktreeAfterACrash(t *testing.T) {
	ctx := context.Background()
	ws := t.TempDir()
	ws, _ = filepath.EvalSymlinks(ws)
	writeT(t, filepath.Join(ws, "a.txt"), "a\n")
	gitT(t, ws, "init", "-q")
	gitT(t, ws, "add", "-A")
	gitT(t, ws, "commit", "-qm", "init")
	home := t.TempDir()
	ts := eventTask(home, "20260101T000000-abcdef")
	// half-made: the worktree exists, its base was never recorded
	if _, err := createWorktree(ctx, home, ws, ts.Worktree, ts.Branch); err != nil {
		t.Fatal(err)
	}
	writeT(t, filepath.Join(ts.Worktree, "junk.txt"), "left by nobody\n")
	base, err := ensureWorktree(ctx, home, ws, ts)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(ts.Worktree, "junk.txt")); !os.IsNotExist(err) {
		t.Fatal("a half-made worktree was kept")
	}
	writeT(t, filepath.Join(ts.Worktree, "work.txt"), "the worker's\n")
	if again, err := ensureWorktree(ctx, home, ws, ts); err != nil || again != base {
		t.Fatalf("second ensure: %q %v, want the same base %q", again, err, base)
	}
	if _, err := os.Stat(filepath.Join(ts.Worktree, "work.txt")); err != nil {
		t.Fatal("a finished worktree was made again")
	}
	// the directory gone but registered in the repository
	os.Remove(baseFile(ts.Worktree))
	os.RemoveAll(ts.Worktree)
	if _, err := ensureWorktree(ctx, home, ws, ts); err != nil {
		t.Fatalf("ensure over a registered but missing worktree: %v", err)
	}
	if err := removeTaskWorktree(ts.Worktree, ts.Branch); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(baseFile(ts.Worktree)); !os.IsNotExist(err) {
		t.Fatal("the base record outlived its worktree")
	}
	// git sees nothing left of any of the three worktrees
	if out := gitT(t, ws, "worktree", "list", "--porcelain"); strings.Count(out, "worktree ") != 1 {
		t.Fatalf("git worktree list:\n%s", out)
	}
	if out := gitT(t, ws, "branch", "--list", ts.Branch); out != "" {
		t.Fatalf("the branch is left: %q", out)
	}
}

func eventTask(home, id string) event.TaskStartedData {
	return event.TaskStartedData{CallID: "c", ChildRun: id, Kind: event.TaskWorker, Worktree: worktreeDir(home, id), Branch: taskBranch(id)}
}

// A worker's base is HEAD plus the parent's current files as git sees
// them: a tracked file that matches .gitignore (or is over the scan's size
// limit) is in it with its present content; an ignored untracked one is
// not; a tracked ignored file the parent deleted is deleted.
func TestWorktreeKeepsTrackedIgnoredFiles(t *testing.T) {
	ctx := context.Background()
	ws, _ := filepath.EvalSymlinks(t.TempDir())
	writeT(t, filepath.Join(ws, "src/a.txt"), "a\n")
	writeT(t, filepath.Join(ws, "dist/app.js"), "built v1\n")
	writeT(t, filepath.Join(ws, "dist/old.js"), "old\n")
	writeT(t, filepath.Join(ws, "vendor.log"), "forced\n")
	gitT(t, ws, "init", "-q")
	gitT(t, ws, "add", "-A")
	writeT(t, filepath.Join(ws, ".gitignore"), "dist/\n*.log\n")
	gitT(t, ws, "add", ".gitignore")
	gitT(t, ws, "commit", "-qm", "init")
	writeT(t, filepath.Join(ws, "dist/app.js"), "built v2\n")  // tracked, ignored, changed
	os.Remove(filepath.Join(ws, "dist/old.js"))                // tracked, ignored, deleted
	writeT(t, filepath.Join(ws, "dist/new.js"), "untracked\n") // ignored, untracked
	home := t.TempDir()
	dir := worktreeDir(home, "20260101T000000-wt0002")
	base, err := createWorktree(ctx, home, ws, dir, "agent/task-y")
	if err != nil {
		t.Fatal(err)
	}
	if got := readT(t, filepath.Join(dir, "dist/app.js")); got != "built v2\n" {
		t.Fatalf("dist/app.js = %q, want the parent's present file", got)
	}
	if got := readT(t, filepath.Join(dir, "vendor.log")); got != "forced\n" {
		t.Fatalf("vendor.log = %q", got)
	}
	for _, f := range []string{"dist/old.js", "dist/new.js"} {
		if _, err := os.Lstat(filepath.Join(dir, f)); !os.IsNotExist(err) {
			t.Errorf("%s is in the worktree", f)
		}
	}
	if out := gitT(t, dir, "status", "--porcelain"); out != "" {
		t.Fatalf("git status in the fresh worktree:\n%s", out)
	}
	if out := gitT(t, ws, "diff", "--name-status", "HEAD", base); out != "M\tdist/app.js\nD\tdist/old.js\n" {
		t.Fatalf("the base against HEAD:\n%s", out)
	}
	gitT(t, ws, "fsck", "--no-progress")
	// the worker's changes: a left-out file it did not touch is no change
	// (not a deletion); one it changed is a modification, with its patch
	if files, diff, err := worktreeChanges(ctx, home, dir, base, true); err != nil || len(files) != 0 {
		t.Fatalf("a fresh worktree's changes: %v %v\n%s", files, err, diff)
	}
	writeT(t, filepath.Join(dir, "dist/app.js"), "built v3\n")
	files, diff, err := worktreeChanges(ctx, home, dir, base, true)
	if err != nil || len(files) != 1 || files[0] != (fileChange{Status: 'M', Path: "dist/app.js"}) || !strings.Contains(diff, "+built v3") {
		t.Fatalf("changes %v %v, diff:\n%s", files, err, diff)
	}
	applied, _, conflicts, err := applyWorktree(ctx, home, ws, dir, base)
	if err != nil || len(conflicts) != 0 || len(applied) != 1 || readT(t, filepath.Join(ws, "dist/app.js")) != "built v3\n" {
		t.Fatalf("apply: %v %v %v", applied, conflicts, err)
	}
}
