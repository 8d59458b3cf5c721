package e2e

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The delegation tasks of evals/subagents can fail: each broken copy (a
// worker's command named wrongly, one child too many, the workers run one
// at a time, a child script no subagent asks for, the conflicting file
// expected overwritten) fails with a line that says what.
func TestEvalSubagentsBroken(t *testing.T) {
	src := filepath.Join(repoRoot(), "evals", "subagents")
	suite := t.TempDir()
	read := func(task, file string) string {
		b, err := os.ReadFile(filepath.Join(src, task, file))
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	breaks := []struct {
		task, file, old, new, want string
	}{
		{"crash-resume", "task.toml", `call = "b_1"`, `call = "b_9"`, "the run made no call b_9"},
		{"explore-question", "task.toml", `"subagents_completed", n = 1`, `"subagents_completed", n = 2`, "the run started 1 subagent(s) (task_started), want 2"},
		{"parallel-workers", "task.toml", "[expect]", "[config]\nmax_parallel = 1\n\n[expect]", "at most 1 of 2 subagents' first requests were in flight at once"},
		{"explore-question", "turns.json", `"match": "Find where`, `"match": "Find out where`, `the child "Find out where the HTTP server's default listening port is defined" of turns.json never asked the model`},
		{"apply-conflict", "task.toml", `{ path = "VERSION", exact = "1.3.0-rc.1\n" }`, `{ path = "VERSION", exact = "1.3.0\n" }`, `file VERSION: content "1.3.0-rc.1\n", want exactly "1.3.0\n"`},
	}
	for i, b := range breaks {
		dir := filepath.Join(suite, fmt.Sprintf("broken-%d", i))
		copyTree(t, filepath.Join(src, b.task), dir)
		body := read(b.task, b.file)
		if !strings.Contains(body, b.old) {
			t.Fatalf("%s/%s no longer holds %q: update this test", b.task, b.file, b.old)
		}
		writeFile(t, filepath.Join(dir, b.file), strings.Replace(body, b.old, b.new, 1))
	}
	e := newEnv(t, "")
	rep, _ := evalJSON(t, e, 1, suite, "--json", "--min-success", "1", "-j", "2")
	for i, b := range breaks {
		task := rep.Tasks[i]
		if task.Passed || !strings.Contains(strings.Join(task.Failures, "\n"), b.want) {
			t.Errorf("%s (%s broken): passed %v, failures %v; want one saying %q", task.Name, b.task, task.Passed, task.Failures, b.want)
		}
	}
}
