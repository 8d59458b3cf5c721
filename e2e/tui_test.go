package e2e

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"
)

// tmuxTerm drives the real binary in a real terminal: tmux, send-keys,
// capture-pane.
type tmuxTerm struct {
	t    *testing.T
	sock string
}

func newTmux(t *testing.T) *tmuxTerm {
	t.Helper()
	if _, err := exec.LookPath("tmux"); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("tmux is not installed; .ci/run installs it")
		}
		t.Skip("tmux not installed")
	}
	// A short socket path: tmux refuses long ones.
	dir, err := os.MkdirTemp("", "tmx")
	if err != nil {
		t.Fatal(err)
	}
	tm := &tmuxTerm{t: t, sock: filepath.Join(dir, "s")}
	t.Cleanup(func() {
		exec.Command("tmux", "-S", tm.sock, "kill-server").Run()
		os.RemoveAll(dir)
	})
	return tm
}

func (tm *tmuxTerm) tmux(args ...string) string {
	tm.t.Helper()
	out, err := exec.Command("tmux", append([]string{"-S", tm.sock}, args...)...).CombinedOutput()
	if err != nil {
		tm.t.Fatalf("tmux %v: %v\n%s", args, err, out)
	}
	return string(out)
}

// start runs a shell command line (sh -c) in a detached session of cols x
// rows, with exactly env.
func (tm *tmuxTerm) start(cols, rows int, env []string, dir, cmdline string) {
	tm.t.Helper()
	var b strings.Builder
	fmt.Fprintf(&b, "cd %q && exec env -i", dir)
	for _, kv := range env {
		fmt.Fprintf(&b, " %q", kv)
	}
	fmt.Fprintf(&b, " TERM=xterm-256color sh -c %q", cmdline)
	tm.tmux("new-session", "-d", "-s", "t", "-x", fmt.Sprint(cols), "-y", fmt.Sprint(rows), b.String())
}

func (tm *tmuxTerm) screen() string {
	out, _ := exec.Command("tmux", "-S", tm.sock, "capture-pane", "-p", "-t", "t").CombinedOutput()
	return string(out)
}

// wait polls the screen until it matches re, or fails with what it shows.
func (tm *tmuxTerm) wait(re string, d time.Duration) string {
	tm.t.Helper()
	rx := regexp.MustCompile(re)
	deadline := time.Now().Add(d)
	for {
		s := tm.screen()
		if rx.MatchString(s) {
			return s
		}
		if time.Now().After(deadline) {
			tm.t.Fatalf("the screen never showed %q; it shows:\n%s", re, s)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// waitGone polls until the screen no longer matches re.
func (tm *tmuxTerm) waitGone(re string, d time.Duration) {
	tm.t.Helper()
	rx := regexp.MustCompile(re)
	deadline := time.Now().Add(d)
	for rx.MatchString(tm.screen()) {
		if time.Now().After(deadline) {
			tm.t.Fatalf("the screen still shows %q:\n%s", re, tm.screen())
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func (tm *tmuxTerm) keys(k ...string) { tm.tmux(append([]string{"send-keys", "-t", "t"}, k...)...) }
func (tm *tmuxTerm) typeText(s string) {
	tm.tmux("send-keys", "-t", "t", "-l", "--", s)
}
func (tm *tmuxTerm) pid() int {
	var pid int
	fmt.Sscan(strings.TrimSpace(tm.tmux("list-panes", "-t", "t", "-F", "#{pane_pid}")), &pid)
	return pid
}

// waitFile polls for a file's content to match.
func waitFile(t *testing.T, p string, ok func(string) bool, d time.Duration) string {
	t.Helper()
	deadline := time.Now().Add(d)
	for {
		b, _ := os.ReadFile(p)
		if ok(string(b)) {
			return string(b)
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s never became as expected; it holds %q", p, b)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// A person drives the TUI in a real terminal: types a request, sees the
// answer stream, approves an edit (the file changes), denies a command
// with a note (the model gets it, the command never runs), opens the
// context drawer, rolls the edit back and undoes that, quits with ctrl+c twice and is told how to resume; a
// crash mid-command and `agent resume` on a terminal show the transcript
// and that the command is not re-run.
func TestTUIInTmux(t *testing.T) {
	tm := newTmux(t)
	e := newEnv(t, script(
		turn("I will **change the greeting** first.", call("c1", "edit_file", map[string]any{"path": "main.go", "old_string": `"Hello"`, "new_string": `"Hello, tui"`})),
		turn("Now the tests.", call("c2", "run_command", map[string]any{"command": "echo ran >> cmd.log; go vet ./..."})),
		turn("All set: the greeting now says Hello, tui."),
	))
	env := append(e.environ(), "AGENT_APPROVAL=ask", "AGENT_MODEL=test-model")
	tm.start(120, 40, env, e.ws, agentBin+"; echo AGENT-EXITED-$?; sleep 60")
	tm.wait(`Ask, or /`, 15*time.Second)
	tm.typeText("Please change the greeting")
	tm.keys("Enter")
	tm.wait(`Hello, tui`, 15*time.Second)
	s := tm.wait(`1/y\s+allow once`, 5*time.Second)
	if !strings.Contains(s, "change the greeting") {
		t.Errorf("the streamed text is not on screen:\n%s", s)
	}
	time.Sleep(350 * time.Millisecond) // past the prompt's key guard, as a person would be
	tm.keys("1")
	waitFile(t, filepath.Join(e.ws, "main.go"), func(s string) bool { return strings.Contains(s, `"Hello, tui"`) }, 15*time.Second)
	tm.wait(`\$ echo ran`, 15*time.Second)
	time.Sleep(350 * time.Millisecond)
	tm.keys("Tab")
	tm.wait(`enter sends the note`, 5*time.Second)
	tm.typeText("use make vet instead")
	tm.keys("Enter")
	tm.wait(`All set`, 15*time.Second)
	if _, err := os.Stat(filepath.Join(e.ws, "cmd.log")); err == nil {
		t.Error("the denied command ran")
	}
	found := false
	for _, r := range e.srv.Requests() {
		found = found || strings.Contains(string(r.Body), "use make vet instead")
	}
	if !found {
		t.Error("the denial's note never reached the model")
	}
	tm.typeText("/context")
	tm.keys("Enter")
	tm.wait(`Context · last model request`, 5*time.Second)
	tm.wait(`(?i)system|tools`, 5*time.Second)
	tm.keys("Escape")
	tm.waitGone(`Context · last model request`, 5*time.Second)

	// Roll the edit back from the checkpoint drawer, then undo that.
	mainGo := filepath.Join(e.ws, "main.go")
	tm.typeText("/checkpoints")
	tm.keys("Enter")
	tm.wait(`› step 1 · before edit_file`, 5*time.Second)
	tm.keys("c")
	tm.wait(`y to confirm`, 5*time.Second)
	tm.keys("y")
	waitFile(t, mainGo, func(s string) bool { return strings.Contains(s, `"Hello"`) }, 15*time.Second)
	tm.wait(`undo rollback`, 5*time.Second)
	tm.keys("End")
	tm.wait(`› step \d+ · ↶ undo rollback`, 5*time.Second)
	tm.keys("c")
	tm.wait(`y to confirm`, 5*time.Second)
	tm.keys("y")
	waitFile(t, mainGo, func(s string) bool { return strings.Contains(s, `"Hello, tui"`) }, 15*time.Second)
	tm.keys("Escape")
	tm.waitGone(`Checkpoints · `, 5*time.Second)
	tm.keys("C-c")
	tm.wait(`ctrl\+c again`, 5*time.Second)
	tm.keys("C-c")
	s = tm.wait(`AGENT-EXITED-0`, 10*time.Second)
	if !regexp.MustCompile(`agent resume \d{8}T\d{6}-[0-9a-f]{6}`).MatchString(s) {
		t.Errorf("no resume line after quitting:\n%s", s)
	}
	tm.tmux("kill-server")

	// A crash mid-command, then the run reopened on a terminal.
	tm2 := newTmux(t)
	e.serve(script(
		turn("", call("c1", "run_command", map[string]any{"command": "echo start >> side.log; sleep 30; echo end >> side.log"})),
		turn("Finished after the crash."),
	))
	env = append(e.environ(), "AGENT_APPROVAL=full-auto", "AGENT_MODEL=test-model")
	tm2.start(100, 30, env, e.ws, "exec "+agentBin) // the pane's process is the agent
	tm2.wait(`Ask, or /`, 15*time.Second)
	tm2.typeText("Run the slow command")
	tm2.keys("Enter")
	waitFile(t, filepath.Join(e.ws, "side.log"), func(s string) bool { return strings.Contains(s, "start") }, 15*time.Second)
	syscall.Kill(tm2.pid(), syscall.SIGKILL) // the agent alone
	// The pane's process is gone, so tmux may already have exited by itself.
	exec.Command("tmux", "-S", tm2.sock, "kill-server").Run()
	var runs []struct {
		RunID string `json:"run_id"`
	}
	e.mustJSON(&runs, "runs", "--json")
	if len(runs) == 0 {
		t.Fatal("no run recorded")
	}
	tm3 := newTmux(t)
	tm3.start(100, 30, env, e.ws, agentBin+" resume "+runs[0].RunID)
	tm3.wait(`Run the slow command`, 15*time.Second)
	tm3.wait(`not re-run`, 15*time.Second)
	tm3.wait(`Finished after the crash`, 15*time.Second)
	if got := readFile(t, filepath.Join(e.ws, "side.log")); got != "start\n" {
		t.Errorf("side.log = %q: the command ran again or its orphan wrote on", got)
	}
}

// The answer streams onto the screen as the server sends it: with the
// server stalled mid-answer, what it sent is already on screen (not held
// until the end), and Esc interrupts the stalled request.
func TestTUIStreamsLive(t *testing.T) {
	tm := newTmux(t)
	long := strings.Repeat("Streaming word by word, so the person reads the answer as it arrives. ", 12)
	st := turn(long)
	st["stall_after_chunks"] = 40 // about 280 characters, then the server hangs
	e := newEnv(t, script(st, turn("Never reached.")))
	env := append(e.environ(), "AGENT_APPROVAL=ask", "AGENT_MODEL=test-model")
	tm.start(100, 30, env, e.ws, agentBin+"; echo AGENT-EXITED-$?; sleep 60")
	tm.wait(`Ask, or /`, 15*time.Second)
	tm.typeText("Tell me something long")
	tm.keys("Enter")
	tm.wait(`Streaming word by word, so the person reads the answer`, 15*time.Second)
	if s := tm.screen(); strings.Contains(s, "done") {
		t.Fatalf("the run ended although the server stalls:\n%s", s)
	}
	tm.keys("Escape")
	tm.wait(`interrupted`, 15*time.Second)
}
