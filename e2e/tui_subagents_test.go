package e2e

import (
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestTUISubagents (tmux, the real binary, a model server that plays the
// parent and each child): a task call's children show as nested live rows
// under its card whose elapsed time advances; ctrl+x s opens a child's
// transcript; the worker's edit is asked and approved from the parent's
// session, labelled with the child's description; the changes applied.
func TestTUISubagents(t *testing.T) {
	holdE, holdW := make(chan struct{}), make(chan struct{})
	parent := &treeScript{key: "PARENT-99", steps: []treeStep{
		{calls: []map[string]any{
			taskCall("call_s1", "look around", "EXPLORE-99: what does README.md say?", "explore"),
			taskCall("call_s2", "write the note", "WORKER-99: write note.txt", "worker")}},
		{calls: []map[string]any{toolCall("call_s3", "apply_task_changes", map[string]string{"call_id": "call_s2"})}},
		{text: "PARENT-99-DONE"}}}
	ex := &treeScript{key: "EXPLORE-99", hold: holdE, steps: []treeStep{
		{calls: []map[string]any{toolCall("ex_1", "read_file", map[string]string{"path": "README.md"})}},
		{text: "EX-ANSWER"}}}
	w := &treeScript{key: "WORKER-99", hold: holdW, steps: []treeStep{
		{calls: []map[string]any{toolCall("wk_1", "write_file", map[string]string{"path": "note.txt", "content": "from the worker\n"})}},
		{text: "WK-ANSWER"}}}
	s := newTreeServer(t, parent, ex, w)
	e := newEnv(t, "")
	e.url = s.url
	tm := newTmux(t)
	env := append(e.environ(), "AGENT_APPROVAL=ask", "AGENT_MODEL=test-model", "OPENAI_API_KEY=sk-test")
	tm.start(120, 40, env, e.ws, agentBin+"; echo AGENT-EXITED-$?; sleep 60")
	tm.wait(`Ask, or /`, 15*time.Second)
	tm.typeText("PARENT-99: delegate")
	tm.keys("Enter")

	// both children held: nested rows under their cards, time advancing
	row := regexp.MustCompile(`└ \S+ explore look around\s+running · (\d+)s`)
	tm.wait(`worker write the note\s+running · \d+s`, 20*time.Second) // its worktree is made first
	scr := tm.wait(`explore look around\s+running · \d+s`, 20*time.Second)
	if !regexp.MustCompile(`task\s+look around\s+read\s+running`).MatchString(scr) {
		t.Errorf("the task card does not say it runs while its child does:\n%s", scr)
	}
	if strings.Index(scr, "task") > strings.Index(scr, "explore look around") {
		t.Fatalf("the child's row is not under its task card:\n%s", scr)
	}
	first := seconds(t, row.String(), scr)
	advanced := false
	for deadline := time.Now().Add(6 * time.Second); !advanced && time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		if m := row.FindStringSubmatch(tm.screen()); m != nil {
			n, _ := strconv.Atoi(m[1])
			advanced = n > first
		}
	}
	if !advanced {
		t.Fatalf("the child's elapsed time stayed at %ds:\n%s", first, tm.screen())
	}

	// a child's transcript, read-only: its task prompt
	tm.keys("C-x")
	tm.keys("s")
	scr = tm.wait(`subagent \d/2 · `, 5*time.Second)
	if !strings.Contains(scr, "EXPLORE-99") && !strings.Contains(scr, "WORKER-99") {
		t.Fatalf("the subagent view lacks the child's prompt:\n%s", scr)
	}
	tm.keys("Right")
	tm.wait(`subagent \d/2 · `, 5*time.Second)
	tm.keys("Escape")
	tm.waitGone(`subagent \d/2 · `, 5*time.Second)

	// the explorer finishes; the worker's edit is asked in this session
	close(holdE)
	tm.wait(`explore look around\s+ok · \d+s`, 20*time.Second)
	close(holdW)
	scr = tm.wait(`subagent write the note`, 20*time.Second)
	if !strings.Contains(scr, "note.txt") {
		t.Fatalf("the child's prompt does not name the file:\n%s", scr)
	}
	if !regexp.MustCompile(`worker write the note\s+awaiting approval`).MatchString(scr) {
		t.Errorf("the worker's row does not say it waits:\n%s", scr)
	}
	time.Sleep(400 * time.Millisecond) // the prompt ignores keys for its first 300 ms (askGuard)
	tm.keys("y")
	tm.wait(`worker write the note\s+ok · \d+s`, 20*time.Second)
	// the parent applies the worker's changes: asked too
	tm.wait(`apply_task_changes`, 20*time.Second)
	tm.wait(`Allow|allow`, 20*time.Second)
	time.Sleep(400 * time.Millisecond)
	tm.keys("y")
	tm.wait(`PARENT-99-DONE`, 20*time.Second)
	if got := readFile(t, filepath.Join(e.ws, "note.txt")); got != "from the worker\n" {
		t.Fatalf("note.txt = %q", got)
	}
	tm.keys("C-c")
	tm.wait(`ctrl\+c again`, 5*time.Second)
	tm.keys("C-c")
	tm.wait(`AGENT-EXITED-0`, 10*time.Second)
}
