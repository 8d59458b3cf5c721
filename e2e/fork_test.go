package e2e

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"agent/internal/sandbox"
)

// gitOut runs the real git in dir, to see the fork's worktree as git does.
func gitOut(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %v in %s: %v\n%s", args, dir, err, out)
	}
	return string(out)
}

// filesOf reads the named files of dir ("-" for a missing one).
func filesOf(dir string, names ...string) string {
	var out []string
	for _, n := range names {
		b, err := os.ReadFile(filepath.Join(dir, n))
		if err != nil {
			out = append(out, "-")
			continue
		}
		out = append(out, strings.TrimSpace(string(b)))
	}
	return strings.Join(out, " ")
}

type treeRun struct {
	RunID            string   `json:"run_id"`
	Status           string   `json:"status"`
	ParentRun        string   `json:"parent_run"`
	ParentCheckpoint string   `json:"parent_checkpoint"`
	ParentCall       string   `json:"parent_call"`
	Workspace        string   `json:"workspace"`
	Children         []string `json:"children"`
}

func edit(id, file string) map[string]any {
	return call(id, "edit_file", map[string]any{"path": file, "old_string": file[:1] + "0", "new_string": file[:1] + "1"})
}

// threeEdits runs the three-edit run of a, b and c.txt and returns its id
// and the before-checkpoint of the second edit.
func threeEdits(t *testing.T, e *env) (string, string) {
	t.Helper()
	r := e.run("run", "--approval", "full-auto", "edit the three files")
	if r.code != 0 {
		t.Fatalf("the three-edit run: exit %d\n%s", r.code, r.stderr)
	}
	id := runID(t, r.stderr)
	var cps []checkpointRow
	e.mustJSON(&cps, "checkpoints", id, "--json")
	for _, c := range cps {
		if c.CallID == "c2" && c.Kind == "before" {
			return id, c.CheckpointID
		}
	}
	t.Fatalf("no before-checkpoint of c2 in %+v", cps)
	return "", ""
}

func abcRepo(t *testing.T) string {
	return gitRepo(t, map[string]string{"a.txt": "a0\n", "b.txt": "b0\n", "c.txt": "c0\n"})
}

// A fork from the checkpoint before the second of three edits, through the
// real binary: its own worktree on agent/fork-ID with the files of that
// instant, the original untouched, the pending call not run, the fork's
// --message last in its first request, lineage in its first event, in
// runs --tree and in the audit log; the fork outlives its parent (resume,
// rollback); runs rm of the fork keeps a worktree with uncommitted changes.
func TestForkWorktreeLineageAndParentDeleted(t *testing.T) {
	e := &env{t: t, ws: abcRepo(t), home: filepath.Join(t.TempDir(), "state")}
	e.serve(script(
		turn("", edit("c1", "a.txt")), turn("", edit("c2", "b.txt")), turn("", edit("c3", "c.txt")), turn("orig done"),
		// the fork
		turn("", call("f1", "write_file", map[string]any{"path": "d.txt", "content": "forked\n"})), turn("fork done"),
		// the fork again, after its parent is deleted
		turn("still here"),
	))
	orig, cp := threeEdits(t, e)
	statusBefore := gitOut(t, e.ws, "status", "--porcelain")
	r := e.runEnv([]string{"AGENT_APPROVAL=full-auto"}, "fork", cp, "--message", "FORK: write d.txt instead")
	if r.code != 0 {
		t.Fatalf("agent fork: exit %d\n%s", r.code, r.stderr)
	}
	fid := runID(t, r.stderr)
	if fid == orig {
		t.Fatal("the fork has its parent's id")
	}
	if strings.TrimSpace(r.stdout) != "fork done" {
		t.Errorf("the fork's answer on stdout is %q", r.stdout)
	}
	var wt string
	for _, l := range strings.Split(r.stderr, "\n") {
		if p, ok := strings.CutPrefix(l, "worktree: "); ok {
			wt, _, _ = strings.Cut(p, " (branch")
		}
	}
	if !filepath.IsAbs(wt) {
		t.Fatalf("no absolute worktree path on stderr:\n%s", r.stderr)
	}
	if got := filesOf(wt, "a.txt", "b.txt", "c.txt", "d.txt"); got != "a1 b0 c0 forked" {
		t.Errorf("the fork's worktree holds %q, want a1 b0 c0 forked", got)
	}
	if got := filesOf(e.ws, "a.txt", "b.txt", "c.txt", "d.txt"); got != "a1 b1 c1 -" {
		t.Errorf("the original workspace holds %q after the fork, want a1 b1 c1 -", got)
	}
	if got := gitOut(t, e.ws, "status", "--porcelain"); got != statusBefore {
		t.Errorf("git status of the workspace changed: %q -> %q", statusBefore, got)
	}
	if got := strings.TrimSpace(gitOut(t, wt, "rev-parse", "--abbrev-ref", "HEAD")); got != "agent/fork-"+fid {
		t.Errorf("the worktree is on %q", got)
	}
	if got := gitOut(t, e.ws, "worktree", "list", "--porcelain"); !strings.Contains(got, "worktree "+wt+"\n") {
		t.Errorf("git worktree list does not list %s:\n%s", wt, got)
	}
	// only what the fork did is uncommitted in its worktree
	if got := gitOut(t, wt, "status", "--porcelain"); got != "?? d.txt\n" {
		t.Errorf("git status in the worktree = %q, want only the fork's d.txt", got)
	}

	// the fork's first request: the conversation up to c1's result, not c2, then the message
	reqs := e.srv.Requests()
	if len(reqs) != 6 {
		t.Fatalf("%d requests, want 4 of the original and 2 of the fork", len(reqs))
	}
	body := string(reqs[4].Body)
	if !strings.Contains(body, `"c1"`) || strings.Contains(body, `"c2"`) || !strings.Contains(body, "edit the three files") {
		t.Errorf("the fork's first request does not hold the conversation at the checkpoint (c1 and not c2):\n%.2000s", body)
	}
	var req struct {
		Messages []struct {
			Role    string `json:"role"`
			Content any    `json:"content"`
		} `json:"messages"`
	}
	if err := json.Unmarshal(reqs[4].Body, &req); err != nil {
		t.Fatal(err)
	}
	var lastUser string
	for _, m := range req.Messages {
		if m.Role == "user" {
			b, _ := json.Marshal(m.Content)
			lastUser = string(b)
		}
	}
	if !strings.Contains(lastUser, "FORK: write d.txt instead") {
		t.Errorf("the fork's --message is not its last user message: %s", lastUser)
	}

	// lineage: the first event, the audit log, runs --tree --json
	tr := e.trace(fid)
	var first map[string]any
	e2 := e.run("export", fid)
	if err := json.Unmarshal([]byte(strings.SplitN(e2.stdout, "\n", 2)[0]), &first); err != nil {
		t.Fatalf("export: %v\n%s", err, e2.stdout)
	}
	if first["type"] != "run_started" || first["parent_run"] != orig || first["parent_checkpoint"] != cp {
		t.Errorf("the fork's first event = %v", first)
	}
	for _, ev := range tr {
		if ev.CallID == "c2" || ev.CallID == "c3" {
			t.Errorf("the fork's journal has a %s of %s, a call after its checkpoint", ev.Type, ev.CallID)
		}
	}
	var audit []struct {
		RunID, Action, Detail string
	}
	e.mustJSON(&audit, "audit", "--run", fid, "--json")
	found := false
	for _, a := range audit {
		if a.Action == "fork" && strings.Contains(a.Detail, orig) && strings.Contains(a.Detail, cp) {
			found = true
		}
	}
	if !found {
		t.Errorf("no audit row (action fork) names the parent and checkpoint: %+v", audit)
	}
	var runs []treeRun
	e.mustJSON(&runs, "runs", "--tree", "--json")
	byID := map[string]treeRun{}
	for _, r := range runs {
		byID[r.RunID] = r
	}
	if f := byID[fid]; f.ParentRun != orig || f.ParentCheckpoint != cp {
		t.Errorf("runs --tree --json: the fork is %+v", f)
	}
	if o := byID[orig]; len(o.Children) != 1 || o.Children[0] != fid {
		t.Errorf("runs --tree --json: the original's children are %v", o.Children)
	}
	text := e.run("runs", "--tree")
	if !strings.Contains(text.stdout, "└ "+fid) || !strings.Contains(text.stdout, "fork @") {
		t.Errorf("runs --tree does not show the fork under its parent:\n%s", text.stdout)
	}

	// the parent goes; the fork keeps resuming and rolling back
	if r := e.run("runs", "rm", orig); r.code != 0 {
		t.Fatalf("runs rm of the parent: exit %d\n%s", r.code, r.stderr)
	}
	if r := e.run("resume", fid, "--headless", "--message", "anything left?"); r.code != 0 || strings.TrimSpace(r.stdout) != "still here" {
		t.Fatalf("the fork's resume after its parent was deleted: exit %d %q\n%s", r.code, r.stdout, r.stderr)
	}
	var fcps []checkpointRow
	e.mustJSON(&fcps, "checkpoints", fid, "--json")
	if len(fcps) == 0 || fcps[0].CallID != "f1" || fcps[0].Kind != "before" {
		t.Fatalf("the fork's checkpoints: %+v", fcps)
	}
	if r := e.run("rollback", fcps[0].CheckpointID); r.code != 0 {
		t.Fatalf("rolling the fork back after its parent was deleted: exit %d\n%s", r.code, r.stderr)
	}
	if got := filesOf(wt, "a.txt", "b.txt", "c.txt", "d.txt"); got != "a1 b0 c0 -" {
		t.Errorf("after the fork's rollback its worktree holds %q, want a1 b0 c0 -", got)
	}
	if got := filesOf(e.ws, "a.txt", "b.txt", "c.txt", "d.txt"); got != "a1 b1 c1 -" {
		t.Errorf("the fork's rollback touched the original workspace: %q", got)
	}
	var after []treeRun
	e.mustJSON(&after, "runs", "--tree", "--json")
	if len(after) != 1 || after[0].RunID != fid || after[0].ParentRun != orig {
		t.Errorf("runs --tree --json after the parent's deletion: %+v", after)
	}

	// a change the person made in the worktree keeps it through runs rm
	if err := os.WriteFile(filepath.Join(wt, "mine.txt"), []byte("mine\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r = e.run("runs", "rm", fid)
	if r.code != 0 {
		t.Fatalf("runs rm of the fork: exit %d\n%s", r.code, r.stderr)
	}
	if !strings.Contains(r.stderr, "uncommitted changes") || !strings.Contains(r.stderr, "mine.txt") {
		t.Errorf("runs rm of a fork with uncommitted changes does not say it kept the worktree:\n%s", r.stderr)
	}
	if got := filesOf(wt, "mine.txt"); got != "mine" {
		t.Errorf("runs rm removed a worktree with uncommitted changes")
	}
}

// runs rm of a fork whose worktree holds nothing uncommitted removes it, and
// its branch: git no longer lists it. A workspace that is no git repository
// can only be forked --here.
func TestForkCleanWorktreeRemoved(t *testing.T) {
	e := &env{t: t, ws: abcRepo(t), home: filepath.Join(t.TempDir(), "state")}
	e.serve(script(turn("", edit("c1", "a.txt")), turn("", edit("c2", "b.txt")), turn("", edit("c3", "c.txt")), turn("orig done"),
		turn("went on from the checkpoint")))
	_, cp := threeEdits(t, e)
	r := e.run("fork", cp) // no message: made, not driven
	if r.code != 0 {
		t.Fatalf("agent fork: exit %d\n%s", r.code, r.stderr)
	}
	fid := runID(t, r.stderr)
	if !strings.Contains(r.stderr, "agent resume "+fid) {
		t.Errorf("a fork without --message does not say how to continue it:\n%s", r.stderr)
	}
	wt := filepath.Join(e.home, "worktrees", fid)
	if got := filesOf(wt, "a.txt", "b.txt", "c.txt"); got != "a1 b0 c0" {
		t.Fatalf("the fork's worktree holds %q", got)
	}
	if n := len(e.srv.Requests()); n != 4 {
		t.Fatalf("a fork without --message asked the model (%d requests)", n)
	}
	// an unfinished fork continues headless from its checkpoint
	if r := e.run("resume", fid, "--headless"); r.code != 0 || strings.TrimSpace(r.stdout) != "went on from the checkpoint" {
		t.Fatalf("resume of the fork: exit %d %q\n%s", r.code, r.stdout, r.stderr)
	}
	if body := string(e.srv.Requests()[4].Body); !strings.Contains(body, `"c1"`) || strings.Contains(body, `"c2"`) {
		t.Errorf("the resumed fork's request is not the conversation at the checkpoint:\n%.1500s", body)
	}
	if r := e.run("runs", "rm", fid); r.code != 0 || strings.Contains(r.stderr, "kept") {
		t.Fatalf("runs rm of the clean fork: exit %d\n%s", r.code, r.stderr)
	}
	if _, err := os.Stat(wt); !os.IsNotExist(err) {
		t.Errorf("the fork's worktree is still there: %v", err)
	}
	if got := gitOut(t, e.ws, "worktree", "list", "--porcelain"); strings.Contains(got, fid) {
		t.Errorf("git still lists the fork's worktree:\n%s", got)
	}
	if got := gitOut(t, e.ws, "branch", "--list", "agent/fork-"+fid); got != "" {
		t.Errorf("the fork's untouched branch was kept: %q", got)
	}
}

// --here forks into the same workspace: its present state is checkpointed
// first, and rolling back to that checkpoint undoes the fork.
func TestForkHereUndo(t *testing.T) {
	e := &env{t: t, ws: abcRepo(t), home: filepath.Join(t.TempDir(), "state")}
	e.serve(script(
		turn("", edit("c1", "a.txt")), turn("", edit("c2", "b.txt")), turn("", edit("c3", "c.txt")), turn("orig done"),
		turn("", call("f1", "write_file", map[string]any{"path": "d.txt", "content": "forked\n"})), turn("fork done"),
	))
	orig, cp := threeEdits(t, e)
	r := e.run("fork", cp, "--here", "--approval", "full-auto", "--message", "write d.txt instead")
	if r.code != 0 {
		t.Fatalf("agent fork --here: exit %d\n%s", r.code, r.stderr)
	}
	fid := runID(t, r.stderr)
	if got := filesOf(e.ws, "a.txt", "b.txt", "c.txt", "d.txt"); got != "a1 b0 c0 forked" {
		t.Errorf("after fork --here the workspace holds %q, want a1 b0 c0 forked", got)
	}
	if _, err := os.Stat(filepath.Join(e.home, "worktrees", fid)); err == nil {
		t.Error("fork --here made a worktree")
	}
	_, rest, ok := strings.Cut(r.stderr, "undo with: agent rollback ")
	pre, _, _ := strings.Cut(rest, "\n")
	if !ok || pre == "" {
		t.Fatalf("fork --here does not say how to undo it:\n%s", r.stderr)
	}
	if r := e.run("rollback", pre); r.code != 0 {
		t.Fatalf("undoing the fork: exit %d\n%s", r.code, r.stderr)
	}
	if got := filesOf(e.ws, "a.txt", "b.txt", "c.txt", "d.txt"); got != "a1 b1 c1 -" {
		t.Errorf("after undoing fork --here the workspace holds %q, want a1 b1 c1 -", got)
	}
	// both runs stay resumable
	for _, id := range []string{orig, fid} {
		if r := e.run("resume", id, "--headless"); r.code != 0 {
			t.Errorf("resume %s: exit %d\n%s", id, r.code, r.stderr)
		}
	}

	// a workspace that is no git repository: a worktree fork is refused, naming --here
	plain := t.TempDir()
	if err := os.WriteFile(filepath.Join(plain, "x.txt"), []byte("x0\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	e2 := &env{t: t, ws: plain, home: e.home}
	e2.serve(script(turn("", call("p1", "edit_file", map[string]any{"path": "x.txt", "old_string": "x0", "new_string": "x1"})), turn("ok")))
	r = e2.run("run", "--approval", "full-auto", "edit x")
	if r.code != 0 {
		t.Fatalf("run in a plain directory: exit %d\n%s", r.code, r.stderr)
	}
	var cps []checkpointRow
	e2.mustJSON(&cps, "checkpoints", runID(t, r.stderr), "--json")
	r = e2.run("fork", cps[0].CheckpointID)
	if r.code != 2 || !strings.Contains(r.stderr, "--here") {
		t.Errorf("a fork of a workspace without git: exit %d, want 2 naming --here\n%s", r.code, r.stderr)
	}
	if entries, _ := os.ReadDir(filepath.Join(e.home, "worktrees")); len(entries) != 0 {
		t.Errorf("a refused fork left %d worktrees", len(entries))
	}
}

// A fork's commands run in its worktree under the sandbox like any run's:
// they write there, and cannot read the state directory the worktree lies in.
func TestForkCommandsInWorktree(t *testing.T) {
	e := &env{t: t, ws: abcRepo(t), home: filepath.Join(t.TempDir(), "state")}
	e.serve(script(
		turn("", edit("c1", "a.txt")), turn("", edit("c2", "b.txt")), turn("", edit("c3", "c.txt")), turn("orig done"),
		turn("", call("f1", "run_command", map[string]any{"command": "echo ran > e.txt; cat ../../agent.db > leak.bin; " +
			`for d in ../*/; do [ "$d" = "../$(basename "$PWD")/" ] || cat "$d/b.txt"; done > sibling.txt`})), turn("fork done"),
	))
	_, cp := threeEdits(t, e)
	if r := e.run("fork", cp); r.code != 0 { // a sibling worktree the next fork's command must not read
		t.Fatalf("agent fork: exit %d\n%s", r.code, r.stderr)
	}
	r := e.run("fork", cp, "--approval", "full-auto", "--message", "run a command")
	if r.code != 0 {
		t.Fatalf("agent fork: exit %d\n%s", r.code, r.stderr)
	}
	wt := filepath.Join(e.home, "worktrees", runID(t, r.stderr))
	if got := filesOf(wt, "e.txt"); got != "ran" {
		t.Fatalf("the fork's command did not write in its worktree: e.txt = %q\n%s", got, r.stderr)
	}
	if _, err := os.Stat(filepath.Join(e.ws, "e.txt")); err == nil {
		t.Error("the fork's command wrote into the original workspace")
	}
	if sandbox.Detect().LandlockABI == 0 {
		return // not enforced here: TestSandbox* say so
	}
	if b, _ := os.ReadFile(filepath.Join(wt, "leak.bin")); len(b) > 0 {
		t.Errorf("the fork's sandboxed command read the journal of the state directory its worktree lies in (%d bytes)", len(b))
	}
	if got := filesOf(wt, "sibling.txt"); got != "" {
		t.Errorf("the fork's sandboxed command read another fork's worktree in the state directory: %q", got)
	}
}
