package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"agent/internal/replay"
)

// failureOf is the diagnosis the last run_finished of a run's trace carries.
func (e *env) failureOf(id string) (status string, f *struct {
	Class  string `json:"class"`
	Seq    int64  `json:"seq"`
	Reason string `json:"reason"`
}) {
	e.t.Helper()
	var evs []struct {
		Type    string `json:"type"`
		Status  string `json:"status"`
		Failure *struct {
			Class  string `json:"class"`
			Seq    int64  `json:"seq"`
			Reason string `json:"reason"`
		} `json:"failure"`
	}
	e.mustJSON(&evs, "trace", id, "--json")
	for _, ev := range evs {
		if ev.Type == "run_finished" {
			status, f = ev.Status, ev.Failure
		}
	}
	return status, f
}

// capture runs agent eval capture into dir and returns the task directory.
func (e *env) capture(id, dir string) string {
	e.t.Helper()
	r := e.run("eval", "capture", id, "--dir", dir, "--name", "captured-run")
	if r.code != 0 {
		e.t.Fatalf("eval capture: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	return filepath.Join(dir, "captured-run")
}

// evalCaptured runs agent eval on the suite dir and returns the status and
// class it reports for its one task.
func (e *env) evalCaptured(t *testing.T, dir string) (status, class string) {
	t.Helper()
	r := e.run("eval", dir, "--json")
	var rep struct {
		Tasks []struct {
			Name   string `json:"name"`
			Status string `json:"status"`
			Class  string `json:"class"`
		} `json:"tasks"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &rep); err != nil || len(rep.Tasks) != 1 {
		t.Fatalf("agent eval %s: exit %d, %v\n%s%s", dir, r.code, err, r.stdout, r.stderr)
	}
	return rep.Tasks[0].Status, rep.Tasks[0].Class
}

const failingEditArgs = `{"path":"README.md","old_string":"nope","new_string":"x"}`

// A run that fails with class tool (the same failing edit_file, again and
// again) carries its diagnosis; captured, it becomes a task whose fixture is
// the workspace before the run, whose turns are the model's, and which
// agent eval replays to the same failure.
func TestCaptureFailedRunReproduces(t *testing.T) {
	e := newEnv(t, script(
		turn("", call("c1", "edit_file", failingEditArgs)),
		turn("", call("c2", "edit_file", failingEditArgs)),
		turn("", call("c3", "edit_file", failingEditArgs)),
		turn("", call("c4", "edit_file", failingEditArgs)),
		turn("gave up"),
	))
	r := e.run("run", "-C", e.ws, "--approval", "full-auto", "fix the readme")
	if r.code != 1 {
		t.Fatalf("run: exit %d, want 1 (failed)\n%s", r.code, r.stderr)
	}
	id := runID(t, r.stderr)
	status, f := e.failureOf(id)
	if status != "failed" || f == nil || f.Class != "tool" || !strings.Contains(f.Reason, "repeated the same failing edit_file `README.md` 3 times") {
		t.Fatalf("run_finished: status %s, failure %+v; want failed, class tool", status, f)
	}
	for _, ev := range e.trace(id) {
		if ev.Seq == f.Seq && (ev.Type != "tool_result" || ev.CallID != "c3" || ev.Status != "error") {
			t.Errorf("the deciding event %d is %s %s %s, want c3's failing tool_result", f.Seq, ev.Type, ev.CallID, ev.Status)
		}
	}
	if out := e.run("trace", id).stdout; !strings.Contains(out, "failure class: tool (decided at seq ") {
		t.Errorf("agent trace does not show the diagnosis:\n%s", out)
	}

	suite := t.TempDir()
	task := e.capture(id, suite)
	for _, name := range []string{"main.go", "go.mod", "README.md", ".gitignore"} {
		if got, want := readFile(t, filepath.Join(task, "fixture", name)), readFile(t, filepath.Join(e.ws, name)); got != want {
			t.Errorf("fixture/%s = %q, want the workspace's %q", name, got, want)
		}
	}
	if _, err := os.Stat(filepath.Join(task, "fixture", ".git")); err == nil {
		t.Error("the fixture holds the workspace's .git")
	}
	sc, err := replay.Load(filepath.Join(task, "turns.json"))
	if err != nil {
		t.Fatal(err)
	}
	if len(sc.Turns) != 3 || sc.Turns[2].ToolCalls[0].ID != "c3" || sc.Turns[0].ToolCalls[0].Arguments != failingEditArgs || sc.Turns[0].Usage == nil {
		t.Errorf("turns.json = %+v, want the 3 answers the run got, with ids, arguments and usage", sc.Turns)
	}
	toml := readFile(t, filepath.Join(task, "task.toml"))
	for _, want := range []string{`prompt = "fix the readme"`, `mode = "full-auto"`, "\n[expect]\n", `# status = "failed"`, `# class = "tool"`, "# files changed: none"} {
		if !strings.Contains(toml, want) {
			t.Errorf("task.toml lacks %q:\n%s", want, toml)
		}
	}

	// a second capture into the same place is refused and changes nothing
	again := e.run("eval", "capture", id, "--dir", suite, "--name", "captured-run")
	if again.code != 2 || !strings.Contains(again.stderr, "exists") {
		t.Errorf("capture over an existing task: exit %d\n%s", again.code, again.stderr)
	}
	if readFile(t, filepath.Join(task, "task.toml")) != toml {
		t.Error("the refused capture changed task.toml")
	}
	if entries, _ := os.ReadDir(suite); len(entries) != 1 {
		t.Errorf("the suite holds %d entries after the refused capture, want the one task", len(entries))
	}

	t.Run("replay", func(t *testing.T) {
		if status, class := e.evalCaptured(t, suite); status != "failed" || class != "tool" {
			t.Errorf("agent eval of the captured task: status %q, class %q; want failed, tool", status, class)
		}
	})
}

// A run the person stopped by denying a command is captured with the mode
// and the decision, and replays to the same stop.
func TestCaptureStoppedRunReproduces(t *testing.T) {
	e := newEnv(t, script(
		turn("cleaning", call("c1", "run_command", map[string]any{"command": "rm -rf build"})),
		turn("ok, I will not"),
	))
	r := e.run("run", "-C", e.ws, "--approval", "ask", "clean the build")
	if r.code != 3 {
		t.Fatalf("run: exit %d, want 3 (awaiting approval)\n%s", r.code, r.stderr)
	}
	id := runID(t, r.stderr)
	if r := e.run("resume", id, "--headless", "--deny", "c1"); r.code != 0 {
		t.Fatalf("resume --deny: exit %d\n%s", r.code, r.stderr)
	}
	status, f := e.failureOf(id)
	if status != "stopped" || f == nil || f.Class != "permission" || f.Reason != "the person denied run_command `rm -rf build` and stopped the turn" {
		t.Fatalf("run_finished: status %s, failure %+v; want stopped, permission", status, f)
	}
	suite := t.TempDir()
	task := e.capture(id, suite)
	toml := readFile(t, filepath.Join(task, "task.toml"))
	for _, want := range []string{`mode = "ask"`, "[[policy.decisions]]\ncall = \"c1\"\ndecision = \"deny\"\n", `# status = "stopped"`, `# class = "permission"`} {
		if !strings.Contains(toml, want) {
			t.Errorf("task.toml lacks %q:\n%s", want, toml)
		}
	}
	t.Run("replay", func(t *testing.T) {
		if status, class := e.evalCaptured(t, suite); status != "stopped" || class != "permission" {
			t.Errorf("agent eval of the captured task: status %q, class %q; want stopped, permission", status, class)
		}
	})
}

// A run that changed nothing made no checkpoint: the fixture is the
// workspace's git HEAD; outside a git repository the capture is refused with
// a clear error and writes nothing.
func TestCaptureWithoutCheckpoint(t *testing.T) {
	reads := script(
		turn("", call("r1", "read_file", map[string]any{"path": "README.md"})),
		turn("", call("r2", "read_file", map[string]any{"path": "main.go"})),
		turn("done"),
	)
	e := newEnv(t, reads)
	r := e.run("run", "-C", e.ws, "--approval", "full-auto", "--max-steps", "1", "read the readme")
	if r.code != 1 {
		t.Fatalf("run: exit %d, want 1 (--max-steps)\n%s", r.code, r.stderr)
	}
	id := runID(t, r.stderr)
	if status, f := e.failureOf(id); status != "failed" || f == nil || f.Class != "runtime" {
		t.Fatalf("run_finished: status %s, failure %+v; want failed, runtime", status, f)
	}
	suite := t.TempDir()
	task := e.capture(id, suite)
	if got := readFile(t, filepath.Join(task, "fixture", "README.md")); got != "# demo\n" {
		t.Errorf("fixture/README.md = %q", got)
	}
	toml := readFile(t, filepath.Join(task, "task.toml"))
	if !strings.Contains(toml, "max_steps = 1\n") || !strings.Contains(toml, "git HEAD") {
		t.Errorf("task.toml:\n%s", toml)
	}
	t.Run("replay", func(t *testing.T) {
		if status, class := e.evalCaptured(t, suite); status != "failed" || class != "runtime" {
			t.Errorf("agent eval of the captured task: status %q, class %q; want failed, runtime", status, class)
		}
	})

	plain := t.TempDir() // not a git repository
	os.WriteFile(filepath.Join(plain, "notes.txt"), []byte("n\n"), 0o644)
	e.serve(reads)
	r = e.runEnv([]string{"OPENAI_BASE_URL=" + e.url}, "run", "-C", plain, "--approval", "full-auto", "--max-steps", "1", "read the notes")
	if r.code != 1 {
		t.Fatalf("run outside git: exit %d\n%s", r.code, r.stderr)
	}
	id = runID(t, r.stderr)
	out := t.TempDir()
	c := e.run("eval", "capture", id, "--dir", out)
	if c.code != 2 || !strings.Contains(c.stderr, "made no checkpoint") || !strings.Contains(c.stderr, "not a git repository") {
		t.Errorf("capture without a fixture: exit %d\n%s", c.code, c.stderr)
	}
	if entries, _ := os.ReadDir(out); len(entries) != 0 {
		t.Errorf("the refused capture left %d entries in --dir", len(entries))
	}
	if c := e.run("eval", "capture", id, "--name", "../escape"); c.code != 2 || !strings.Contains(c.stderr, "--name") {
		t.Errorf("capture --name ../escape: exit %d\n%s", c.code, c.stderr)
	}
}
