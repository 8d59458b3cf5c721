package e2e

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// agent eval replays the repository's own eval suite through the real loop:
// every task passes; a suite with a failing task exits 1 under --min-success.
func TestEvalSuite(t *testing.T) {
	_, file, _, _ := runtime.Caller(0)
	suite := filepath.Join(filepath.Dir(filepath.Dir(file)), "evals")
	e := newEnv(t, "")
	var results []struct {
		Name   string `json:"name"`
		Passed bool   `json:"passed"`
		Check  string `json:"check"`
	}
	e.mustJSON(&results, "eval", suite, "--json", "--min-success", "1")
	if len(results) < 2 {
		t.Fatalf("results = %+v, want every task of %s", results, suite)
	}
	for _, r := range results {
		if !r.Passed {
			t.Errorf("task %s failed: %s", r.Name, r.Check)
		}
	}
	if _, err := os.Stat(filepath.Join(e.home, "agent.db")); err == nil {
		t.Error("eval runs were journaled in the user's AGENT_HOME")
	}

	bad := t.TempDir()
	os.MkdirAll(filepath.Join(bad, "noop", "workspace"), 0o755)
	os.WriteFile(filepath.Join(bad, "noop", "workspace", "f.txt"), []byte("x\n"), 0o644)
	os.WriteFile(filepath.Join(bad, "noop", "task.toml"), []byte("prompt = \"change f.txt\"\ncheck = \"grep -q y f.txt\"\n"), 0o644)
	os.WriteFile(filepath.Join(bad, "noop", "script.json"), []byte(`{"turns":[{"text":"done (but nothing changed)"}]}`), 0o644)
	r := e.run("eval", bad, "--min-success", "0.5")
	if r.code != 1 || !strings.Contains(r.stderr, "0 passed, 1 failed") {
		t.Errorf("a failing suite: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	if r := e.run("eval", filepath.Join(bad, "missing")); r.code != 2 {
		t.Errorf("a missing suite: exit %d", r.code)
	}
}
