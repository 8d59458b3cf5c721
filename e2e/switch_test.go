package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// switchEvent is a trace event with the fields of switches.
type switchEvent struct {
	Type   string `json:"type"`
	From   string `json:"from"`
	To     string `json:"to"`
	Source string `json:"source"`
	Status string `json:"status"`
	CallID string `json:"call_id"`
	Output string `json:"output"`
	Model  string `json:"model"`
}

func (e *env) switchTrace(id string) []switchEvent {
	var evs []switchEvent
	e.mustJSON(&evs, "trace", id, "--json")
	return evs
}

// Headless plan mode, through the real program: under --approval plan a
// write is refused to the model as a tool error naming plan mode (it never
// runs), the run pauses at the model's plan with exit 3 (awaiting
// approval); a resume without a decision says how to decide; --deny plan
// --note keeps planning (the note reaches the model, writes are still
// refused) and pauses again; --approve plan --approval auto-edit goes on in
// auto-edit (mode_changed plan -> auto-edit by the user, audited) and the
// write happens.
func TestPlanModeHeadless(t *testing.T) {
	write := func(id, content string) map[string]any {
		return call(id, "write_file", map[string]any{"path": "planned.txt", "content": content})
	}
	e := newEnv(t, script(
		turn("", write("w1", "too early\n")),
		turn("", call("p1", "update_plan", map[string]any{"plan": []map[string]string{{"step": "write planned.txt", "status": "pending"}}})),
		turn("Plan: write planned.txt (PLAN-ONE)."),
		turn("", write("w2", "still too early\n")),
		turn("Plan: write planned.txt, with a header (PLAN-TWO)."),
		turn("", write("w3", "# header\nwritten after approval\n")),
		turn("Done (PLAN-DONE)."),
	))
	planned := filepath.Join(e.ws, "planned.txt")
	r := e.runEnv([]string{"AGENT_MODEL=test-model"}, "run", "--approval", "plan", "write planned.txt")
	if r.code != 3 {
		t.Fatalf("run --approval plan: exit %d, want 3 (paused at the plan)\n%s", r.code, r.stderr)
	}
	id := runID(t, r.stderr)
	if _, err := os.Stat(planned); err == nil {
		t.Fatal("the write ran under plan mode")
	}
	for _, want := range []string{"PLAN-ONE", "1. write planned.txt", "--approve plan"} {
		if !strings.Contains(r.stderr, want) {
			t.Errorf("the pause does not show %q:\n%s", want, r.stderr)
		}
	}
	if st := e.status(id); st != "awaiting_approval" {
		t.Errorf("status %q, want awaiting_approval", st)
	}
	var refused bool
	for _, ev := range e.switchTrace(id) {
		if ev.Type == "tool_result" && ev.CallID == "w1" && ev.Status != "denied" {
			t.Errorf("the write under plan mode ended %q, want denied: %+v", ev.Status, ev)
		}
		if ev.Type == "tool_result" && ev.Status == "denied" && strings.Contains(ev.Output, "plan mode is on") {
			refused = true
		}
	}
	if !refused {
		t.Error("the model was not told that plan mode refused its write")
	}

	// no decision: told how to decide, nothing runs
	before := len(e.srv.Requests())
	r = e.runEnv([]string{"AGENT_MODEL=test-model"}, "resume", id)
	if r.code != 2 || !strings.Contains(r.stderr, "--approve plan") {
		t.Errorf("resume without a decision: exit %d, want 2 naming --approve plan\n%s", r.code, r.stderr)
	}
	if len(e.srv.Requests()) != before {
		t.Error("a resume without a decision asked the model")
	}

	// reject with a note: still planning
	r = e.runEnv([]string{"AGENT_MODEL=test-model"}, "resume", id, "--deny", "plan", "--note", "add a header line")
	if r.code != 3 {
		t.Fatalf("resume --deny plan: exit %d, want 3 (paused at the new plan)\n%s", r.code, r.stderr)
	}
	if _, err := os.Stat(planned); err == nil {
		t.Fatal("the write ran after the plan was rejected")
	}
	reqs := e.srv.Requests()
	if !strings.Contains(string(reqs[before].Body), "add a header line") {
		t.Error("the rejection's note did not reach the model")
	}
	if !strings.Contains(r.stderr, "PLAN-TWO") {
		t.Errorf("the second pause does not show the new plan:\n%s", r.stderr)
	}

	// approve in auto-edit: the write runs without asking
	r = e.runEnv([]string{"AGENT_MODEL=test-model"}, "resume", id, "--approve", "plan", "--approval", "auto-edit")
	if r.code != 0 || !strings.Contains(r.stdout, "PLAN-DONE") {
		t.Fatalf("resume --approve plan: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	if got := readFile(t, planned); !strings.Contains(got, "written after approval") {
		t.Errorf("planned.txt = %q", got)
	}
	var switched bool
	for _, ev := range e.switchTrace(id) {
		if ev.Type == "mode_changed" {
			if ev.From != "plan" || ev.To != "auto-edit" || ev.Source != "user" || switched {
				t.Errorf("mode_changed %+v, want one plan -> auto-edit by user", ev)
			}
			switched = true
		}
	}
	if !switched {
		t.Error("no mode_changed journaled for the approval of the plan")
	}
	var audited bool
	for _, a := range e.audit(id) {
		audited = audited || a.Action == "mode_changed" && strings.Contains(a.Detail, "plan -> auto-edit by user")
	}
	if !audited {
		t.Errorf("no audit row for the switch: %+v", e.audit(id))
	}
	// a plan decision on a run that is not paused at one is an error
	if r = e.runEnv([]string{"AGENT_MODEL=test-model"}, "resume", id, "--approve", "plan"); r.code != 2 || !strings.Contains(r.stderr, "not paused at a plan") {
		t.Errorf("--approve plan on a finished run: exit %d\n%s", r.code, r.stderr)
	}
}

// A project file may make runs plan first (stricter than ask); that it
// never loosens a person's read-only is internal/config's test.
func TestPlanModeFromProjectFile(t *testing.T) {
	e := newEnv(t, script(
		turn("", call("w1", "write_file", map[string]any{"path": "x.txt", "content": "x\n"})),
		turn("Plan: write x.txt."),
	))
	if err := os.MkdirAll(filepath.Join(e.ws, ".agent"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(e.ws, ".agent", "config.toml"), []byte("approval = \"plan\"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r := e.runEnv([]string{"AGENT_MODEL=test-model"}, "run", "write x.txt")
	if r.code != 3 || !strings.Contains(r.stderr, "approval plan") {
		t.Fatalf("a project's plan over the default ask: exit %d, want 3 in plan mode\n%s", r.code, r.stderr)
	}
	if _, err := os.Stat(filepath.Join(e.ws, "x.txt")); err == nil {
		t.Error("the write ran: the project's plan mode was loosened")
	}
}

// requestWith is the first request whose body holds text, and its model.
func (e *env) requestWith(text string) (model string, ok bool) {
	for _, r := range e.srv.Requests() {
		if strings.Contains(string(r.Body), text) && r.Request != nil {
			return r.Request.Model, true
		}
	}
	return "", false
}

// Switching in the TUI, in a real terminal: shift+tab changes the mode in
// the status bar and the next call obeys it (a write under auto-edit runs
// without a prompt); /model NAME makes the next request ask the server for
// NAME, and a flag-like name is an error line; under /mode plan a write is
// refused until the plan is approved in the prompt (first kept planning
// with a note, then approved in auto-edit); each switch is journaled, and a
// resume keeps the switched model.
func TestTUISwitches(t *testing.T) {
	tm := newTmux(t)
	write := func(id, path string) map[string]any {
		return call(id, "write_file", map[string]any{"path": path, "content": "x\n"})
	}
	e := newEnv(t, script(
		turn("", write("w1", "a.txt")),
		turn("Wrote a.txt (ANSWER-ONE)."),
		turn("Answer two (ANSWER-TWO)."),
		turn("", write("w2", "b.txt")),
		turn("Plan: write b.txt (PLAN-ONE)."),
		turn("Plan: write b.txt with care (PLAN-TWO)."),
		turn("", write("w3", "b.txt")),
		turn("Done (ANSWER-DONE)."),
		turn("Again (ANSWER-AGAIN)."),
	))
	e.srv.SetModels("test-model", "other-model")
	env := append(e.environ(), "AGENT_APPROVAL=ask", "AGENT_MODEL=test-model", "OPENAI_API_KEY=sk-test")
	tm.start(120, 40, env, e.ws, agentBin+"; echo AGENT-EXITED-$?; sleep 60")
	tm.wait(`Ask, or /`, 15*time.Second)
	tm.wait(`approval ask`, 5*time.Second)
	tm.keys("BTab")
	tm.wait(`approval auto-edit`, 5*time.Second)

	tm.typeText("write a.txt")
	tm.keys("Enter")
	tm.wait(`ANSWER-ONE`, 15*time.Second) // no prompt in between: auto-edit ran the write
	if got := readFile(t, filepath.Join(e.ws, "a.txt")); got != "x\n" {
		t.Errorf("a.txt = %q", got)
	}

	tm.typeText("/model")
	tm.keys("Enter")
	tm.wait(`Model · now test-model`, 5*time.Second)
	tm.wait(`other-model`, 5*time.Second) // the provider's list
	tm.keys("Escape")
	tm.waitGone(`Model · now`, 5*time.Second)
	tm.typeText("/model --no-such-flag")
	tm.keys("Enter")
	tm.wait(`not a model name`, 5*time.Second)
	tm.typeText("/model no-such-model")
	tm.keys("Enter")
	tm.wait(`unknown model "no-such-model"`, 5*time.Second)
	tm.typeText("/model other-model")
	tm.keys("Enter")
	tm.wait(`· other-model · approval auto-edit`, 5*time.Second) // the status bar
	tm.typeText("second question")
	tm.keys("Enter")
	tm.wait(`ANSWER-TWO`, 15*time.Second)
	if m, ok := e.requestWith("second question"); !ok || m != "other-model" {
		t.Errorf("the request after /model other-model asked for %q", m)
	}

	tm.typeText("/mode plan")
	tm.keys("Enter")
	tm.wait(`approval plan`, 5*time.Second)
	tm.typeText("plan b.txt")
	tm.keys("Enter")
	tm.wait(`Approve the plan\?`, 15*time.Second)
	tm.wait(`PLAN-ONE`, 5*time.Second)
	if _, err := os.Stat(filepath.Join(e.ws, "b.txt")); err == nil {
		t.Fatal("the write ran under plan mode")
	}
	tm.keys("End") // keep planning
	tm.keys("Enter")
	tm.waitGone(`Approve the plan\?`, 5*time.Second)
	tm.typeText("use more care")
	tm.keys("Enter")
	tm.wait(`Approve the plan\?`, 15*time.Second)
	tm.wait(`PLAN-TWO`, 5*time.Second)
	if _, ok := e.requestWith("use more care"); !ok {
		t.Error("the note that kept planning did not reach the model")
	}
	tm.keys("Down") // approve, go on in auto-edit
	tm.keys("Enter")
	tm.wait(`ANSWER-DONE`, 15*time.Second)
	if _, err := os.Stat(filepath.Join(e.ws, "b.txt")); err != nil {
		t.Error("the approved plan's write did not run")
	}
	tm.wait(`approval auto-edit`, 5*time.Second)
	tm.keys("C-c")
	tm.keys("C-c")
	tm.wait(`AGENT-EXITED-0`, 10*time.Second)

	var runs []struct {
		RunID string `json:"run_id"`
	}
	e.mustJSON(&runs, "runs", "--json")
	if len(runs) != 1 {
		t.Fatalf("%d runs, want 1", len(runs))
	}
	id := runs[0].RunID
	var modes, models []string
	for _, ev := range e.switchTrace(id) {
		switch ev.Type {
		case "mode_changed":
			modes = append(modes, ev.From+">"+ev.To+":"+ev.Source)
		case "model_changed":
			models = append(models, ev.From+">"+ev.To+":"+ev.Source)
		}
	}
	if got := strings.Join(modes, " "); got != "auto-edit>plan:user plan>auto-edit:user" {
		t.Errorf("mode_changed events %q", got)
	}
	if got := strings.Join(models, " "); got != "test-model>other-model:user" {
		t.Errorf("model_changed events %q", got)
	}
	// a resume keeps the switched model (no --model, no AGENT_MODEL)
	r := e.runEnv([]string{"OPENAI_API_KEY=sk-test"}, "resume", id, "--headless", "--message", "once more")
	if r.code != 0 {
		t.Fatalf("resume: exit %d\n%s", r.code, r.stderr)
	}
	if m, ok := e.requestWith("once more"); !ok || m != "other-model" {
		t.Errorf("the resumed run asked for %q, want the switched other-model", m)
	}
}
