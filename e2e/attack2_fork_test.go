package e2e

// Attacks on forks (agent fork, runs rm of a fork) through the real binary:
// a prompt-injected model's commands in a fork's worktree, and what the
// person does later in that worktree.

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
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
	// and writes where a fork's command must not: the original workspace,
	// its git directory's hooks, the state directory around the worktree
	escape := "; for p in " + e.ws + "/planted.txt " + e.ws + "/.git/hooks/post-checkout ../planted.txt ../../planted.txt; do echo pwn > $p; done; true"
	e.serve(script(
		turn("", edit("c1", "a.txt")), turn("", edit("c2", "b.txt")), turn("", edit("c3", "c.txt")), turn("orig done"),
		turn("", call("f1", "run_command", map[string]any{"command": redirect + escape})), turn("fork done"),
	))
	_, cp := threeEdits(t, e)
	r := e.run("fork", cp, "--approval", "full-auto", "--message", "run a command")
	if r.code != 0 {
		t.Fatalf("agent fork: exit %d\n%s", r.code, r.stderr)
	}
	id := runID(t, r.stderr)
	wt := filepath.Join(e.home, "worktrees", id)
	for _, p := range []string{filepath.Join(e.ws, "planted.txt"), filepath.Join(e.ws, ".git", "hooks", "post-checkout"),
		filepath.Join(e.home, "worktrees", "planted.txt"), filepath.Join(e.home, "planted.txt")} {
		if _, err := os.Lstat(p); err == nil {
			t.Errorf("a fork's command wrote %s", p)
		}
	}
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

// The values of a workspace's .env files are secrets the redactor knows by
// value. A fork's worktree holds no .env (ignored files are not in its
// commit), but its commands can read the original workspace's: what they
// print of it must be redacted as in the original run, in the journal,
// in what the model is sent and in what a hook reads.
func TestAttackForkReadsOriginalDotenv(t *testing.T) {
	const pw = "plainpw-Zx81kqTT"
	ws := gitRepo(t, map[string]string{"a.txt": "a0\n", "b.txt": "b0\n", "c.txt": "c0\n", ".gitignore": ".env\n"})
	if err := os.WriteFile(filepath.Join(ws, ".env"), []byte("UPSTREAM_ID="+pw+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	e := &env{t: t, ws: ws, home: filepath.Join(t.TempDir(), "state")}
	e.serve(script(
		turn("", edit("c1", "a.txt")), turn("", edit("c2", "b.txt")), turn("", edit("c3", "c.txt")), turn("orig done"),
		turn("", call("f1", "run_command", map[string]any{"command": "cat " + filepath.Join(ws, ".env") + "; echo; cat ../../../.env 2>/dev/null; true"})),
		turn("fork done"),
	))
	_, cp := threeEdits(t, e)
	xdg, dump := t.TempDir(), filepath.Join(t.TempDir(), "hook.json")
	os.MkdirAll(filepath.Join(xdg, "agent"), 0o755)
	os.WriteFile(filepath.Join(xdg, "agent", "config.toml"), []byte("[[hooks]]\nevent = \"after_tool_call\"\ncommand = "+strconv.Quote("cat > "+dump)+"\n"), 0o644)
	r := e.runEnv([]string{"XDG_CONFIG_HOME=" + xdg}, "fork", cp, "--approval", "full-auto", "--message", "run a command")
	if r.code != 0 {
		t.Fatalf("agent fork: exit %d\n%s", r.code, r.stderr)
	}
	id := runID(t, r.stderr)
	if out := resultOf(e.trace(id), "f1").Output; !strings.Contains(out, "UPSTREAM_ID=") {
		t.Fatalf("the fork's command did not read the original .env: %q", out)
	}
	x := e.run("export", id)
	if strings.Contains(x.stdout, pw) {
		t.Error("the fork journaled a value of the original workspace's .env in plain text")
	}
	for i, req := range e.srv.Requests() {
		if strings.Contains(string(req.Body), pw) {
			t.Errorf("model request %d carries a value of the original workspace's .env", i)
		}
	}
	if b, _ := os.ReadFile(dump); strings.Contains(string(b), pw) {
		t.Error("a hook of the fork read a value of the original workspace's .env")
	}
	if strings.Contains(r.stderr+r.stdout, pw) {
		t.Error("the fork printed a value of the original workspace's .env")
	}
}

// What the repository holds shapes the fork's worktree, which lies in the
// state directory: a symlink to a directory outside (the person's), a
// nested repository whose config sets core.fsmonitor. The fork's checkout
// writes nothing through the symlink nor copies what it points at, and
// carries no .git of the nested repository into its worktree or into the
// commit on agent/fork-ID.
func TestAttackForkWorktreeFromHostileTree(t *testing.T) {
	outside := t.TempDir()
	if err := os.WriteFile(filepath.Join(outside, "private.txt"), []byte("mine\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	marker := filepath.Join(t.TempDir(), "fsmonitor-ran")
	ws := gitRepo(t, map[string]string{"a.txt": "a0\n", "b.txt": "b0\n", "c.txt": "c0\n"})
	if err := os.Symlink(outside, filepath.Join(ws, "link")); err != nil {
		t.Fatal(err)
	}
	gitOut(t, ws, "init", "-q", "nested")
	gitOut(t, ws, "-C", "nested", "config", "core.fsmonitor", "touch "+marker+"; false")
	os.WriteFile(filepath.Join(ws, "nested", "n.txt"), []byte("n\n"), 0o644)
	e := &env{t: t, ws: ws, home: filepath.Join(t.TempDir(), "state")}
	e.serve(script(turn("", edit("c1", "a.txt")), turn("", edit("c2", "b.txt")), turn("", edit("c3", "c.txt")), turn("orig done")))
	_, cp := threeEdits(t, e)
	r := e.run("fork", cp)
	if r.code != 0 {
		t.Fatalf("agent fork: exit %d\n%s", r.code, r.stderr)
	}
	id := runID(t, r.stderr)
	wt := filepath.Join(e.home, "worktrees", id)
	if st, err := os.Lstat(filepath.Join(wt, "link")); err == nil && st.Mode()&os.ModeSymlink == 0 {
		t.Errorf("the fork's worktree holds a copy of what the symlink points at (mode %v)", st.Mode())
	}
	ents, _ := os.ReadDir(outside)
	if len(ents) != 1 {
		t.Errorf("the fork's checkout wrote through a symlink: %d entries outside", len(ents))
	}
	if _, err := os.Lstat(filepath.Join(wt, "nested", ".git")); err == nil {
		t.Error("the fork's worktree holds the nested repository's .git")
	}
	if tree := gitOut(t, ws, "ls-tree", "-r", "--name-only", "agent/fork-"+id); strings.Contains(tree, ".git/") || strings.Contains(tree, "private.txt") {
		t.Errorf("the fork's commit holds what it must not:\n%s", tree)
	}
	for _, dir := range []string{wt, filepath.Join(wt, "nested")} {
		c := exec.Command("git", "status")
		c.Dir = dir
		c.Run()
	}
	if _, err := os.Stat(marker); err == nil {
		t.Error("git status in the fork's worktree ran the nested repository's core.fsmonitor")
	}
}

// A fork's --message is a person's prompt like agent run's: a user_prompt
// hook that blocks it blocks it before anything is made (no fork run whose
// listed prompt is the blocked text, no worktree, nothing sent), and the
// session_start hook hears of a fork that starts, as of any new run.
func TestAttackForkMessagePassesPromptHooks(t *testing.T) {
	e := &env{t: t, ws: abcRepo(t), home: filepath.Join(t.TempDir(), "state")}
	e.serve(script(
		turn("", edit("c1", "a.txt")), turn("", edit("c2", "b.txt")), turn("", edit("c3", "c.txt")), turn("orig done"),
		turn("fork done"),
	))
	parent, cp := threeEdits(t, e)
	xdg, dir := t.TempDir(), t.TempDir()
	os.MkdirAll(filepath.Join(xdg, "agent"), 0o755)
	block := filepath.Join(dir, "block.sh")
	os.WriteFile(block, []byte("#!/bin/bash\necho x >> "+filepath.Join(dir, "asked")+"\ngrep -q FORBIDDEN && { echo 'not that' >&2; exit 2; }; exit 0\n"), 0o755)
	starts := filepath.Join(dir, "starts")
	cfg := fmt.Sprintf("[[hooks]]\nevent = \"user_prompt\"\ncommand = %q\n\n[[hooks]]\nevent = \"session_start\"\ncommand = %q\n",
		block, "jq -r '.run_id + \" \" + .source' >> "+starts)
	os.WriteFile(filepath.Join(xdg, "agent", "config.toml"), []byte(cfg), 0o644)
	sent := len(e.srv.Requests())
	r := e.runEnv([]string{"XDG_CONFIG_HOME=" + xdg}, "fork", cp, "--approval", "full-auto", "--message", "do the FORBIDDEN thing")
	if r.code != 1 || !strings.Contains(r.stderr, "not that") {
		t.Fatalf("a blocked fork message: exit %d, want 1 with the hook's reason\n%s", r.code, r.stderr)
	}
	if n := len(e.srv.Requests()); n != sent {
		t.Errorf("%d requests sent for a blocked fork message", n-sent)
	}
	var runs []map[string]any
	e.mustJSON(&runs, "runs", "--json")
	for _, x := range runs {
		if strings.Contains(fmt.Sprint(x["prompt"]), "FORBIDDEN") || x["run_id"] != parent {
			t.Errorf("a blocked fork message left a run: %v", x)
		}
	}
	if ents, _ := os.ReadDir(filepath.Join(e.home, "worktrees")); len(ents) != 0 {
		t.Errorf("a blocked fork message left %d worktrees", len(ents))
	}
	r = e.runEnv([]string{"XDG_CONFIG_HOME=" + xdg}, "fork", cp, "--approval", "full-auto", "--message", "go on")
	if r.code != 0 {
		t.Fatalf("agent fork: exit %d\n%s", r.code, r.stderr)
	}
	if b, _ := os.ReadFile(starts); !strings.Contains(string(b), runID(t, r.stderr)+" new") {
		t.Errorf("the session_start hook did not hear of the fork: %q", b)
	}
	if n := strings.Count(readFile(t, filepath.Join(dir, "asked")), "x"); n != 2 {
		t.Errorf("the user_prompt hook was asked %d times about two fork messages", n)
	}
}

// runs rm of a fork whose worktree has uncommitted changes keeps it and
// names the files: a fork's command chose those names, escape sequences
// and all, and they reach the person's terminal only made visible.
func TestAttackForkDirtyNamesOnTerminal(t *testing.T) {
	e := &env{t: t, ws: abcRepo(t), home: filepath.Join(t.TempDir(), "state")}
	e.serve(script(
		turn("", edit("c1", "a.txt")), turn("", edit("c2", "b.txt")), turn("", edit("c3", "c.txt")), turn("orig done"),
		turn("", call("f1", "run_command", map[string]any{"command": `touch "$(printf 'x\033]0;pwned\007\033[2J.txt')"`})), turn("fork done"),
	))
	_, cp := threeEdits(t, e)
	r := e.run("fork", cp, "--approval", "full-auto", "--message", "make a file")
	if r.code != 0 {
		t.Fatalf("agent fork: exit %d\n%s", r.code, r.stderr)
	}
	id := runID(t, r.stderr)
	r = e.run("runs", "rm", id)
	if !strings.Contains(r.stderr, `x\x1b]0;pwned`) {
		t.Fatalf("runs rm of a dirty fork does not name its file, made visible (exit %d):\n%q", r.code, r.stderr)
	}
	if strings.ContainsAny(r.stdout+r.stderr, "\x1b\x07") {
		t.Errorf("a file name a fork's command chose reached the terminal raw: %q", r.stderr)
	}
	if _, err := os.Stat(filepath.Join(e.home, "worktrees", id)); err != nil {
		t.Errorf("the dirty worktree was removed: %v", err)
	}
}
