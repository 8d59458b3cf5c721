package e2e

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// Every kind of bad model output leaves the run alive, the model gets a tool
// error naming the problem, and nothing outside the workspace changes.
func TestBadModelOutputBecomesToolErrors(t *testing.T) {
	outside := t.TempDir()
	secretPath := filepath.Join(outside, "victim.txt")
	if err := os.WriteFile(secretPath, []byte("untouched\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name, tool, args, want string
	}{
		{"broken JSON", "write_file", `{"path": "x.txt", "content": `, "JSON"},
		{"unknown tool", "delete_everything", `{}`, "unknown tool"},
		{"missing field", "read_file", `{}`, `"path"`},
		{"extra field", "read_file", `{"path":"main.go","mode":"fast"}`, `"mode"`},
		{"wrong type", "read_file", `{"path":"main.go","limit":"ten"}`, `"limit"`},
		{"dot-dot path", "write_file", jsonArgs(map[string]string{"path": "../escape.txt", "content": "x"}), "outside the workspace"},
		{"absolute outside", "write_file", jsonArgs(map[string]string{"path": secretPath, "content": "pwned"}), "outside the workspace"},
		{"symlink outside", "write_file", jsonArgs(map[string]string{"path": "link/victim.txt", "content": "pwned"}), "outside the workspace"},
		{"symlink read", "read_file", jsonArgs(map[string]string{"path": "link/victim.txt"}), "outside the workspace"},
		{"edit no match", "edit_file", jsonArgs(map[string]string{"path": "main.go", "old_string": "Goodbye", "new_string": "x"}), "not found"},
		{"edit several matches", "edit_file", jsonArgs(map[string]string{"path": "README.md", "old_string": "demo", "new_string": "x"}), "2 times"},
	}
	var turns []map[string]any
	for i, c := range cases {
		turns = append(turns, turn("", call("bad"+itoa(i), c.tool, c.args)))
	}
	turns = append(turns, turn("I could not do it."))
	e := newEnv(t, script(turns...))
	if err := os.WriteFile(filepath.Join(e.ws, "README.md"), []byte("# demo\n\ndemo\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(e.ws, "link")); err != nil {
		t.Fatal(err)
	}
	r := e.run("run", "--approval", "full-auto", "try bad things")
	if r.code != 0 {
		t.Fatalf("exit %d, want the run to survive every bad call\n%s", r.code, r.stderr)
	}
	if strings.Contains(r.stderr, "panic") {
		t.Fatalf("panic on stderr:\n%s", r.stderr)
	}
	results := map[string]traceEvent{}
	for _, ev := range e.trace(runID(t, r.stderr)) {
		if ev.Type == "tool_result" {
			results[ev.CallID] = ev
		}
	}
	reqs := e.srv.Requests()
	for i, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			res, ok := results["bad"+itoa(i)]
			if !ok {
				t.Fatalf("no tool_result for the call")
			}
			if res.Status != "error" || !strings.Contains(res.Output, c.want) {
				t.Fatalf("result %s %q, want an error mentioning %q", res.Status, res.Output, c.want)
			}
			// The model's next request carries that error back to it.
			if i+1 >= len(reqs) || !strings.Contains(string(reqs[i+1].Body), "bad"+itoa(i)) {
				t.Errorf("request %d does not answer call bad%d", i+1, i)
			}
		})
	}
	if got := readFile(t, secretPath); got != "untouched\n" {
		t.Errorf("a file outside the workspace changed: %q", got)
	}
	if _, err := os.Stat(filepath.Join(filepath.Dir(e.ws), "escape.txt")); err == nil {
		t.Error("../escape.txt was written")
	}
	entries, _ := os.ReadDir(outside)
	if len(entries) != 1 {
		t.Errorf("outside dir has %d entries, want only victim.txt", len(entries))
	}
}

// The same failing call three times stops the run with a classified error.
func TestRepeatedFailingCallStops(t *testing.T) {
	bad := call("", "read_file", map[string]any{"path": "nope.txt"})
	e := newEnv(t, script(turn("", bad), turn("", bad), turn("", bad), turn("never reached")))
	r := e.run("run", "--approval", "read-only", "read nope")
	if r.code != 1 {
		t.Fatalf("exit %d, want 1 (failed)\n%s", r.code, r.stderr)
	}
	evs := e.trace(runID(t, r.stderr))
	var class string
	for _, ev := range evs {
		if ev.Type == "error" {
			class = ev.Class
		}
	}
	if class != "tool" || evs[len(evs)-1].Status != "failed" {
		t.Errorf("error class %q, last status %q; want tool / failed", class, evs[len(evs)-1].Status)
	}
	if n := len(e.srv.Requests()); n != 3 {
		t.Errorf("model asked %d times, want 3", n)
	}
}

func TestMaxStepsStops(t *testing.T) {
	e := newEnv(t, script(
		turn("", call("a", "list_dir", map[string]any{})),
		turn("", call("b", "glob", map[string]any{"pattern": "*.go"})),
		turn("never reached"),
	))
	r := e.run("run", "--max-steps", "2", "--approval", "read-only", "loop")
	if r.code != 1 || !strings.Contains(r.stderr, "--max-steps") {
		t.Fatalf("exit %d, want 1 with a message naming --max-steps\n%s", r.code, r.stderr)
	}
	var runs []struct {
		Status string `json:"status"`
		Steps  int    `json:"steps"`
	}
	e.mustJSON(&runs, "runs", "--json")
	if runs[0].Status != "failed" || runs[0].Steps != 2 {
		t.Errorf("runs = %+v, want failed after 2 steps", runs)
	}
}

func itoa(i int) string { return strconv.Itoa(i) }
