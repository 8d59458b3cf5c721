package e2e

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
)

// agent eval --live --budget-usd X gives each task's run that budget: a
// generous one changes nothing; one the first request (its input and the
// answer reserve at gpt-4.1-mini's prices, about $0.0135) would cross is
// never sent, and the task fails saying so. Without --live it is refused.
func TestEvalLiveBudget(t *testing.T) {
	task := filepath.Join(repoRoot(), "e2e", "testdata", "evalsuite", "edit", "fix-greeting")
	url, requests := liveServer(t, filepath.Join(task, "turns.json"))
	e := newEnv(t, "")
	extra := append(goEnv(t), "OPENAI_BASE_URL="+url, "AGENT_MODEL=gpt-4.1-mini")
	r := e.runEnv(extra, "eval", task, "--live", "--budget-usd", "5", "--json", "--min-success", "1")
	if r.code != 0 {
		t.Fatalf("agent eval --live --budget-usd 5: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	if got := requests.Load(); got != 4 {
		t.Fatalf("a $5 budget: the live server answered %d requests, want the task's 4", got)
	}
	r = e.runEnv(extra, "eval", task, "--live", "--budget-usd", "0.01", "--json", "--min-success", "1")
	if r.code != 1 {
		t.Fatalf("a $0.01 budget: exit %d, want 1 (the task fails)\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	if got := requests.Load(); got != 4 {
		t.Errorf("a $0.01 budget: the live server got %d more requests, want none", got-4)
	}
	var rep evalReport
	if err := json.Unmarshal([]byte(r.stdout), &rep); err != nil || len(rep.Tasks) != 1 {
		t.Fatalf("report: %v\n%s", err, r.stdout)
	}
	if tk := rep.Tasks[0]; tk.Passed || tk.Status != "budget_exhausted" || !strings.Contains(strings.Join(tk.Failures, "\n"), "usd budget reached") {
		t.Errorf("the task under $0.01: passed %v, status %q, failures %q; want it failed, budget_exhausted, naming the usd budget", tk.Passed, tk.Status, tk.Failures)
	}
	r = e.runEnv(extra, "eval", task, "--budget-usd", "5")
	if r.code != 2 || !strings.Contains(r.stderr, "--live") {
		t.Errorf("--budget-usd without --live: exit %d, want 2 naming --live\n%s", r.code, r.stderr)
	}
}
