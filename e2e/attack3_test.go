package e2e

import (
	"bufio"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// fsckShadow runs git fsck --strict on every shadow repository of e.
func (e *env) fsckShadow(t *testing.T, when string) {
	t.Helper()
	repos, _ := filepath.Glob(filepath.Join(e.home, "checkpoints", "*.git"))
	if len(repos) == 0 {
		t.Fatalf("%s: no shadow repository", when)
	}
	for _, repo := range repos {
		cmd := exec.Command("git", "--git-dir="+repo, "fsck", "--strict", "--no-dangling")
		cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "HOME="+t.TempDir())
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("%s: git fsck: %v\n%s", when, err, out)
		}
	}
}

// A command of builtins runs in-process, journaled as started with no
// process. SIGKILL the agent as soon as that start is journaled, then
// resume: the command is never run a second time (its line is in log.txt
// at most once), the call is reported as of unknown outcome, and the
// shadow repository passes git fsck both after the kill (the dead
// process's object log not yet folded) and after the resume folded it.
func TestBuiltinCommandNeverRunsTwiceAfterSIGKILL(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	e := newEnv(t, script(
		turn("", call("w1", "write_file", map[string]any{"path": "a.txt", "content": "a\n"})),
		turn("", call("c1", "run_command", map[string]any{"command": "echo once >> log.txt"})),
		turn("done"),
	))
	e.killAfterEvent(t, "command_started", "run", "--json", "--approval", "full-auto", "go")
	ids := e.runIDs()
	if len(ids) != 1 {
		t.Fatalf("runs: %v", ids)
	}
	id := ids[0]
	var evs []map[string]any
	e.mustJSON(&evs, "trace", id, "--json")
	inProcess := false
	for _, ev := range evs {
		if ev["type"] == "command_started" && ev["call_id"] == "c1" {
			t.Logf("command_started: %v", ev)
			inProcess = ev["pid"] == float64(0) && ev["pgid"] == float64(0)
		}
	}
	if !inProcess {
		t.Fatal("c1 was not journaled as started in-process (pid 0): the test does not test the in-process path")
	}
	e.fsckShadow(t, "after SIGKILL")
	e.serve(script(turn("done after resume")))
	r := e.run("resume", id, "--headless")
	if r.code != 0 {
		t.Fatalf("resume: exit %d\n%s", r.code, r.stderr)
	}
	b, _ := os.ReadFile(filepath.Join(e.ws, "log.txt"))
	if n := strings.Count(string(b), "once"); n > 1 {
		t.Fatalf("log.txt = %q: the in-process command ran %d times", b, n)
	}
	if res := resultOf(e.trace(id), "c1"); res.Status != "interrupted" {
		t.Errorf("c1 result %+v; want interrupted (outcome unknown)", res)
	}
	e.fsckShadow(t, "after resume")
	if logs, _ := filepath.Glob(filepath.Join(e.home, "checkpoints", "*.git", "agent", "objlog-*")); len(logs) > 0 {
		t.Errorf("object logs left after the resume ended: %v", logs)
	}
}

// startLiveA starts agent run "A" (--json, outside the sandbox) in e's
// workspace and returns it with a scanner of its events; the test's end
// kills it if it is still running.
func startLiveA(t *testing.T, e *env) (*exec.Cmd, *bufio.Scanner) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	a := exec.CommandContext(ctx, agentBin, "run", "--json", "--approval", "full-auto", "--sandbox", "off", "A")
	a.Env = e.environ()
	a.Dir = e.ws
	out, err := a.StdoutPipe()
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	if err := a.Start(); err != nil {
		cancel()
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = a.Process.Kill(); _ = a.Wait(); cancel() })
	sc := bufio.NewScanner(out)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	return a, sc
}

// Two agent processes in one workspace: A takes its checkpoints and then
// waits in a command, its objects only in its live object log; B runs in
// the same workspace meanwhile (its snapshots reuse A's trees and blobs)
// and ends, folding its log into a pack and refs. git fsck on the shadow
// repository must pass while A is still live, and after A ends.
func TestShadowRepositoryWholeWhileAnotherProcessIsLive(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	e := newEnv(t, script(
		turn("", call("w1", "write_file", map[string]any{"path": "a.txt", "content": "from A\n"})),
		turn("", call("c1", "run_command", map[string]any{"command": "until [ -e release ]; do sleep 0.05; done"})),
		turn("A done"),
	))
	a, sc := startLiveA(t, e)
	started := false
	for !started && sc.Scan() {
		var ev traceEvent
		started = json.Unmarshal(sc.Bytes(), &ev) == nil && ev.Type == "command_started"
	}
	if !started {
		t.Fatal("A never started its command")
	}
	go func() {
		for sc.Scan() {
		}
	}()
	e.serve(script(
		turn("", call("w1", "write_file", map[string]any{"path": "b.txt", "content": "from B\n"})),
		turn("B done"),
	))
	if r := e.run("run", "--approval", "full-auto", "B"); r.code != 0 {
		t.Fatalf("B: exit %d\n%s", r.code, r.stderr)
	}
	e.fsckShadow(t, "B ended, A live")
	if err := os.WriteFile(filepath.Join(e.ws, "release"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := a.Wait(); err != nil {
		t.Fatalf("A: %v", err)
	}
	e.fsckShadow(t, "both ended")
}

// A command of builtins run in-process prints what it echoes through the
// same path as bash's output: terminal control sequences in it (a title
// change, an OSC 52 clipboard write) never reach the person's terminal
// raw, whichever way the command ran.
func TestBuiltinEchoEscapesDoNotReachTerminal(t *testing.T) {
	esc := "\x1b]52;c;cHduZWQ=\x07\x1b]0;PWNED\x07"
	e := newEnv(t, script(
		turn("", call("c1", "run_command", map[string]any{"command": "echo '" + esc + "'"})),
		turn("", call("c2", "run_command", map[string]any{"command": "printf '%s\\n' '" + esc + "'"})),
		turn("done"),
	))
	r := e.run("run", "--approval", "full-auto", "print escapes")
	if r.code != 0 {
		t.Fatalf("run: exit %d\n%s", r.code, r.stderr)
	}
	for name, out := range map[string]string{"stdout": r.stdout, "stderr": r.stderr} {
		if strings.Contains(out, "\x1b]") || strings.Contains(out, "\x07") {
			t.Errorf("%s carries a raw control sequence: %q", name, out)
		}
	}
}

// With BASH_ENV naming a file that sets noclobber (set -C), bash refuses
// "echo x > existing"; the agent must not overwrite the file in-process
// where its bash would have refused (bash runs such commands).
func TestBuiltinHonoursBashEnvNoclobber(t *testing.T) {
	benv := filepath.Join(t.TempDir(), "bash_env")
	if err := os.WriteFile(benv, []byte("set -C\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	e := newEnv(t, script(
		turn("", call("c1", "run_command", map[string]any{"command": "echo clobbered > README.md"})),
		turn("done"),
	))
	r := e.runEnv([]string{"BASH_ENV=" + benv}, "run", "--approval", "full-auto", "--sandbox", "off", "clobber")
	if r.code != 0 {
		t.Fatalf("run: exit %d\n%s", r.code, r.stderr)
	}
	if got := readFile(t, filepath.Join(e.ws, "README.md")); got != "# demo\n" {
		t.Fatalf("README.md = %q: overwritten although the person's bash (set -C) refuses it", got)
	}
}

// agent fork (--here: refused, the run is live; into a worktree) from a second process, to a
// checkpoint whose objects exist only in a live process's object log: they
// read it there, and the shadow repository stays whole (git fsck) while
// that process is live and after it ends.
func TestForkFromALiveProcessLog(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	e := newEnv(t, script(
		turn("", call("w1", "write_file", map[string]any{"path": "a.txt", "content": "A1\n"})),
		turn("", call("w2", "write_file", map[string]any{"path": "a.txt", "content": "A2\n"})),
		turn("", call("c1", "run_command", map[string]any{"command": "until [ -e release ]; do sleep 0.05; done"})),
		turn("A done"),
	))
	a, sc := startLiveA(t, e)
	cp := ""
	for sc.Scan() {
		var ev map[string]any
		if json.Unmarshal(sc.Bytes(), &ev) != nil {
			continue
		}
		if ev["type"] == "checkpoint" && ev["call_id"] == "w1" && ev["kind"] == "after" {
			cp, _ = ev["checkpoint_id"].(string)
		}
		if ev["type"] == "command_started" {
			break
		}
	}
	if cp == "" {
		t.Fatal("no after-checkpoint of w1 seen")
	}
	go func() {
		for sc.Scan() {
		}
	}()
	r := e.run("fork", cp, "--here")
	if r.code == 0 {
		if got := readFile(t, filepath.Join(e.ws, "a.txt")); got != "A1\n" {
			t.Errorf("after fork --here a.txt = %q, want A1", got)
		}
	} else if !strings.Contains(r.stderr, "stop it before forking it here") {
		t.Errorf("fork --here refused without saying why:\n%s", r.stderr)
	} else if strings.Contains(r.stderr, "run: ") {
		t.Errorf("a refused fork --here still named (and journaled) a fork run:\n%s", r.stderr)
	}
	// into a worktree: the checkpoint's files come from A's live log
	r = e.run("fork", cp)
	if r.code != 0 {
		t.Fatalf("fork into a worktree: exit %d\n%s", r.code, r.stderr)
	}
	fid := runID(t, r.stderr)
	if got := readFile(t, filepath.Join(e.home, "worktrees", fid, "a.txt")); got != "A1\n" {
		t.Errorf("the fork's worktree a.txt = %q, want A1", got)
	}
	e.fsckShadow(t, "forks done, A live")
	if err := os.WriteFile(filepath.Join(e.ws, "release"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := a.Wait(); err != nil {
		t.Fatalf("A: %v", err)
	}
	e.fsckShadow(t, "both ended")
}

// However a run ends — completed, paused by its budget, interrupted by
// SIGINT in a command — the process folds its object log on the way out:
// no log is left, and git fsck passes on the shadow repository.
func TestShadowRepositoryWholeAfterEveryEnd(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	noLogs := func(e *env, when string) {
		t.Helper()
		e.fsckShadow(t, when)
		if logs, _ := filepath.Glob(filepath.Join(e.home, "checkpoints", "*.git", "agent", "objlog-*")); len(logs) > 0 {
			t.Errorf("%s: object logs left: %v", when, logs)
		}
	}
	// completed
	e := newEnv(t, budgetScript(3, 100, 100, "c"))
	if r := e.run("run", "--approval", "full-auto", "go"); r.code != 0 {
		t.Fatalf("run: exit %d\n%s", r.code, r.stderr)
	}
	noLogs(e, "completed")
	// budget pause
	e = newEnv(t, budgetScript(3, 150000, 50000, "k"))
	if r := e.run("run", "--model", "gpt-4.1", "--approval", "full-auto", "--budget-tokens", "400000", "go"); r.code == 0 {
		t.Fatalf("run: exit 0, want a budget pause\n%s", r.stderr)
	}
	noLogs(e, "budget pause")
	// SIGINT in a command
	fifo := filepath.Join(t.TempDir(), "gate")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	e = newEnv(t, script(
		turn("", call("w1", "write_file", map[string]any{"path": "a.txt", "content": "a\n"})),
		turn("", call("c1", "run_command", map[string]any{"command": "cat " + fifo})),
		turn("interrupted"),
	))
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, agentBin, "run", "--approval", "full-auto", "--sandbox", "off", "wait")
	cmd.Env = e.environ()
	cmd.Dir = e.ws
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	f, err := os.OpenFile(fifo, os.O_WRONLY, 0) // returns once the command reads it
	if err != nil {
		t.Fatal(err)
	}
	_ = cmd.Process.Signal(syscall.SIGINT)
	_ = cmd.Wait()
	f.Close()
	if code := cmd.ProcessState.ExitCode(); code != 130 {
		t.Fatalf("exit %d, want 130", code)
	}
	noLogs(e, "interrupted")
}
