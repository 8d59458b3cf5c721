package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A person's denial that ends a turn: the calls after it in the same turn
// are journaled with their own risk, denied by the person in the audit log,
// and never run.
func TestDenialThatEndsTurnAuditsSiblings(t *testing.T) {
	e := newEnv(t, script(
		turn("", call("c1", "write_file", map[string]any{"path": "a.txt", "content": "a"}),
			call("c2", "run_command", map[string]any{"command": "echo ran > ran.txt"}),
			call("c3", "edit_file", map[string]any{"path": "main.go", "old_string": "Hello", "new_string": "Hi"}),
			call("c4", "read_file", map[string]any{"path": "go.mod"})),
		turn("stopped"),
	))
	r := e.run("run", "--approval", "ask", "do four things")
	id := runID(t, r.stderr)
	if r.code != 3 {
		t.Fatalf("exit %d, want a pause on c1\n%s", r.code, r.stderr)
	}
	if r = e.run("resume", id, "--deny", "c1"); r.code != 0 || e.status(id) != "stopped" {
		t.Fatalf("deny c1: exit %d status %s\n%s", r.code, e.status(id), r.stderr)
	}
	risks := map[string]string{}
	for _, ev := range e.rawTrace(id) {
		if ev["type"] == "tool_call" {
			risks[ev["call_id"].(string)], _ = ev["risk"].(string)
		}
	}
	want := map[string]string{"c1": "write", "c2": "exec", "c3": "write", "c4": "read"}
	for c, risk := range want {
		if risks[c] != risk {
			t.Errorf("tool_call %s journaled with risk %q, want %q", c, risks[c], risk)
		}
	}
	var rows []string
	for _, row := range e.audit(id) {
		if row.Action == "approval" {
			rows = append(rows, row.CallID+":"+strings.Fields(row.Detail)[0]+":"+strings.Fields(row.Detail)[2])
		}
	}
	if got := strings.Join(rows, " "); got != "c1:deny:user c2:deny:user c3:deny:user c4:deny:user" {
		t.Errorf("audit rows %s; want every call of the stopped turn denied by the person", got)
	}
	for _, f := range []string{"a.txt", "ran.txt"} {
		if _, err := os.Stat(filepath.Join(e.ws, f)); err == nil {
			t.Errorf("%s exists: a call of the stopped turn ran", f)
		}
	}
	if strings.Contains(readFile(t, filepath.Join(e.ws, "main.go")), "Hi") {
		t.Error("c3 ran")
	}
}

// llama.cpp and Ollama send tool-call arguments as a JSON object: the run
// completes, and so does its resume against the same server.
func TestObjectArgumentsDialect(t *testing.T) {
	edit := func(id, from, to string) map[string]any {
		tt := turn("", call(id, "edit_file", map[string]any{"path": "main.go", "old_string": from, "new_string": to}))
		tt["args_object"] = true
		return tt
	}
	e := newEnv(t, "")
	_, e.url = newConvServer(t, []map[string]any{
		edit("c1", `"Hello"`, `"Hello, world"`),
		edit("c2", `"Hello, world"`, `"Hello, there"`),
		turn("done"),
	})
	r := e.run("run", "--approval", "auto-edit", "greet")
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	if !strings.Contains(readFile(t, filepath.Join(e.ws, "main.go")), `"Hello, there"`) {
		t.Errorf("main.go = %s", readFile(t, filepath.Join(e.ws, "main.go")))
	}
	// Paused under ask, then resumed: the same dialect on the way back.
	e2 := newEnv(t, "")
	_, e2.url = newConvServer(t, []map[string]any{edit("c1", `"Hello"`, `"Hi"`), turn("done")})
	r = e2.run("run", "--approval", "ask", "greet")
	id := runID(t, r.stderr)
	if r.code != 3 {
		t.Fatalf("exit %d, want 3\n%s", r.code, r.stderr)
	}
	if r = e2.run("resume", id, "--approve", "c1"); r.code != 0 || !strings.Contains(readFile(t, filepath.Join(e2.ws, "main.go")), `"Hi"`) {
		t.Fatalf("resume: exit %d\n%s", r.code, r.stderr)
	}
}

// A server that does not speak the chat-completions stream (here Ollama's
// native format): a model-class failure that quotes what came, not "the
// connection broke off".
func TestUnreadableStreamIsAModelError(t *testing.T) {
	e := newEnv(t, script(map[string]any{"text": "x", "bad_chunk": `{"message": {"role": "assistant", "content": "hi"}, "done": false}`}))
	r := e.run("run", "go")
	if r.code != 1 || !strings.Contains(r.stderr, `"done": false`) || strings.Contains(r.stderr, "broke off") {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	id := runID(t, r.stderr)
	if ev := firstOfType(e.rawTrace(id), "error"); ev == nil || ev["class"] != "model" {
		t.Errorf("error event %v, want class model", ev)
	}
}

// A command holding a redaction placeholder is refused before anyone is
// asked and before it runs: it would write the placeholder over a secret.
func TestPlaceholderCommandRefused(t *testing.T) {
	e := newEnv(t, script(
		turn("", call("c1", "run_command", map[string]any{"command": "printf 'token=[REDACTED:github-token:0123abcd]\\n' > cfg.txt"})),
		turn("ok"),
	))
	r := e.run("run", "--approval", "ask", "fix config")
	if r.code != 0 {
		t.Fatalf("exit %d (a refused call must not ask a person)\n%s", r.code, r.stderr)
	}
	id := runID(t, r.stderr)
	if res := resultOf(e.trace(id), "c1"); res.Status != "error" || !strings.Contains(res.Output, "placeholder") || !strings.Contains(res.Output, "edit_file") {
		t.Errorf("c1 result %+v", res)
	}
	if _, err := os.Stat(filepath.Join(e.ws, "cfg.txt")); err == nil {
		t.Error("the command ran")
	}
}
