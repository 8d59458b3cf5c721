package e2e

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// budgetScript is n turns that each append a line to log.txt and report
// usage in/out tokens, then a final answer.
func budgetScript(n, in, out int, word string) string {
	var turns []string
	for i := range n {
		args := jsonArgs(map[string]any{"command": fmt.Sprintf("echo %s%d >> log.txt", word, i)})
		turns = append(turns, fmt.Sprintf(`{"tool_calls": [{"id": "call_%d", "name": "run_command", "arguments": %q}], "usage": {"input": %d, "output": %d}}`, i, args, in, out))
	}
	turns = append(turns, fmt.Sprintf(`{"text": "all done", "usage": {"input": %d, "output": %d}}`, in, out))
	return `{"turns": [` + strings.Join(turns, ",") + `]}`
}

// budgetEvents reads the run's events that carry a budget or a spend.
type budgetEvent struct {
	Type   string `json:"type"`
	Status string `json:"status"`
	Budget *struct {
		Tokens int64   `json:"tokens"`
		USD    float64 `json:"usd"`
		Time   string  `json:"time"`
	} `json:"budget"`
	Spent *struct {
		Tokens int64    `json:"tokens"`
		USD    *float64 `json:"usd"`
	} `json:"spent"`
	To *struct {
		Tokens int64   `json:"tokens"`
		USD    float64 `json:"usd"`
	} `json:"to"`
}

func (e *env) budgetEvents(id string) []budgetEvent {
	var evs []budgetEvent
	e.mustJSON(&evs, "trace", id, "--json")
	return evs
}

type runRow struct {
	RunID   string   `json:"run_id"`
	Status  string   `json:"status"`
	Tokens  int      `json:"tokens"`
	CostUSD *float64 `json:"cost_usd"`
}

func (e *env) runRow(id string, extra ...string) runRow {
	e.t.Helper()
	r := e.runEnv(extra, "runs", "--json")
	var rows []runRow
	if err := json.Unmarshal([]byte(r.stdout), &rows); err != nil {
		e.t.Fatalf("runs --json: %v\n%s%s", err, r.stdout, r.stderr)
	}
	for _, row := range rows {
		if row.RunID == id {
			return row
		}
	}
	e.t.Fatalf("run %s not in runs --json", id)
	return runRow{}
}

// A token budget stops the run before the request that would cross it: the
// server never gets it, the run exits 4 with a line naming the budget, and
// resume with a raised budget sends only the remaining requests and runs
// no command twice.
func TestBudgetTokensStopsAndResumes(t *testing.T) {
	e := newEnv(t, budgetScript(3, 150000, 50000, "s"))
	r := e.run("run", "--model", "gpt-4.1", "--approval", "full-auto", "--budget-tokens", "400k", "append three lines")
	if r.code != 4 {
		t.Fatalf("exit %d, want 4 (budget):\n%s", r.code, r.stderr)
	}
	id := runID(t, r.stderr)
	if n := len(e.srv.Requests()); n != 2 {
		t.Fatalf("the server got %d requests, want 2: the 3rd would cross 400000 tokens", n)
	}
	if !strings.Contains(r.stderr, "token budget reached: 400000 tokens spent of 400000") || !strings.Contains(r.stderr, "agent resume "+id+" --budget-tokens") {
		t.Errorf("stderr does not name the limit, the figures and the way on:\n%s", r.stderr)
	}
	if got := readFile(t, filepath.Join(e.ws, "log.txt")); got != "s0\ns1\n" {
		t.Fatalf("log.txt = %q before the resume", got)
	}
	row := e.runRow(id)
	if row.Status != "budget_exhausted" {
		t.Fatalf("status %q, want budget_exhausted", row.Status)
	}
	// gpt-4.1 at $2/M in, $8/M out: 2 x (0.3 + 0.4) = $1.40
	if row.CostUSD == nil || fmt.Sprintf("%.4f", *row.CostUSD) != "1.4000" {
		t.Errorf("cost_usd = %v, want 1.40", row.CostUSD)
	}
	evs := e.budgetEvents(id)
	var spent []int64
	for _, ev := range evs {
		switch ev.Type {
		case "run_started":
			if ev.Budget == nil || ev.Budget.Tokens != 400000 {
				t.Errorf("run_started budget = %+v, want tokens 400000", ev.Budget)
			}
		case "model_request":
			if ev.Spent == nil {
				t.Fatalf("a model_request without spent")
			}
			spent = append(spent, ev.Spent.Tokens)
		}
	}
	if fmt.Sprint(spent) != "[0 200000]" {
		t.Errorf("model_request spent tokens = %v, want [0 200000]", spent)
	}

	r = e.run("resume", id, "--headless", "--approval", "full-auto", "--budget-tokens", "100000000")
	if r.code != 0 {
		t.Fatalf("resume with a raised budget: exit %d\n%s", r.code, r.stderr)
	}
	if n := len(e.srv.Requests()); n != 4 {
		t.Fatalf("the server got %d requests in all, want 4 (only the remaining two after the resume)", n)
	}
	if got := readFile(t, filepath.Join(e.ws, "log.txt")); got != "s0\ns1\ns2\n" {
		t.Fatalf("log.txt = %q after the resume, want s0 s1 s2 (nothing re-run)", got)
	}
	if err := e.srv.Err(); err != nil {
		t.Fatal(err)
	}
	changed := 0
	for _, ev := range e.budgetEvents(id) {
		if ev.Type == "budget_changed" {
			changed++
			if ev.To == nil || ev.To.Tokens != 100000000 {
				t.Errorf("budget_changed to %+v, want tokens 100000000", ev.To)
			}
		}
	}
	if changed != 1 {
		t.Errorf("%d budget_changed events, want 1", changed)
	}
	if st := e.runRow(id).Status; st != "completed" {
		t.Errorf("status after the resume %q, want completed", st)
	}
}

// A dollar budget prices the tokens with the user's [models."NAME"] table;
// a project file cannot make tokens cheaper nor raise the budget.
func TestBudgetUSDFromConfigPrices(t *testing.T) {
	e := newEnv(t, budgetScript(3, 100000, 1000, "u"))
	xdg := t.TempDir()
	if err := os.MkdirAll(filepath.Join(xdg, "agent"), 0o755); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(xdg, "agent", "config.toml"), "[models.\"fake-model\"]\nwindow = 1000000\nprice_input = 100\nprice_output = 1\n[budget]\nusd = 20.002\n")
	// the repository tries to make the tokens free and the budget larger
	writeFile(t, filepath.Join(e.ws, ".agent", "config.toml"), "[models.\"fake-model\"]\nprice_input = 0\nprice_output = 0\n[budget]\nusd = 1000\n")
	cfg := []string{"XDG_CONFIG_HOME=" + xdg}
	r := e.runEnv(cfg, "run", "--model", "fake-model", "--approval", "full-auto", "append three lines")
	if r.code != 4 {
		t.Fatalf("exit %d, want 4 (the user file's usd budget):\n%s", r.code, r.stderr)
	}
	for _, w := range []string{"prices ignored", "may only lower the budget"} {
		if !strings.Contains(r.stderr, w) {
			t.Errorf("stderr lacks the warning %q:\n%s", w, r.stderr)
		}
	}
	if !strings.Contains(r.stderr, "usd budget reached: $20.00 spent of $20.00") {
		t.Errorf("stderr does not name the usd budget and the figures:\n%s", r.stderr)
	}
	_, after, _ := strings.Cut(r.stderr, "\nrun: ") // after the config warnings
	id := runID(t, "run: "+after)
	if n := len(e.srv.Requests()); n != 2 {
		t.Fatalf("the server got %d requests, want 2", n)
	}
	if row := e.runRow(id, cfg...); row.CostUSD == nil || fmt.Sprintf("%.3f", *row.CostUSD) != "20.002" {
		t.Errorf("cost_usd = %v, want 20.002", row.CostUSD)
	}
	r = e.runEnv(cfg, "resume", id, "--headless", "--approval", "full-auto", "--budget-usd", "1000")
	if r.code != 0 {
		t.Fatalf("resume --budget-usd 1000: exit %d\n%s", r.code, r.stderr)
	}
	if n := len(e.srv.Requests()); n != 4 {
		t.Fatalf("the server got %d requests in all, want 4", n)
	}
	if got := readFile(t, filepath.Join(e.ws, "log.txt")); got != "u0\nu1\nu2\n" {
		t.Fatalf("log.txt = %q, want u0 u1 u2", got)
	}
	r = e.runEnv(cfg, "trace", id)
	if !strings.Contains(r.stdout, "cost: $40.00") {
		t.Errorf("agent trace does not show the run's cost ($40.004):\n%s", r.stdout)
	}
}

// A usd budget on a model without a price cannot be kept: a usage error
// before anything is sent; a bad budget flag or config value is exit 2.
func TestBudgetUsageErrors(t *testing.T) {
	e := newEnv(t, `{"turns": [{"text": "hi"}]}`)
	r := e.run("run", "--model", "no-such-priced-model", "--budget-usd", "5", "hi")
	if r.code != 2 || !strings.Contains(r.stderr, `[models."no-such-priced-model"]`) {
		t.Errorf("usd budget on an unpriced model: exit %d, want 2 naming the fix:\n%s", r.code, r.stderr)
	}
	for _, args := range [][]string{{"--budget-tokens", "-5"}, {"--budget-usd", "lots"}, {"--budget-time", "3d"}} {
		r := e.run(append([]string{"run", "--model", "gpt-4.1"}, append(args, "hi")...)...)
		if r.code != 2 || !strings.Contains(r.stderr, args[0]) {
			t.Errorf("%v: exit %d, want 2 naming the flag:\n%s", args, r.code, r.stderr)
		}
	}
	xdg := t.TempDir()
	writeFile(t, filepath.Join(xdg, "agent", "config.toml"), "[models.\"gpt-4.1\"]\nprice_input = \"cheap\"\n")
	r = e.runEnv([]string{"XDG_CONFIG_HOME=" + xdg}, "run", "--model", "gpt-4.1", "hi")
	if r.code != 2 || !strings.Contains(r.stderr, "price_input") {
		t.Errorf("a bad price: exit %d, want 2 naming the key:\n%s", r.code, r.stderr)
	}
	if n := len(e.srv.Requests()); n != 0 {
		t.Errorf("the server got %d requests from runs that should not start", n)
	}
}

// A time budget: a run whose first command takes longer than its budget
// does not send the next request.
func TestBudgetTime(t *testing.T) {
	args := jsonArgs(map[string]any{"command": "sleep 1.2; echo slow >> log.txt"})
	e := newEnv(t, fmt.Sprintf(`{"turns": [{"tool_calls": [{"id": "call_0", "name": "run_command", "arguments": %q}]}, {"text": "done"}]}`, args))
	r := e.run("run", "--model", "gpt-4.1", "--approval", "full-auto", "--budget-time", "1s", "be slow")
	if r.code != 4 || !strings.Contains(r.stderr, "time budget reached") {
		t.Fatalf("exit %d, want 4 with the time budget named:\n%s", r.code, r.stderr)
	}
	if n := len(e.srv.Requests()); n != 1 {
		t.Fatalf("the server got %d requests, want 1", n)
	}
	id := runID(t, r.stderr)
	r = e.run("resume", id, "--headless", "--approval", "full-auto", "--budget-time", "10m")
	if r.code != 0 {
		t.Fatalf("resume --budget-time 10m: exit %d\n%s", r.code, r.stderr)
	}
	if got := readFile(t, filepath.Join(e.ws, "log.txt")); got != "slow\n" {
		t.Fatalf("log.txt = %q, want the command once", got)
	}
}

// A SIGKILL right after the budget pause is journaled changes nothing: the
// run is budget_exhausted, and a resume with a raised budget sends only the
// remaining requests and runs no command twice.
func TestBudgetPauseSurvivesSIGKILL(t *testing.T) {
	e := newEnv(t, budgetScript(3, 150000, 50000, "k"))
	e.killAfterEvent(t, "run_finished", "run", "--json", "--model", "gpt-4.1", "--approval", "full-auto", "--budget-tokens", "400000", "append three lines")
	var rows []runRow
	e.mustJSON(&rows, "runs", "--json")
	if len(rows) != 1 || rows[0].Status != "budget_exhausted" {
		t.Fatalf("runs after the kill: %+v, want one budget_exhausted run", rows)
	}
	if n := len(e.srv.Requests()); n != 2 {
		t.Fatalf("the server got %d requests, want 2", n)
	}
	r := e.run("resume", rows[0].RunID, "--headless", "--approval", "full-auto", "--budget-tokens", "2M")
	if r.code != 0 {
		t.Fatalf("resume: exit %d\n%s", r.code, r.stderr)
	}
	if n := len(e.srv.Requests()); n != 4 {
		t.Fatalf("the server got %d requests in all, want 4", n)
	}
	if got := readFile(t, filepath.Join(e.ws, "log.txt")); got != "k0\nk1\nk2\n" {
		t.Fatalf("log.txt = %q, want k0 k1 k2", got)
	}
}

// In a real terminal: the status bar's budget meter and cost, the warning
// past 80 %, the pause at the budget, and /budget raising it so that the
// run finishes.
func TestTUIBudgetInTmux(t *testing.T) {
	tm := newTmux(t)
	e := newEnv(t, budgetScript(3, 100000, 20000, "t"))
	env := append(e.environ(), "AGENT_APPROVAL=full-auto", "AGENT_MODEL=gpt-4.1")
	tm.start(120, 40, env, e.ws, agentBin+" --budget-tokens 300k; echo AGENT-EXITED-$?; sleep 60")
	tm.wait(`Ask, or /`, 15*time.Second)
	tm.typeText("append three lines")
	tm.keys("Enter")
	// 3 requests of 120k tokens fit a 300k budget (each checked with its
	// input and the answer reserve); the 4th would cross it
	// the status bar says "budget reached" a frame before the transcript's
	// pause line: wait for the line
	s := tm.wait(`paused: token budget reached`, 30*time.Second)
	// gpt-4.1: 3 x (100k at $2/M + 20k at $8/M) = $1.08
	for _, want := range []string{"80% of the run's 300k tokens budget is spent", "paused: token budget reached: 360000 tokens spent of 300000", "$1.08"} {
		if !strings.Contains(s, want) {
			t.Errorf("the screen lacks %q:\n%s", want, s)
		}
	}
	if n := len(e.srv.Requests()); n != 3 {
		t.Fatalf("the server got %d requests, want 3", n)
	}
	tm.typeText("/budget tokens 1M")
	tm.keys("Enter")
	tm.wait(`all done`, 15*time.Second)
	tm.wait(`budget 48% of 1M tokens`, 5*time.Second)
	if got := readFile(t, filepath.Join(e.ws, "log.txt")); got != "t0\nt1\nt2\n" {
		t.Fatalf("log.txt = %q, want t0 t1 t2", got)
	}
	tm.keys("C-c")
	tm.keys("C-c")
	tm.wait(`AGENT-EXITED-0`, 10*time.Second)
}
