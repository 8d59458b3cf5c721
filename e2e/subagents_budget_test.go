package e2e

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestSubagentsBudget: children draw from the parent's budget. Of the
// 1,000,000 tokens of the parent, its first answer spends 200,010; the two
// children of that turn get an equal share of what is left (399,995 each,
// journaled in task_started and in each child's run_started). One spends
// 395,010 on its first answer, so its next request (its counted input and
// the answer reserve) would cross its share: it is never sent, the child
// ends budget_exhausted and the parent's model gets that as the task's
// result. The parent's spend then includes both children's tokens.
func TestSubagentsBudget(t *testing.T) {
	parent := &treeScript{key: "PARENT-B1", steps: []treeStep{
		{tokens: 200000, calls: []map[string]any{
			taskCall("call_b1", "small", "SMALL-B2: answer", "explore"),
			taskCall("call_b2", "big", "BIG-B3: read a lot", "explore")}},
		{text: "PARENT-B-DONE"}}}
	small := &treeScript{key: "SMALL-B2", steps: []treeStep{{text: "SMALL-ANSWER", tokens: 1000}}}
	big := &treeScript{key: "BIG-B3", steps: []treeStep{
		{tokens: 395000, calls: []map[string]any{toolCall("b3_1", "read_file", map[string]string{"path": "README.md"})}},
		{text: "BIG-NEVER"}}}
	s := newTreeServer(t, parent, small, big)
	e := newEnv(t, "")
	e.url = s.url
	r := e.run("run", "--approval", "full-auto", "--budget-tokens", "1000000", "PARENT-B1: delegate")
	if r.code != 0 {
		t.Fatalf("exit %d:\n%s", r.code, r.stderr)
	}
	id := runID(t, r.stderr)
	s.mu.Lock()
	bigNext, parentNext := s.served["BIG-B3/1"], s.served["PARENT-B1/1"]
	s.mu.Unlock()
	if bigNext != 0 {
		t.Fatalf("the big child's second request was sent: it crossed its share of the budget\n%s", r.stderr)
	}
	if parentNext != 1 {
		t.Fatalf("the parent's second request was served %d times, want 1", parentNext)
	}
	raw := func(run string) []map[string]any {
		var evs []map[string]any
		e.mustJSON(&evs, "trace", run, "--json")
		return evs
	}
	kids := map[string]string{} // call id -> child run
	var result, spentAfter string
	requests := 0
	for _, ev := range raw(id) {
		switch ev["type"] {
		case "task_started":
			b, _ := json.Marshal(ev["budget"])
			if string(b) != `{"tokens":399995}` {
				t.Errorf("task_started %v: budget %s, want an equal share of what is left: {\"tokens\":399995}", ev["call_id"], b)
			}
			kids[ev["call_id"].(string)] = ev["child_run"].(string)
		case "tool_result":
			if ev["call_id"] == "call_b2" {
				result, _ = ev["output"].(string)
			}
		case "model_request":
			requests++
			if requests == 2 {
				if sp, ok := ev["spent"].(map[string]any); ok {
					b, _ := json.Marshal(sp["tokens"])
					spentAfter = string(b)
				}
			}
		}
	}
	if !strings.Contains(result, "budget_exhausted") || !strings.Contains(result, "token budget reached") {
		t.Errorf("the parent's result of the big task does not say budget_exhausted:\n%s", result)
	}
	// 200,010 of its own + 1,010 + 395,010 of its children
	if spentAfter != "596030" {
		t.Errorf("the parent's second request had spent %s tokens, want its children's counted: 596030", spentAfter)
	}
	status := map[string]string{}
	for _, k := range e.children(id) {
		status[k.RunID] = k.Status
	}
	if status[kids["call_b2"]] != "budget_exhausted" || status[kids["call_b1"]] != "completed" {
		t.Errorf("children %v (call_b1 %s, call_b2 %s): want the big one budget_exhausted, the small one completed", status, kids["call_b1"], kids["call_b2"])
	}
	for _, ev := range raw(kids["call_b2"]) {
		if ev["type"] == "run_started" {
			b, _ := json.Marshal(ev["budget"])
			if string(b) != `{"tokens":399995}` {
				t.Errorf("the child's run_started budget %s, want its share", b)
			}
		}
	}
}
