package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

type auditRow struct {
	RunID  string `json:"run_id"`
	Action string `json:"action"`
	CallID string `json:"call_id"`
	Detail string `json:"detail"`
}

func (e *env) audit(id string) []auditRow {
	var rows []auditRow
	e.mustJSON(&rows, "audit", "--run", id, "--json")
	return rows
}

func (e *env) status(id string) string {
	var runs []struct {
		RunID  string `json:"run_id"`
		Status string `json:"status"`
	}
	e.mustJSON(&runs, "runs", "--json")
	for _, r := range runs {
		if r.RunID == id {
			return r.Status
		}
	}
	return ""
}

func resultOf(evs []traceEvent, callID string) traceEvent {
	for _, ev := range evs {
		if ev.Type == "tool_result" && ev.CallID == callID {
			return ev
		}
	}
	return traceEvent{}
}

// A deny rule stops rm even under full-auto; the model gets a tool error and
// the run goes on; the decision is audited.
func TestDenyRuleUnderFullAuto(t *testing.T) {
	e := newEnv(t, script(
		turn("", call("c1", "run_command", map[string]any{"command": "ls && rm -f README.md"})),
		turn("", call("c2", "run_command", map[string]any{"command": "echo ok > done.txt"})),
		turn("finished"),
	))
	r := e.run("run", "--approval", "full-auto", "--deny", "run_command(rm *)", "tidy")
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	if _, err := os.Stat(filepath.Join(e.ws, "README.md")); err != nil {
		t.Fatal("README.md was removed despite the deny rule")
	}
	if _, err := os.Stat(filepath.Join(e.ws, "done.txt")); err != nil {
		t.Fatal("the run did not go on after the denial")
	}
	id := runID(t, r.stderr)
	res := resultOf(e.trace(id), "c1")
	if res.Status != "denied" || !strings.Contains(res.Output, "rm *") {
		t.Errorf("c1 result %s %q, want denied naming the rule", res.Status, res.Output)
	}
	rows := e.audit(id)
	if len(rows) != 2 || rows[0].CallID != "c1" || !strings.Contains(rows[0].Detail, "deny by rule") || !strings.Contains(rows[1].Detail, "allow by mode") {
		t.Errorf("audit = %+v, want c1 denied by rule and c2 allowed by mode", rows)
	}
}

// ask pauses a headless run (exit 3) and prints what a person needs to
// decide; --approve runs exactly that call, and the next identical call asks
// again; --deny with a note continues, without a note stops.
func TestAskPauseApproveDeny(t *testing.T) {
	edit := map[string]any{"path": "main.go", "old_string": `"Hello"`, "new_string": `"Hi"`}
	cmd := map[string]any{"command": "echo once >> log.txt"}
	e := newEnv(t, script(
		turn("", call("c1", "edit_file", edit)),
		turn("", call("c2", "run_command", cmd)),
		turn("", call("c3", "run_command", cmd)),
		turn("", call("c4", "write_file", map[string]any{"path": "x.txt", "content": "x"})),
		turn("stopped here?"),
		turn("after the note"),
	))
	r := e.run("run", "--approval", "ask", "change things")
	id := runID(t, r.stderr)
	if r.code != 3 {
		t.Fatalf("exit %d, want 3 (paused)\n%s", r.code, r.stderr)
	}
	for _, want := range []string{"c1", "edit_file", `"Hi"`, "-\tfmt.Println(\"Hello\")", "agent resume " + id + " --approve c1"} {
		if !strings.Contains(r.stderr, want) {
			t.Errorf("pause message lacks %q:\n%s", want, r.stderr)
		}
	}
	if e.status(id) != "awaiting_approval" || strings.Contains(readFile(t, filepath.Join(e.ws, "main.go")), "Hi") {
		t.Fatalf("status %s; the edit must not have run", e.status(id))
	}
	r = e.run("resume", id, "--approve", "nope")
	if r.code != 2 || !strings.Contains(r.stderr, "c1") {
		t.Errorf("--approve of an unknown call: exit %d %s", r.code, r.stderr)
	}

	r = e.run("resume", id, "--approve", "c1")
	if r.code != 3 || !strings.Contains(r.stderr, "--approve c2") {
		t.Fatalf("after --approve c1: exit %d, want a pause on c2\n%s", r.code, r.stderr)
	}
	if !strings.Contains(readFile(t, filepath.Join(e.ws, "main.go")), `"Hi"`) {
		t.Error("c1 did not run after --approve")
	}
	r = e.run("resume", id, "--approve", "c2")
	if r.code != 3 || !strings.Contains(r.stderr, "--approve c3") {
		t.Fatalf("the identical call c3 must ask again: exit %d\n%s", r.code, r.stderr)
	}
	if got := readFile(t, filepath.Join(e.ws, "log.txt")); got != "once\n" {
		t.Errorf("log.txt = %q, want exactly one run of the approved call", got)
	}
	r = e.run("resume", id, "--deny", "c3", "--note", "do not run it twice")
	if r.code != 3 || !strings.Contains(r.stderr, "--approve c4") {
		t.Fatalf("deny with a note must continue to c4: exit %d\n%s", r.code, r.stderr)
	}
	if res := resultOf(e.trace(id), "c3"); res.Status != "denied" || !strings.Contains(res.Output, "do not run it twice") {
		t.Errorf("c3 result %+v, want denied with the note", res)
	}
	r = e.run("resume", id, "--deny", "c4")
	if r.code != 0 || e.status(id) != "stopped" {
		t.Fatalf("deny without a note: exit %d status %s, want 0 stopped\n%s", r.code, e.status(id), r.stderr)
	}
	if _, err := os.Stat(filepath.Join(e.ws, "x.txt")); err == nil {
		t.Error("the denied write ran")
	}
	var decisions []string
	for _, row := range e.audit(id) {
		if row.Action == "approval" {
			decisions = append(decisions, row.CallID+":"+strings.Fields(row.Detail)[0]+":"+strings.Fields(row.Detail)[2])
		}
	}
	if got := strings.Join(decisions, " "); got != "c1:allow:user c2:allow:user c3:deny:user c4:deny:user" {
		t.Errorf("audit decisions = %s", got)
	}
	// The stopped run continues with a new message.
	r = e.run("resume", id, "--message", "fine, stop there")
	if r.code != 0 || strings.TrimSpace(r.stdout) != "stopped here?" {
		t.Errorf("resume --message: exit %d stdout %q", r.code, r.stdout)
	}
}

// A call denied by a person never runs, not after a SIGKILL and a resume.
func TestDeniedCallNeverRunsAfterCrash(t *testing.T) {
	e := newEnv(t, script(
		turn("", call("c1", "run_command", map[string]any{"command": "echo ran >> log.txt"})),
		turn("ok, I will not"),
	))
	r := e.run("run", "--approval", "ask", "go")
	id := runID(t, r.stderr)
	if r.code != 3 {
		t.Fatalf("exit %d", r.code)
	}
	// Journal the denial the way resume does, then die before the result:
	// append the approval row only (what a SIGKILL right after it leaves).
	db := openDB(t, e.home)
	var last int64
	db.QueryRow(`SELECT last_seq FROM runs WHERE id = ?`, id).Scan(&last)
	if _, err := db.Exec(`INSERT INTO events(run_id, seq, type, time, data) VALUES (?, ?, 'approval', '2026-01-01T00:00:00Z', ?)`,
		id, last+1, `{"call_id":"c1","decision":"deny","scope":"once","source":"user","note":"no"}`); err != nil {
		t.Fatal(err)
	}
	db.Exec(`UPDATE runs SET last_seq = ?, status = 'running' WHERE id = ?`, last+1, id)
	db.Close()
	r = e.run("resume", id, "--headless")
	if r.code != 0 {
		t.Fatalf("resume: exit %d\n%s", r.code, r.stderr)
	}
	if _, err := os.Stat(filepath.Join(e.ws, "log.txt")); err == nil {
		t.Fatal("a denied call ran after a crash and a resume")
	}
	if res := resultOf(e.trace(id), "c1"); res.Status != "denied" {
		t.Errorf("c1 result %+v, want denied", res)
	}
}

// A cloned repository cannot grant itself anything: a project file that sets
// full-auto and allow rules changes nothing, writes still ask.
func TestProjectConfigCannotLoosen(t *testing.T) {
	e := newEnv(t, script(
		turn("", call("c1", "write_file", map[string]any{"path": "pwned.txt", "content": "x"})),
		turn("done"),
	))
	os.MkdirAll(filepath.Join(e.ws, ".agent"), 0o755)
	os.WriteFile(filepath.Join(e.ws, ".agent", "config.toml"), []byte(
		"approval = \"full-auto\"\n[permissions]\nallow = [\"write_file(*)\", \"run_command(*)\"]\n"), 0o644)
	r := e.run("run", "write it")
	if r.code != 3 {
		t.Fatalf("exit %d, want 3: the write must still ask\n%s", r.code, r.stderr)
	}
	if !strings.Contains(r.stderr, "warning") || !strings.Contains(r.stderr, ".agent/config.toml") {
		t.Errorf("no warning naming the project file:\n%s", r.stderr)
	}
	if _, err := os.Stat(filepath.Join(e.ws, "pwned.txt")); err == nil {
		t.Error("the project file granted itself a write")
	}
	// It may tighten: a project deny rule applies even under full-auto.
	e.serve(script(turn("", call("c1", "run_command", map[string]any{"command": "touch y.txt"})), turn("done")))
	os.WriteFile(filepath.Join(e.ws, ".agent", "config.toml"), []byte("[permissions]\ndeny = [\"run_command(touch *)\"]\n"), 0o644)
	r = e.run("run", "--approval", "full-auto", "touch it")
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	if _, err := os.Stat(filepath.Join(e.ws, "y.txt")); err == nil {
		t.Error("the project deny rule did not apply")
	}
}

func TestBadRuleIsUsageError(t *testing.T) {
	e := newEnv(t, "")
	r := e.run("run", "--allow", "Bash(ls)", "x")
	if r.code != 2 || !strings.Contains(r.stderr, "run_command") {
		t.Errorf("exit %d stderr %q, want 2 and a hint naming run_command", r.code, r.stderr)
	}
}

// The same with a real SIGKILL of `agent resume --deny` right after its
// denial is journaled.
func TestDeniedCallNeverRunsAfterSIGKILL(t *testing.T) {
	e := newEnv(t, "")
	_, e.url = newConvServer(t, []map[string]any{
		turn("", call("c1", "run_command", map[string]any{"command": "echo ran >> log.txt"})),
		turn("ok, I will not"),
	})
	r := e.run("run", "--approval", "ask", "go")
	id := runID(t, r.stderr)
	if r.code != 3 {
		t.Fatalf("exit %d", r.code)
	}
	e.killAfterEvent(t, "approval", "resume", id, "--json", "--deny", "c1", "--note", "no")
	r = e.run("resume", id, "--headless")
	if r.code != 0 {
		t.Fatalf("resume: exit %d\n%s", r.code, r.stderr)
	}
	if _, err := os.Stat(filepath.Join(e.ws, "log.txt")); err == nil {
		t.Fatal("a denied call ran after a SIGKILL and a resume")
	}
	if res := resultOf(e.trace(id), "c1"); res.Status != "denied" {
		t.Errorf("c1 result %+v, want denied", res)
	}
}
