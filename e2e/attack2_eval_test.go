package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// agent eval merge given hostile reports (a CI artifact anyone could have
// replaced): an endless file, a shard count of 10^15, a task whose name
// carries escape sequences and a path, a figure no run measures. Each is
// refused quickly with exit 2, and nothing of the text drives the terminal.
func TestAttackEvalMergeHostileReports(t *testing.T) {
	e := newEnv(t, "")
	dir := t.TempDir()
	write := func(name string, v any) string {
		b, _ := json.Marshal(v)
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	task := func(name string, seconds float64) map[string]any {
		return map[string]any{"name": name, "passed": true, "status": "completed", "seconds": seconds, "failures": []string{}}
	}
	evil := "\x1b]0;pwned\x07\x1b[2J../../etc/passwd\u009b31m"
	cases := []struct {
		name string
		args []string
		want string
	}{
		{"endless", []string{"/dev/zero"}, "larger than"},
		{"huge shard count", []string{write("n.json", map[string]any{"shard": "1/1000000000000000", "suite": []string{evil},
			"tasks": []any{task(evil, 1)}})}, "missing"},
		{"escape in a task name", []string{write("a.json", map[string]any{"shard": "1/2", "suite": []string{evil, "b"}, "tasks": []any{task(evil, 1)}}),
			write("b.json", map[string]any{"shard": "2/2", "suite": []string{evil, "b"}, "tasks": []any{task(evil, 1)}})}, "overlap"},
		{"negative seconds", []string{write("s.json", map[string]any{"shard": "1/1", "suite": []string{"x"}, "tasks": []any{task("x", -3)}})}, "seconds"},
	}
	for _, c := range cases {
		start := time.Now()
		r := e.run(append([]string{"eval", "merge"}, c.args...)...)
		if r.code != 2 || !strings.Contains(r.stderr, c.want) {
			t.Errorf("%s: exit %d, want 2 saying %q\n%s", c.name, r.code, c.want, r.stderr)
		}
		if el := time.Since(start); el > 20*time.Second {
			t.Errorf("%s: took %s", c.name, el)
		}
		if len(r.stderr) > 2000 || strings.ContainsAny(r.stderr+r.stdout, "\x1b\x07\u009b") {
			t.Errorf("%s: the error (%d bytes) carries the report's text raw: %q", c.name, len(r.stderr), r.stderr)
		}
	}
}
