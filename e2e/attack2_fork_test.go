package e2e

// Attacks on forks (agent fork, runs rm of a fork) through the real binary:
// a prompt-injected model's commands in a fork's worktree, and what the
// person does later in that worktree.

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// A fork's worktree is a linked worktree: its .git is a file naming the
// administrative directory git reads. A sandboxed command of the fork
// rewrites that file to name a git directory it made in the worktree,
// whose config sets core.fsmonitor: the person's next `git status` or
// `git diff` in the fork's worktree (reviewing what the fork did) would run
// the planted command outside any sandbox.
func TestAttackForkGitFileRedirected(t *testing.T) {
	needSandbox(t)
	marker := filepath.Join(t.TempDir(), "fsmonitor-ran")
	redirect := "git init -q evil && git -C evil config core.fsmonitor 'touch " + marker + "; false' && " +
		`printf 'gitdir: %s/evil/.git\n' "$PWD" > .git; cat .git`
	e := &env{t: t, ws: abcRepo(t), home: filepath.Join(t.TempDir(), "state")}
	e.serve(script(
		turn("", edit("c1", "a.txt")), turn("", edit("c2", "b.txt")), turn("", edit("c3", "c.txt")), turn("orig done"),
		turn("", call("f1", "run_command", map[string]any{"command": redirect})), turn("fork done"),
	))
	_, cp := threeEdits(t, e)
	r := e.run("fork", cp, "--approval", "full-auto", "--message", "run a command")
	if r.code != 0 {
		t.Fatalf("agent fork: exit %d\n%s", r.code, r.stderr)
	}
	id := runID(t, r.stderr)
	wt := filepath.Join(e.home, "worktrees", id)
	dotgit := readFile(t, filepath.Join(wt, ".git"))
	// the person reviews the fork
	for _, args := range [][]string{{"status"}, {"diff"}} {
		c := exec.Command("git", args...)
		c.Dir = wt
		c.Run()
	}
	if _, err := os.Stat(marker); err == nil {
		t.Fatalf("a fork's command redirected its worktree's .git file (%q) and the person's git status ran its core.fsmonitor", strings.TrimSpace(dotgit))
	}
	if !strings.Contains(dotgit, filepath.Join(e.ws, ".git", "worktrees")) {
		t.Errorf("the fork's .git file was rewritten: %q", dotgit)
	}
	// runs rm still removes the fork's (clean but for evil/) worktree only
	// where it is its own: never anything outside it
	if r := e.run("runs", "rm", id); r.code != 0 && r.code != 1 {
		t.Errorf("runs rm: exit %d\n%s", r.code, r.stderr)
	}
	if got := filesOf(e.ws, "a.txt", "b.txt", "c.txt"); got != "a1 b1 c1" {
		t.Errorf("the original workspace changed: %s", got)
	}
}
