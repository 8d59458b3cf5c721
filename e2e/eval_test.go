package e2e

import (
	"encoding/json"
	"fmt"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// evalReport is the part of agent eval --json the tests read.
type evalReport struct {
	Live  bool `json:"live"`
	Tasks []struct {
		Name               string `json:"name"`
		Category           string `json:"category"`
		Passed             bool   `json:"passed"`
		Status             string `json:"status"`
		Class              string `json:"class"`
		Steps              int    `json:"steps"`
		ToolCalls          int    `json:"tool_calls"`
		Tokens             struct{ Input, Output int }
		CostUSD            *float64 `json:"cost_usd"`
		PermissionRequests int      `json:"permission_requests"`
		StoppedAfterDenial *bool    `json:"stopped_after_denial"`
		RollbackOK         *bool    `json:"rollback_ok"`
		EvidenceCited      []string `json:"evidence_cited"`
		DiffMinimality     *float64 `json:"diff_minimality"`
		Failures           []string `json:"failures"`
	} `json:"tasks"`
	Summary struct {
		Tasks       int      `json:"tasks"`
		Passed      int      `json:"passed"`
		SuccessRate float64  `json:"success_rate"`
		CostUSD     *float64 `json:"cost_usd"`
	} `json:"summary"`
}

func (r *evalReport) names() []string {
	var out []string
	for _, t := range r.Tasks {
		out = append(out, t.Name)
	}
	return out
}

func repoRoot() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Dir(filepath.Dir(file))
}

// goEnv lets the tasks' go test checks use the machine's build cache (each
// test has a fresh HOME).
func goEnv(t *testing.T) []string {
	t.Helper()
	var env []string
	for _, v := range []string{"GOCACHE", "GOMODCACHE", "GOPATH"} {
		out, err := exec.Command("go", "env", v).Output()
		if err == nil && strings.TrimSpace(string(out)) != "" {
			env = append(env, v+"="+strings.TrimSpace(string(out)))
		}
	}
	return append(env, "GOFLAGS=-mod=mod", "GOTOOLCHAIN=local")
}

// evalJSON runs agent eval with args and decodes its report.
func evalJSON(t *testing.T, e *env, wantCode int, args ...string) (evalReport, result) {
	t.Helper()
	r := e.runEnv(goEnv(t), append([]string{"eval"}, args...)...)
	if r.code != wantCode {
		t.Fatalf("agent eval %v: exit %d, want %d\n%s\n%s", args, r.code, wantCode, r.stdout, r.stderr)
	}
	var rep evalReport
	if err := json.Unmarshal([]byte(r.stdout), &rep); err != nil {
		t.Fatalf("agent eval %v: bad JSON: %v\n%s", args, err, r.stdout)
	}
	return rep, r
}

// taskFolders lists the task folders under root, by the test's own walk.
func taskFolders(t *testing.T, root string) []string {
	t.Helper()
	var names []string
	filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && d.Name() == "task.toml" && !strings.Contains(p, string(filepath.Separator)+"fixture"+string(filepath.Separator)) {
			rel, _ := filepath.Rel(root, filepath.Dir(p))
			names = append(names, filepath.ToSlash(rel))
		}
		return nil
	})
	sort.Strings(names)
	return names
}

// The repository's own suite passes by replay through the real loop, every
// task once, with the threshold enforced (make test runs this).
func TestEvalSuite(t *testing.T) {
	suite := filepath.Join(repoRoot(), "evals")
	e := newEnv(t, "")
	rep, r := evalJSON(t, e, 0, suite, "--json", "--min-success", "1")
	if want := taskFolders(t, suite); !slices.Equal(rep.names(), want) {
		t.Errorf("tasks run = %v, want every task of %s: %v", rep.names(), suite, want)
	}
	for _, task := range rep.Tasks {
		if !task.Passed {
			t.Errorf("task %s failed: %v", task.Name, task.Failures)
		}
	}
	if rep.Summary.SuccessRate != 1 || rep.Summary.Tasks != len(rep.Tasks) {
		t.Errorf("summary = %+v", rep.Summary)
	}
	if r.stderr != "" {
		t.Errorf("not a terminal, yet agent eval wrote to stderr: %q", r.stderr)
	}
	if _, err := os.Stat(filepath.Join(e.home, "agent.db")); err == nil {
		t.Error("eval runs were journaled in the user's AGENT_HOME")
	}
}

// The engine's own tasks (e2e/testdata/evalsuite) cover approvals, a
// person's denial, SIGKILL at an event and mid-stream then resume, rollback
// and its undo, and server dialects; each passes and its metrics say so.
func TestEvalEngineFeatures(t *testing.T) {
	e := newEnv(t, "")
	rep, _ := evalJSON(t, e, 0, filepath.Join(repoRoot(), "e2e", "testdata", "evalsuite"), "--json", "--min-success", "1", "-j", "2")
	by := map[string]int{}
	for i, task := range rep.Tasks {
		by[task.Name] = i
		if !task.Passed {
			t.Errorf("%s failed: %v", task.Name, task.Failures)
		}
	}
	get := func(name string) int {
		i, ok := by[name]
		if !ok {
			t.Fatalf("no task %s in %v", name, rep.names())
		}
		return i
	}
	deny := rep.Tasks[get("recovery/deny-stop")]
	if deny.Status != "stopped" || deny.StoppedAfterDenial == nil || !*deny.StoppedAfterDenial || deny.PermissionRequests != 1 {
		t.Errorf("deny-stop: status %s, stopped_after_denial %v, permission requests %d", deny.Status, deny.StoppedAfterDenial, deny.PermissionRequests)
	}
	if rb := rep.Tasks[get("recovery/rollback-undo")]; rb.RollbackOK == nil || !*rb.RollbackOK {
		t.Errorf("rollback-undo: rollback_ok = %v", rb.RollbackOK)
	}
	if ask := rep.Tasks[get("tools/ask-approve")]; ask.PermissionRequests != 1 || ask.DiffMinimality == nil || *ask.DiffMinimality != 1 {
		t.Errorf("ask-approve: permission requests %d, minimality %v", ask.PermissionRequests, ask.DiffMinimality)
	}
	if sk := rep.Tasks[get("recovery/stream-kill")]; !slices.Equal(sk.EvidenceCited, []string{"a.txt"}) || sk.Steps < 3 {
		t.Errorf("stream-kill: evidence %v, steps %d (the killed request is a step)", sk.EvidenceCited, sk.Steps)
	}
	if fg := rep.Tasks[get("edit/fix-greeting")]; fg.Category != "edit" || fg.ToolCalls != 4 || fg.Tokens.Input == 0 {
		t.Errorf("fix-greeting: %+v", fg)
	}
}

// copyTree copies a directory.
func copyTree(t *testing.T, from, to string) {
	t.Helper()
	if err := os.CopyFS(to, os.DirFS(from)); err != nil {
		t.Fatal(err)
	}
}

func writeFile(t *testing.T, p, body string) {
	t.Helper()
	os.MkdirAll(filepath.Dir(p), 0o755)
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
}

// Breaking an expected outcome fails the task, and --min-success 1 exits 1.
// Each broken expectation is caught with a failure line that says what.
func TestEvalBrokenExpectationsFail(t *testing.T) {
	src := filepath.Join(repoRoot(), "e2e", "testdata", "evalsuite")
	suite := t.TempDir()
	breaks := []struct {
		task, toml, want string
	}{
		{"edit/fix-greeting", "prompt = \"make the greeting test pass\"\n[expect]\nfiles = [{ path = \"greet.go\", contains = \"Howdy\" }]\n", `does not contain "Howdy"`},
		{"tools/ask-approve", "prompt = \"write notes.txt\"\n[policy]\nmode = \"ask\"\n[[policy.decisions]]\ncall = \"call_1\"\ndecision = \"allow\"\n[expect]\ntrace = [{ assert = \"denied_call_never_ran\", call = \"call_1\" }]\n", "call_1 ran"},
		{"tools/ask-approve", "prompt = \"write notes.txt\"\n[policy]\nmode = \"ask\"\n", "no decision left"},
		{"recovery/deny-stop", "prompt = \"clean the build\"\n[policy]\nmode = \"ask\"\n[[policy.decisions]]\ncall = \"call_1\"\ndecision = \"deny\"\n[expect]\nstatus = \"completed\"\n", "the run ended stopped, want completed"},
		{"recovery/sigkill-command", "prompt = \"append\"\n[[faults]]\nkind = \"sigkill\"\nat = \"compaction\"\n", "never fired"},
		{"recovery/rollback-undo", "prompt = \"bump a.txt\"\n[expect]\ntrace = [{ assert = \"rollback_restored\" }]\n", "no rollback event"},
		{"tools/dialect", "prompt = \"what does a.txt say?\"\n[expect]\ntrace = [{ assert = \"cites\", paths = [\"b.txt\"] }, { assert = \"no_secret_in_requests\", secrets = [\"alpha\"] }]\n", "does not name b.txt"},
		{"tools/dialect", "prompt = \"what does a.txt say?\"\n[expect]\ntrace = [{ assert = \"no_secret_in_requests\", secrets = [\"alpha\"] }]\n", `holds "alpha"`},
	}
	for i, b := range breaks {
		dir := filepath.Join(suite, fmt.Sprintf("broken-%d", i))
		copyTree(t, filepath.Join(src, filepath.FromSlash(b.task)), dir)
		writeFile(t, filepath.Join(dir, "task.toml"), b.toml)
	}
	good := filepath.Join(suite, "good")
	copyTree(t, filepath.Join(src, "tools", "dialect"), good)

	e := newEnv(t, "")
	rep, r := evalJSON(t, e, 1, suite, "--json", "--min-success", "1")
	if !strings.Contains(r.stderr, "under --min-success 100%") {
		t.Errorf("exit 1 without saying why: %q", r.stderr)
	}
	for i, b := range breaks {
		task := rep.Tasks[i]
		if task.Passed || !strings.Contains(strings.Join(task.Failures, "\n"), b.want) {
			t.Errorf("%s (%s broken): passed %v, failures %v; want one saying %q", task.Name, b.task, task.Passed, task.Failures, b.want)
		}
	}
	if last := rep.Tasks[len(rep.Tasks)-1]; last.Name != "good" || !last.Passed {
		t.Errorf("the intact task: %+v", last)
	}
	// Under the threshold it is not a failure of the command.
	evalJSON(t, e, 0, good, "--json", "--min-success", "1")
}

// Shards 1/3, 2/3, 3/3 together run every task exactly once, and agent
// eval merge of their reports (given out of order) prints the unsharded
// report, timings aside; a shard given twice, a missing one and an unsharded
// report are refused.
func TestEvalShards(t *testing.T) {
	suite := filepath.Join(repoRoot(), "e2e", "testdata", "evalsuite")
	e := newEnv(t, "")
	dir := t.TempDir()
	var all, files []string
	for i := 1; i <= 3; i++ {
		rep, r := evalJSON(t, e, 0, suite, "--json", "--shard", fmt.Sprintf("%d/3", i))
		all = append(all, rep.names()...)
		f := filepath.Join(dir, fmt.Sprintf("s%d.json", i))
		writeFile(t, f, r.stdout)
		files = append(files, f)
	}
	sort.Strings(all)
	if want := taskFolders(t, suite); !slices.Equal(all, want) {
		t.Errorf("the three shards ran %v, want each of %v once", all, want)
	}
	_, whole := evalJSON(t, e, 0, suite, "--json")
	merged := e.run("eval", "merge", files[2], files[0], files[1])
	if merged.code != 0 {
		t.Fatalf("agent eval merge: exit %d\n%s", merged.code, merged.stderr)
	}
	if got, want := withoutTimings(t, merged.stdout), withoutTimings(t, whole.stdout); got != want {
		t.Errorf("the merged report differs from the unsharded one:\nmerged: %s\nwhole:  %s", got, want)
	}
	if text := e.run("eval", "merge", "--text", files[1], files[2], files[0]); text.code != 0 || !strings.Contains(text.stdout, "TASK") {
		t.Errorf("agent eval merge --text: exit %d\n%s%s", text.code, text.stdout, text.stderr)
	}
	unsharded := filepath.Join(dir, "whole.json")
	writeFile(t, unsharded, whole.stdout)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{files[0], files[0], files[1], files[2]}, "given twice"},
		{[]string{files[0], files[1]}, "shard 3/3 missing"},
		{[]string{files[0], unsharded}, "not a shard's report"},
	} {
		r := e.run(append([]string{"eval", "merge", "--json"}, c.args...)...)
		if r.code != 2 || !strings.Contains(r.stderr, c.want) || r.stdout != "" {
			t.Errorf("agent eval merge %v: exit %d, stdout %q, stderr %q; want exit 2 saying %q", c.args, r.code, r.stdout, r.stderr, c.want)
		}
	}
}

// withoutTimings is a report's JSON with its seconds fields zeroed and the
// run ids (each run's own) blanked, re-encoded canonically.
func withoutTimings(t *testing.T, report string) string {
	t.Helper()
	var v map[string]any
	if err := json.Unmarshal([]byte(report), &v); err != nil {
		t.Fatalf("not a JSON report: %v\n%s", err, report)
	}
	v["summary"].(map[string]any)["seconds"] = 0
	for _, task := range v["tasks"].([]any) {
		m := task.(map[string]any)
		m["seconds"] = 0
		delete(m, "run_id")
	}
	b, _ := json.Marshal(v)
	return string(b)
}

// Bad flags and bad tasks exit 2 naming the fix; nothing runs.
func TestEvalUsageErrors(t *testing.T) {
	suite := filepath.Join(repoRoot(), "e2e", "testdata", "evalsuite")
	bad := t.TempDir()
	copyTree(t, filepath.Join(suite, "tools", "dialect"), filepath.Join(bad, "t"))
	writeFile(t, filepath.Join(bad, "t", "task.toml"), "prompt = \"p\"\n[expect]\nstauts = \"completed\"\n")
	e := newEnv(t, "")
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{suite, "--shard", "4/3"}, "1 <= I <= N"},
		{[]string{suite, "--min-success", "1.5"}, "between 0 and 1"},
		{[]string{suite, "--baseline", filepath.Join(bad, "none.json")}, "cannot read the baseline"},
		{[]string{filepath.Join(bad, "missing")}, "not a directory of eval tasks"},
		{[]string{bad}, filepath.Join(bad, "t", "task.toml") + `: unknown key "expect.stauts"`},
		{[]string{suite, "-j", "0"}, "at least 1"},
	} {
		r := e.run(append([]string{"eval"}, c.args...)...)
		if r.code != 2 || !strings.Contains(r.stderr, c.want) || r.stdout != "" {
			t.Errorf("agent eval %v: exit %d, stdout %q, stderr %q; want exit 2 saying %q", c.args, r.code, r.stdout, r.stderr, c.want)
		}
	}
}

// --report writes markdown; with --baseline (an earlier --json) it has the
// chart of the metrics against it.
func TestEvalReportWithBaseline(t *testing.T) {
	suite := filepath.Join(repoRoot(), "e2e", "testdata", "evalsuite")
	e := newEnv(t, "")
	r := e.runEnv(goEnv(t), "eval", suite, "--json", "--shard", "1/2")
	if r.code != 0 {
		t.Fatalf("baseline run: exit %d\n%s", r.code, r.stderr)
	}
	base := filepath.Join(t.TempDir(), "base.json")
	writeFile(t, base, r.stdout)
	md := filepath.Join(t.TempDir(), "report.md")
	r = e.runEnv(goEnv(t), "eval", suite, "--shard", "2/2", "--report", md, "--baseline", base)
	if r.code != 0 {
		t.Fatalf("report run: exit %d\n%s", r.code, r.stderr)
	}
	body := readFile(t, md)
	for _, want := range []string{"# agent eval report", "## Summary", "## Against the baseline", "success rate", "tool calls", "█", "## Tasks", "| recovery/deny-stop | pass | stopped |"} {
		if !strings.Contains(body, want) {
			t.Errorf("report lacks %q:\n%s", want, body)
		}
	}
	if !strings.Contains(r.stdout, "against the baseline") || !strings.Contains(r.stdout, "TASK") {
		t.Errorf("the text report lacks the table or the chart:\n%s", r.stdout)
	}
}

// liveServer is a minimal OpenAI-compatible chat-completions server written
// here, not internal/replay: stateless, it answers a request with the turn
// whose number is the count of assistant messages so far, streaming it as
// SSE with usage.
func liveServer(t *testing.T, turnsFile string) (url string, requests *atomic.Int32) {
	t.Helper()
	var script struct {
		Turns []struct {
			Text      string `json:"text"`
			ToolCalls []struct {
				ID, Name, Arguments string
			} `json:"tool_calls"`
			Usage struct{ Input, Output int } `json:"usage"`
		} `json:"turns"`
	}
	if err := json.Unmarshal([]byte(readFile(t, turnsFile)), &script); err != nil {
		t.Fatal(err)
	}
	requests = new(atomic.Int32)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			Model    string `json:"model"`
			Messages []struct {
				Role string `json:"role"`
			} `json:"messages"`
		}
		if r.URL.Path != "/v1/chat/completions" || json.NewDecoder(r.Body).Decode(&req) != nil {
			http.Error(w, `{"error":{"message":"bad request"}}`, http.StatusBadRequest)
			return
		}
		requests.Add(1)
		n := 0
		for _, m := range req.Messages {
			if m.Role == "assistant" {
				n++
			}
		}
		if n >= len(script.Turns) {
			http.Error(w, `{"error":{"message":"no more turns"}}`, http.StatusBadRequest)
			return
		}
		turn := script.Turns[n]
		w.Header().Set("Content-Type", "text/event-stream")
		send := func(v any) {
			b, _ := json.Marshal(v)
			fmt.Fprintf(w, "data: %s\n\n", b)
			w.(http.Flusher).Flush()
		}
		chunk := func(delta map[string]any, finish any) map[string]any {
			return map[string]any{"id": "live-1", "object": "chat.completion.chunk", "model": req.Model,
				"choices": []any{map[string]any{"index": 0, "delta": delta, "finish_reason": finish}}}
		}
		send(chunk(map[string]any{"role": "assistant", "content": turn.Text}, nil))
		for i, tc := range turn.ToolCalls {
			send(chunk(map[string]any{"tool_calls": []any{map[string]any{"index": i, "id": tc.ID, "type": "function",
				"function": map[string]any{"name": tc.Name, "arguments": tc.Arguments}}}}, nil))
		}
		finish := "stop"
		if len(turn.ToolCalls) > 0 {
			finish = "tool_calls"
		}
		send(chunk(map[string]any{}, finish))
		send(map[string]any{"id": "live-1", "object": "chat.completion.chunk", "model": req.Model, "choices": []any{},
			"usage": map[string]int{"prompt_tokens": turn.Usage.Input, "completion_tokens": turn.Usage.Output, "total_tokens": turn.Usage.Input + turn.Usage.Output}})
		fmt.Fprint(w, "data: [DONE]\n\n")
	}))
	t.Cleanup(srv.Close)
	return srv.URL + "/v1", requests
}

// --live runs the tasks against the configured model (here a local server
// written in this test, reached through OPENAI_BASE_URL and AGENT_MODEL as
// agent run resolves them), not the replay server, and reports the cost.
func TestEvalLive(t *testing.T) {
	task := filepath.Join(repoRoot(), "e2e", "testdata", "evalsuite", "edit", "fix-greeting")
	url, requests := liveServer(t, filepath.Join(task, "turns.json"))
	e := newEnv(t, "")
	extra := append(goEnv(t), "OPENAI_BASE_URL="+url, "AGENT_MODEL=gpt-4.1-mini")
	r := e.runEnv(extra, "eval", task, "--live", "--json", "--min-success", "1")
	if r.code != 0 {
		t.Fatalf("agent eval --live: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	var rep evalReport
	if err := json.Unmarshal([]byte(r.stdout), &rep); err != nil {
		t.Fatal(err)
	}
	if !rep.Live || len(rep.Tasks) != 1 || !rep.Tasks[0].Passed {
		t.Fatalf("live report: %+v", rep)
	}
	if got := requests.Load(); got != 4 {
		t.Errorf("the live server answered %d requests, want the task's 4 turns", got)
	}
	task0 := rep.Tasks[0]
	// Usage reported by the server: 4296 input, 163 output tokens at gpt-4.1-mini's $0.40/$1.60 per million.
	if task0.Tokens.Input != 4296 || task0.CostUSD == nil || *task0.CostUSD != 0.001979 {
		t.Errorf("live tokens %+v, cost %v; want 4296 input and $0.001979", task0.Tokens, task0.CostUSD)
	}
	if rep.Summary.CostUSD == nil || *rep.Summary.CostUSD != *task0.CostUSD {
		t.Errorf("summary cost = %v", rep.Summary.CostUSD)
	}

	// An unknown model: tokens, no cost.
	extra = append(goEnv(t), "OPENAI_BASE_URL="+url, "AGENT_MODEL=local-coder")
	r = e.runEnv(extra, "eval", task, "--live", "--json")
	var unknown evalReport
	if err := json.Unmarshal([]byte(r.stdout), &unknown); err != nil || len(unknown.Tasks) != 1 || unknown.Tasks[0].CostUSD != nil || unknown.Tasks[0].Tokens.Input == 0 {
		t.Errorf("an unknown model: %v, %+v", err, unknown.Tasks)
	}
}

// On a terminal a progress line per task goes to stderr; stdout keeps the
// report alone.
func TestEvalProgressOnTerminal(t *testing.T) {
	tm := newTmux(t)
	suite := filepath.Join(repoRoot(), "e2e", "testdata", "evalsuite")
	out := filepath.Join(t.TempDir(), "out.json")
	env := append(goEnv(t), "PATH="+os.Getenv("PATH"), "HOME="+t.TempDir(), "AGENT_HOME="+filepath.Join(t.TempDir(), "state"))
	tm.start(160, 20, env, t.TempDir(), fmt.Sprintf("%q eval %q --shard 1/3 --json > %q; echo EXIT=$?; sleep 60", agentBin, suite, out))
	screen := tm.wait(`EXIT=\d+`, 90*time.Second)
	for _, want := range []string{`\[1/3\] pass edit/fix-greeting completed \d+\.\ds`, `\[2/3\] pass \S+`, `\[3/3\] pass \S+`, `EXIT=0`} {
		if !regexp.MustCompile(want).MatchString(screen) {
			t.Errorf("the terminal lacks %q:\n%s", want, screen)
		}
	}
	var rep evalReport
	if err := json.Unmarshal([]byte(readFile(t, out)), &rep); err != nil || len(rep.Tasks) != 3 {
		t.Errorf("stdout is not the report alone: %v\n%s", err, readFile(t, out))
	}
}
