package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A run edits a file, runs a command and prints the final answer; the journal
// lists it as completed and the trace pairs every call with its result.
func TestRunEditsRunsAndAnswers(t *testing.T) {
	e := newEnv(t, script(
		turn("Reading main.go.", call("c1", "read_file", map[string]any{"path": "main.go"})),
		turn("", call("c2", "edit_file", map[string]any{"path": "main.go", "old_string": "\"Hello\"", "new_string": "\"Hello, world\""})),
		turn("", call("c3", "run_command", map[string]any{"command": "grep -c 'Hello, world' main.go && echo ran >> build.log"})),
		turn("main.go now greets the world; grep found it once."),
	))
	r := e.run("run", "-C", e.ws, "--approval", "full-auto", "make main.go greet the world")
	if r.code != 0 {
		t.Fatalf("exit %d\nstderr:\n%s", r.code, r.stderr)
	}
	id := runID(t, r.stderr)
	if got := strings.TrimSpace(r.stdout); got != "main.go now greets the world; grep found it once." {
		t.Errorf("stdout = %q, want the final answer", got)
	}
	if got := readFile(t, filepath.Join(e.ws, "main.go")); !strings.Contains(got, `fmt.Println("Hello, world")`) {
		t.Errorf("main.go not edited:\n%s", got)
	}
	if got := readFile(t, filepath.Join(e.ws, "build.log")); got != "ran\n" {
		t.Errorf("build.log = %q, want the command to have run once", got)
	}

	var runs []struct {
		RunID     string `json:"run_id"`
		Status    string `json:"status"`
		Workspace string `json:"workspace"`
		Prompt    string `json:"prompt"`
		Steps     int    `json:"steps"`
		Tokens    int    `json:"tokens"`
	}
	e.mustJSON(&runs, "runs", "--json")
	if len(runs) != 1 || runs[0].RunID != id || runs[0].Status != "completed" || runs[0].Steps != 4 || runs[0].Tokens != 440 {
		t.Fatalf("runs --json = %+v, want one completed run %s with 4 steps and 440 tokens", runs, id)
	}
	if runs[0].Workspace != e.ws || runs[0].Prompt != "make main.go greet the world" {
		t.Errorf("runs --json workspace/prompt = %q / %q", runs[0].Workspace, runs[0].Prompt)
	}

	evs := e.trace(id)
	var pairs []string
	open := map[string]bool{}
	for i, ev := range evs {
		if ev.Seq != int64(i+1) || ev.RunID != id {
			t.Fatalf("event %d has seq %d run %q: want gapless seqs of run %s", i, ev.Seq, ev.RunID, id)
		}
		switch ev.Type {
		case "tool_call":
			open[ev.CallID] = true
			pairs = append(pairs, "call:"+ev.CallID)
		case "tool_result":
			if !open[ev.CallID] {
				t.Errorf("tool_result %s without a preceding tool_call", ev.CallID)
			}
			delete(open, ev.CallID)
			pairs = append(pairs, "result:"+ev.CallID+":"+ev.Status)
		}
	}
	want := "call:c1 result:c1:ok call:c2 result:c2:ok call:c3 result:c3:ok"
	if got := strings.Join(pairs, " "); got != want {
		t.Errorf("trace pairs = %s\nwant %s", got, want)
	}
	if first, last := evs[0].Type, evs[len(evs)-1]; first != "run_started" || last.Type != "run_finished" || last.Status != "completed" {
		t.Errorf("trace starts with %s and ends with %+v", first, last)
	}
	if err := e.srv.Err(); err != nil {
		t.Errorf("model server saw a bad conversation: %v", err)
	}
}

// The --json stream carries the same events as the trace, one object a line.
func TestRunJSONStream(t *testing.T) {
	e := newEnv(t, script(
		turn("", call("c1", "list_dir", map[string]any{})),
		turn("done"),
	))
	r := e.run("run", "--json", "--approval", "read-only", "list")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	lines := strings.Split(strings.TrimSpace(r.stdout), "\n")
	var types []string
	for _, l := range lines {
		var ev traceEvent
		if err := jsonUnmarshal(l, &ev); err != nil {
			t.Fatalf("line %q: %v", l, err)
		}
		types = append(types, ev.Type)
	}
	want := "run_started user_message context_refresh model_request assistant_message tool_call tool_result model_request assistant_message run_finished"
	if got := strings.Join(types, " "); got != want {
		t.Errorf("stream types = %s\nwant %s", got, want)
	}
	if strings.Contains(r.stdout, "\ndone\n") {
		t.Error("--json must not print the plain answer on stdout")
	}
}

func TestRunUsageErrors(t *testing.T) {
	e := newEnv(t, "")
	cases := []struct {
		name string
		args []string
		env  []string
		want string
	}{
		{"no prompt", []string{"run"}, nil, "needs a prompt"},
		{"bad workspace", []string{"run", "-C", "/nonexistent/x", "hi"}, nil, "fix the -C path"},
		{"unknown flag", []string{"run", "--frobnicate", "hi"}, nil, "unknown flag"},
		{"remote endpoint without key", []string{"run", "hi"}, []string{"OPENAI_BASE_URL=https://api.example.com/v1"}, "OPENAI_API_KEY"},
		{"unknown run", []string{"trace", "nope"}, nil, "agent runs"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := e.runEnv(c.env, c.args...)
			if r.code != 2 {
				t.Fatalf("exit %d, want 2; stderr: %s", r.code, r.stderr)
			}
			if !strings.Contains(r.stderr, c.want) {
				t.Errorf("stderr %q does not mention %q", r.stderr, c.want)
			}
		})
	}
	if _, err := os.Stat(filepath.Join(e.ws, ".agent")); err == nil {
		t.Error("a usage error wrote into the workspace")
	}
}

// agent context shows the layers of a model request, as journaled.
func TestContextReport(t *testing.T) {
	e := newEnv(t, script(turn("", call("c1", "list_dir", map[string]any{})), turn("done")))
	os.WriteFile(filepath.Join(e.ws, "AGENTS.md"), []byte("Always run go vet.\n"), 0o644)
	r := e.run("run", "--approval", "read-only", "look")
	id := runID(t, r.stderr)
	var rep struct {
		Step    int `json:"step"`
		Context struct {
			Budget      int `json:"budget"`
			TotalTokens int `json:"total_tokens"`
			Layers      []struct {
				Name   string `json:"name"`
				Tokens int    `json:"tokens"`
				Items  int    `json:"items"`
			} `json:"layers"`
		} `json:"context"`
	}
	e.mustJSON(&rep, "context", id, "--step", "1", "--json")
	sum := 0
	for _, l := range rep.Context.Layers {
		sum += l.Tokens
	}
	if rep.Step != 1 || len(rep.Context.Layers) != 8 || sum != rep.Context.TotalTokens || rep.Context.Budget <= 0 {
		t.Errorf("context report = %+v", rep)
	}
	if !strings.Contains(string(e.srv.Requests()[0].Body), "Always run go vet.") {
		t.Error("AGENTS.md is not in the system prompt")
	}
	if r := e.run("context", id, "--step", "9"); r.code != 2 {
		t.Errorf("a step that does not exist: exit %d", r.code)
	}
	// The text form explains the last request: the budget's arithmetic,
	// the counting, the layers in request order, what changed, the prefix.
	txt := e.run("context", id)
	if txt.code != 0 {
		t.Fatalf("agent context: exit %d\n%s", txt.code, txt.stderr)
	}
	for _, w := range []string{"run " + id + ", step 2: ", "budget ", " = window ", "answer reserve", "counted: o200k_base",
		"first layer changed since the previous request: ", "prefix hash (tools, L1, L5a): ", "L1 instructions: The repository's AGENTS.md"} {
		if !strings.Contains(txt.stdout, w) {
			t.Errorf("agent context lacks %q:\n%s", w, txt.stdout)
		}
	}
	at := 0
	for _, l := range []string{"\ntools ", "\nL1 ", "\nL5a ", "\nL6 ", "\nL3 ", "\nL5b ", "\nL4 ", "\nL2 "} {
		i := strings.Index(txt.stdout[at:], l)
		if i < 0 {
			t.Fatalf("layer %q missing or out of request order:\n%s", strings.TrimSpace(l), txt.stdout)
		}
		at += i + 1
	}
}
