package e2e

// Subagents through the real binary: a model server that plays the parent
// and each child by the request's first user message (a child's is its
// task prompt), so several runs talk to it at once.

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// treeStep is one answer of a script: text, or tool calls.
type treeStep struct {
	text  string
	calls []map[string]any // {"id", "name", "arguments"}
	// tokens is the prompt tokens its usage reports (0: 100)
	tokens int
}

// treeScript answers the requests whose first user message holds key.
type treeScript struct {
	key   string
	steps []treeStep
	// hold, when set, is waited on before step 0 is answered (and a
	// request whose client went away meanwhile is not served).
	hold chan struct{}
}

type treeServer struct {
	t       *testing.T
	url     string
	scripts []*treeScript
	mu      sync.Mutex
	served  map[string]int // "key/step" -> answers sent to completion
	arrived chan string    // "key/step" on each arrival
	aborted chan string    // "key/step" of a held request whose client went away
	log     []string
	// inflight and maxInflight count children's requests being answered
	inflight, maxInflight int
}

func newTreeServer(t *testing.T, scripts ...*treeScript) *treeServer {
	s := &treeServer{t: t, scripts: scripts, served: map[string]int{}, arrived: make(chan string, 100), aborted: make(chan string, 100)}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: http.HandlerFunc(s.handle)}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	s.url = "http://" + ln.Addr().String() + "/v1"
	return s
}

func (s *treeServer) handle(w http.ResponseWriter, r *http.Request) {
	if !strings.HasSuffix(r.URL.Path, "/chat/completions") {
		http.NotFound(w, r)
		return
	}
	var req struct {
		Stream   bool `json:"stream"`
		Messages []struct {
			Role    string `json:"role"`
			Content any    `json:"content"`
		} `json:"messages"`
	}
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		http.Error(w, err.Error(), 400)
		return
	}
	// The step is the number of the model's answers in the conversation;
	// the script is the one whose key the person's messages carry (the
	// context builder may move the task's prompt after older rounds).
	var users []string
	asst := 0
	for _, m := range req.Messages {
		switch m.Role {
		case "user":
			b, _ := json.Marshal(m.Content)
			if strings.HasPrefix(string(b), `"[agent]`) {
				continue // the agent's task state quotes other runs' prompts
			}
			users = append(users, string(b))
		case "assistant":
			asst++
		}
	}
	var sc *treeScript
	for _, u := range users {
		for _, c := range s.scripts {
			if sc == nil && strings.Contains(u, c.key) {
				sc = c
			}
		}
	}
	if sc == nil {
		http.Error(w, fmt.Sprintf("no script for %q", users), 500)
		return
	}
	k := fmt.Sprintf("%s/%d", sc.key, asst)
	if sc != s.scripts[0] { // the first script is the parent's
		s.mu.Lock()
		s.inflight++
		s.maxInflight = max(s.maxInflight, s.inflight)
		s.mu.Unlock()
		defer func() {
			s.mu.Lock()
			s.inflight--
			s.mu.Unlock()
		}()
	}
	s.arrived <- k
	if asst == 0 && sc.hold != nil {
		select {
		case <-sc.hold:
		case <-r.Context().Done(): // the agent died while it waited
			s.aborted <- k
			return
		}
	}
	st := treeStep{text: "done"}
	if asst < len(sc.steps) {
		st = sc.steps[asst]
	}
	writeTurn(w, req.Stream, st)
	s.mu.Lock()
	s.served[k]++
	s.log = append(s.log, k)
	s.mu.Unlock()
}

// writeTurn answers one chat completion, as a stream when asked.
func writeTurn(w http.ResponseWriter, stream bool, st treeStep) {
	var calls []map[string]any
	for i, c := range st.calls {
		calls = append(calls, map[string]any{"index": i, "id": c["id"], "type": "function",
			"function": map[string]any{"name": c["name"], "arguments": c["arguments"]}})
	}
	finish := "stop"
	if len(calls) > 0 {
		finish = "tool_calls"
	}
	in := st.tokens
	if in == 0 {
		in = 100
	}
	usage := map[string]int{"prompt_tokens": in, "completion_tokens": 10, "total_tokens": in + 10}
	if !stream {
		msg := map[string]any{"role": "assistant", "content": st.text}
		if len(calls) > 0 {
			msg["tool_calls"] = calls
		}
		json.NewEncoder(w).Encode(map[string]any{"id": "x", "object": "chat.completion", "model": "fake-model",
			"choices": []any{map[string]any{"index": 0, "message": msg, "finish_reason": finish}}, "usage": usage})
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	bw := bufio.NewWriter(w)
	emit := func(v any) {
		b, _ := json.Marshal(v)
		fmt.Fprintf(bw, "data: %s\n\n", b)
	}
	chunk := func(delta map[string]any, fin any) map[string]any {
		return map[string]any{"id": "x", "object": "chat.completion.chunk", "model": "fake-model",
			"choices": []any{map[string]any{"index": 0, "delta": delta, "finish_reason": fin}}}
	}
	emit(chunk(map[string]any{"role": "assistant", "content": st.text}, nil))
	if len(calls) > 0 {
		emit(chunk(map[string]any{"tool_calls": calls}, nil))
	}
	emit(chunk(map[string]any{}, finish))
	emit(map[string]any{"id": "x", "object": "chat.completion.chunk", "model": "fake-model", "choices": []any{}, "usage": usage})
	fmt.Fprint(bw, "data: [DONE]\n\n")
	bw.Flush()
}

func taskCall(id, desc, prompt, kind string) map[string]any {
	return map[string]any{"id": id, "name": "task", "arguments": jsonArgs(map[string]string{"description": desc, "prompt": prompt, "kind": kind})}
}

func toolCall(id, name string, args any) map[string]any {
	return map[string]any{"id": id, "name": name, "arguments": jsonArgs(args)}
}

// treeScripts are a parent that delegates to two explorers and a worker.
func treeScripts(workerCmd string) (parent, e1, e2, w *treeScript) {
	parent = &treeScript{key: "PARENT-77", steps: []treeStep{
		{calls: []map[string]any{
			taskCall("call_p1", "explore one", "EXPLORE-ONE-11: what number does README.md name?", "explore"),
			taskCall("call_p2", "explore two", "EXPLORE-TWO-22: which file holds func main?", "explore"),
			taskCall("call_p3", "worker", "WORKER-33: create w.txt", "worker")}},
		{text: "PARENT-DONE"},
		{calls: []map[string]any{toolCall("call_p4", "apply_task_changes", map[string]string{"call_id": "call_p3"})}},
		{text: "APPLIED"},
	}}
	e1 = &treeScript{key: "EXPLORE-ONE-11", steps: []treeStep{
		{calls: []map[string]any{toolCall("e1_1", "read_file", map[string]string{"path": "README.md"})}},
		{text: "E1-ANSWER"}}}
	e2 = &treeScript{key: "EXPLORE-TWO-22", steps: []treeStep{
		{calls: []map[string]any{toolCall("e2_1", "grep", map[string]string{"pattern": "func main"})}},
		{text: "E2-ANSWER"}}}
	w = &treeScript{key: "WORKER-33", steps: []treeStep{
		{calls: []map[string]any{toolCall("w_1", "run_command", map[string]string{"command": workerCmd})}},
		{calls: []map[string]any{toolCall("w_2", "write_file", map[string]string{"path": "w.txt", "content": "from worker\n"})}},
		{text: "W-ANSWER"}}}
	return
}

// arrivals waits until every key has arrived at the server.
func arrivals(s *treeServer, keys ...string) error {
	want := map[string]bool{}
	for _, k := range keys {
		want[k] = true
	}
	deadline := time.After(60 * time.Second)
	for len(want) > 0 {
		select {
		case k := <-s.arrived:
			delete(want, k)
		case <-deadline:
			return fmt.Errorf("requests %v never reached the model at the same time: the children did not run in parallel", want)
		}
	}
	return nil
}

func (e *env) children(parent string) []treeRun {
	e.t.Helper()
	var runs []treeRun
	e.mustJSON(&runs, "runs", "--tree", "--json")
	var kids []treeRun
	for _, r := range runs {
		if r.ParentRun == parent {
			kids = append(kids, r)
		}
	}
	return kids
}

// TestSubagentsTree: two explorers and a worker run at once (the server
// answers none of their first requests before all three arrived); the
// worker works in its own worktree; its diff reaches the parent, and
// apply_task_changes brings it in, checkpointed; runs rm of the parent
// removes the tree and its worktree.
func TestSubagentsTree(t *testing.T) {
	parent, e1, e2, w := treeScripts("echo worked >> w.log")
	hold := make(chan struct{})
	e1.hold, e2.hold, w.hold = hold, hold, hold
	s := newTreeServer(t, parent, e1, e2, w)
	e := newEnv(t, "")
	e.url = s.url
	go func() {
		if err := arrivals(s, "EXPLORE-ONE-11/0", "EXPLORE-TWO-22/0", "WORKER-33/0"); err != nil {
			t.Error(err)
		}
		close(hold) // the children go on either way, so that the run ends
	}()
	r := e.run("run", "--approval", "full-auto", "PARENT-77: delegate")
	if r.code != 0 {
		t.Fatalf("parent exit %d:\n%s", r.code, r.stderr)
	}
	id := runID(t, r.stderr)
	if _, err := os.Stat(filepath.Join(e.ws, "w.txt")); err == nil {
		t.Fatal("the worker wrote into the parent's workspace")
	}
	kids := e.children(id)
	if len(kids) != 3 {
		t.Fatalf("runs --tree shows %d children of %s, want 3: %+v", len(kids), id, kids)
	}
	var wt string
	for _, k := range kids {
		if k.Status != "completed" || !strings.HasPrefix(k.ParentCall, "call_p") {
			t.Errorf("child %+v: want completed with parent_call call_p*", k)
		}
		if strings.Contains(k.Workspace, "worktrees") {
			wt = k.Workspace
		}
	}
	if got := readFile(t, filepath.Join(wt, "w.txt")); got != "from worker\n" {
		t.Fatalf("worker's worktree w.txt = %q", got)
	}
	// the parent's second request carries the answers and the diff
	var resultOut string
	for _, ev := range e.trace(id) {
		if ev.Type == "tool_result" && ev.CallID == "call_p3" {
			resultOut = ev.Output
		}
	}
	if !strings.Contains(resultOut, "W-ANSWER") || !strings.Contains(resultOut, "+from worker") {
		t.Fatalf("the worker's task result lacks its answer or diff:\n%s", resultOut)
	}
	r = e.run("resume", id, "--headless", "--approval", "full-auto", "--message", "apply it")
	if r.code != 0 {
		t.Fatalf("resume exit %d:\n%s", r.code, r.stderr)
	}
	if got := readFile(t, filepath.Join(e.ws, "w.txt")); got != "from worker\n" {
		t.Fatalf("after apply, w.txt = %q", got)
	}
	var cps []struct {
		CallID string `json:"call_id"`
		Kind   string `json:"kind"`
	}
	e.mustJSON(&cps, "checkpoints", id, "--json")
	before := false
	for _, c := range cps {
		before = before || (c.CallID == "call_p4" && c.Kind == "before")
	}
	if !before {
		t.Fatalf("apply_task_changes took no before-checkpoint: %+v", cps)
	}
	for k, n := range s.served {
		if n != 1 {
			t.Errorf("%s served %d times, want once", k, n)
		}
	}
	if r := e.run("runs", "rm", id); r.code != 0 {
		t.Fatalf("runs rm: exit %d\n%s", r.code, r.stderr)
	}
	if _, err := os.Stat(wt); !os.IsNotExist(err) {
		t.Fatalf("runs rm of the parent left the worktree %s (%v)", wt, err)
	}
	out, _ := exec.Command("git", "-C", e.ws, "worktree", "list").Output()
	if strings.Count(strings.TrimSpace(string(out)), "\n") != 0 {
		t.Fatalf("the user's repository still lists worktrees:\n%s", out)
	}
	var runs []treeRun
	e.mustJSON(&runs, "runs", "--json")
	if len(runs) != 0 {
		t.Fatalf("runs rm of the parent left runs: %+v", runs)
	}
}

// TestSubagentsCrash: SIGKILL of the parent while both explorers wait on
// the model and the worker's command runs; agent resume finishes every
// child once, the worker's command is not run again, and no process of the
// tree is left.
func TestSubagentsCrash(t *testing.T) {
	marker := fmt.Sprintf("SUBAGENT-CRASH-%d", os.Getpid())
	parent, e1, e2, w := treeScripts("echo worked >> w.log; sleep 60 # " + marker)
	parent.steps = parent.steps[:2]
	hold := make(chan struct{}) // the explorers' first answers wait for the crash
	e1.hold, e2.hold = hold, hold
	s := newTreeServer(t, parent, e1, e2, w)
	e := newEnv(t, "")
	e.url = s.url
	cmd := exec.Command(agentBin, "run", "--approval", "full-auto", "PARENT-77: delegate")
	cmd.Env, cmd.Dir = e.environ(), e.ws
	var errb strings.Builder
	cmd.Stderr = &errb
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	if err := arrivals(s, "EXPLORE-ONE-11/0", "EXPLORE-TWO-22/0", "WORKER-33/0"); err != nil {
		cmd.Process.Kill()
		t.Fatal(err)
	}
	logs := func() []string {
		m, _ := filepath.Glob(filepath.Join(e.home, "worktrees", "*", "w.log"))
		return m
	}
	for deadline := time.Now().Add(30 * time.Second); len(logs()) == 0; {
		if time.Now().After(deadline) {
			t.Fatal("the worker's command never ran")
		}
		time.Sleep(20 * time.Millisecond) // polls the command's effect
	}
	cmd.Process.Signal(syscall.SIGKILL)
	cmd.Wait()
	for range 2 { // both explorers' requests were cut, none answered
		select {
		case <-s.aborted:
		case <-time.After(30 * time.Second):
			t.Fatal("the killed agent's model requests were not seen to end")
		}
	}
	close(hold)
	id := runID(t, errb.String())
	r := e.run("resume", id, "--headless", "--approval", "full-auto")
	if r.code != 0 {
		t.Fatalf("resume exit %d:\n%s", r.code, r.stderr)
	}
	s.mu.Lock()
	for _, k := range []string{"PARENT-77/0", "PARENT-77/1", "EXPLORE-ONE-11/0", "EXPLORE-ONE-11/1", "EXPLORE-TWO-22/0", "EXPLORE-TWO-22/1", "WORKER-33/0", "WORKER-33/1", "WORKER-33/2"} {
		if s.served[k] != 1 {
			t.Errorf("%s served %d times, want once (log %v)", k, s.served[k], s.log)
		}
	}
	s.mu.Unlock()
	kids := e.children(id)
	if len(kids) != 3 {
		t.Fatalf("%d children after the resume, want 3 (none started twice)", len(kids))
	}
	for _, k := range kids {
		if k.Status != "completed" {
			t.Errorf("child %s is %s", k.RunID, k.Status)
		}
	}
	if got := readFile(t, logs()[0]); got != "worked\n" {
		t.Fatalf("the worker's command ran again: w.log = %q", got)
	}
	var wres string
	for _, k := range kids {
		for _, ev := range e.trace(k.RunID) {
			if ev.Type == "tool_result" && ev.CallID == "w_1" {
				wres = ev.Status + ": " + ev.Output
			}
		}
	}
	if !strings.Contains(wres, "not run again") {
		t.Fatalf("the worker's interrupted command's result = %q, want outcome unknown, not run again", wres)
	}
	ids := []string{id}
	for _, k := range kids {
		ids = append(ids, k.RunID)
	}
	if left := procsNaming(ids); len(left) > 0 {
		t.Fatalf("processes of the tree outlived the resume: %v", left)
	}
	if out, _ := exec.Command("pgrep", "-f", marker).Output(); len(out) > 0 {
		t.Fatalf("the worker's command outlived the resume: pids %s", out)
	}
}

// procsNaming lists processes whose command line names one of ids.
func procsNaming(ids []string) []string {
	var out []string
	ents, _ := os.ReadDir("/proc")
	for _, ent := range ents {
		b, err := os.ReadFile(filepath.Join("/proc", ent.Name(), "cmdline"))
		if err != nil {
			continue
		}
		cl := strings.ReplaceAll(string(b), "\x00", " ")
		for _, id := range ids {
			if strings.Contains(cl, id) {
				out = append(out, ent.Name()+": "+cl)
			}
		}
	}
	return out
}

// TestSubagentsApproval: headless, a worker's command that needs a person
// pauses the parent (exit 3) with the child's call, labelled with the
// task; resume PARENT --approve CHILD_CALL decides it; applying the
// worker's changes asks like an edit, showing the diff.
func TestSubagentsApproval(t *testing.T) {
	parent := &treeScript{key: "PARENT-88", steps: []treeStep{
		{calls: []map[string]any{taskCall("call_q1", "make the log", "WORKER-88: log it", "worker")}},
		{calls: []map[string]any{toolCall("call_q2", "apply_task_changes", map[string]string{"call_id": "call_q1"})}},
		{text: "PARENT-88-DONE"}}}
	w := &treeScript{key: "WORKER-88", steps: []treeStep{
		{calls: []map[string]any{toolCall("wq_1", "run_command", map[string]string{"command": "echo ran >> w.log"})}},
		{text: "W88-DONE"}}}
	s := newTreeServer(t, parent, w)
	e := newEnv(t, "")
	e.url = s.url
	r := e.run("run", "--approval", "ask", "PARENT-88: delegate")
	if r.code != 3 || !strings.Contains(r.stderr, "wq_1") || !strings.Contains(r.stderr, `subagent "make the log"`) {
		t.Fatalf("want exit 3 paused on the child's call wq_1, labelled; exit %d:\n%s", r.code, r.stderr)
	}
	id := runID(t, r.stderr)
	r = e.run("resume", id, "--headless", "--approve", "wq_1")
	if r.code != 3 || !strings.Contains(r.stderr, "call_q2") || !strings.Contains(r.stderr, "+ran") {
		t.Fatalf("want a pause on apply_task_changes showing the diff; exit %d:\n%s", r.code, r.stderr)
	}
	if _, err := os.Stat(filepath.Join(e.ws, "w.log")); err == nil {
		t.Fatal("the worker's changes were applied before the approval")
	}
	r = e.run("resume", id, "--headless", "--approve", "call_q2")
	if r.code != 0 {
		t.Fatalf("exit %d:\n%s", r.code, r.stderr)
	}
	if got := readFile(t, filepath.Join(e.ws, "w.log")); got != "ran\n" {
		t.Fatalf("w.log = %q", got)
	}
	if r := e.run("resume", id, "--headless", "--approve", "nosuchcall"); r.code == 0 {
		t.Fatal("an unknown call id was accepted")
	}
}

// TestSubagentsInterrupt: SIGINT of the parent interrupts every child
// (exit 130, the children interrupted, not failed); a resume finishes them
// with none started twice.
func TestSubagentsInterrupt(t *testing.T) {
	parent, e1, e2, w := treeScripts("echo worked >> w.log")
	parent.steps = parent.steps[:2]
	hold := make(chan struct{})
	e1.hold, e2.hold, w.hold = hold, hold, hold
	s := newTreeServer(t, parent, e1, e2, w)
	e := newEnv(t, "")
	e.url = s.url
	cmd := exec.Command(agentBin, "run", "--approval", "full-auto", "PARENT-77: delegate")
	cmd.Env, cmd.Dir = e.environ(), e.ws
	var errb strings.Builder
	cmd.Stderr = &errb
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	if err := arrivals(s, "EXPLORE-ONE-11/0", "EXPLORE-TWO-22/0", "WORKER-33/0"); err != nil {
		cmd.Process.Kill()
		t.Fatal(err)
	}
	cmd.Process.Signal(os.Interrupt)
	err := cmd.Wait()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 130 {
		t.Fatalf("interrupted parent: %v, want exit 130\n%s", err, errb.String())
	}
	for range 3 { // every child's request was cut, none answered
		select {
		case <-s.aborted:
		case <-time.After(30 * time.Second):
			t.Fatal("the interrupted children's model requests were not seen to end")
		}
	}
	close(hold)
	id := runID(t, errb.String())
	kids := e.children(id)
	if len(kids) != 3 {
		t.Fatalf("%d children, want 3", len(kids))
	}
	for _, k := range kids {
		if k.Status != "interrupted" {
			t.Errorf("child %s is %s after the parent's interrupt, want interrupted", k.RunID, k.Status)
		}
	}
	// a child is continued through its parent only
	if r := e.run("resume", kids[0].RunID, "--headless"); r.code != 2 || !strings.Contains(r.stderr, "agent resume "+id) {
		t.Fatalf("resume of a child alone: exit %d, want 2 naming the parent's resume:\n%s", r.code, r.stderr)
	}
	if r := e.run("resume", id, "--headless", "--approval", "full-auto"); r.code != 0 {
		t.Fatalf("resume exit %d:\n%s", r.code, r.stderr)
	}
	if kids := e.children(id); len(kids) != 3 {
		t.Fatalf("%d children after the resume, want 3", len(kids))
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for k, n := range s.served {
		if n != 1 {
			t.Errorf("%s served %d times, want once", k, n)
		}
	}
}

// TestSubagentsMaxParallel: [subagents] max_parallel = 1 in the user's
// config runs the three children one at a time.
func TestSubagentsMaxParallel(t *testing.T) {
	parent, e1, e2, w := treeScripts("echo worked >> w.log")
	parent.steps = parent.steps[:2]
	s := newTreeServer(t, parent, e1, e2, w)
	e := newEnv(t, "")
	e.url = s.url
	xdg := t.TempDir()
	writeFile := filepath.Join(xdg, "agent", "config.toml")
	os.MkdirAll(filepath.Dir(writeFile), 0o755)
	if err := os.WriteFile(writeFile, []byte("[subagents]\nmax_parallel = 1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r := e.runEnv([]string{"XDG_CONFIG_HOME=" + xdg}, "run", "--approval", "full-auto", "PARENT-77: delegate")
	if r.code != 0 {
		t.Fatalf("exit %d:\n%s", r.code, r.stderr)
	}
	if len(e.children(runID(t, r.stderr))) != 3 {
		t.Fatal("want 3 children")
	}
	if s.maxInflight != 1 {
		t.Fatalf("%d children's requests at once, want 1 under max_parallel = 1", s.maxInflight)
	}
}

// TestSubagentsUniqueCallIDs: a child whose model repeats its parent's
// call id gets another, so `--approve CALL_ID` names one call of the tree.
func TestSubagentsUniqueCallIDs(t *testing.T) {
	parent := &treeScript{key: "PARENT-99", steps: []treeStep{
		{calls: []map[string]any{taskCall("dup_1", "look", "EXPLORE-99: read it", "explore")}},
		{text: "P99"}}}
	child := &treeScript{key: "EXPLORE-99", steps: []treeStep{
		{calls: []map[string]any{toolCall("dup_1", "read_file", map[string]string{"path": "README.md"})}},
		{text: "E99"}}}
	s := newTreeServer(t, parent, child)
	e := newEnv(t, "")
	e.url = s.url
	r := e.run("run", "--approval", "full-auto", "PARENT-99: go")
	if r.code != 0 {
		t.Fatalf("exit %d:\n%s", r.code, r.stderr)
	}
	kids := e.children(runID(t, r.stderr))
	if len(kids) != 1 {
		t.Fatalf("%d children", len(kids))
	}
	var ids []string
	for _, ev := range e.trace(kids[0].RunID) {
		if ev.Type == "tool_call" {
			ids = append(ids, ev.CallID)
		}
	}
	if len(ids) != 1 || ids[0] == "dup_1" || !strings.HasPrefix(ids[0], "dup_1_") {
		t.Fatalf("the child's call ids %v: want dup_1 renamed, unique in the tree", ids)
	}
}
