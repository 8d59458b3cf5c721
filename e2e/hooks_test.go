package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// hookEnv is an env whose user config (XDG_CONFIG_HOME) holds hooks.
type hookEnv struct {
	*env
	xdg, dir string
}

func newHookEnv(t *testing.T, script string) *hookEnv {
	t.Helper()
	h := &hookEnv{env: newEnv(t, script), xdg: t.TempDir(), dir: t.TempDir()}
	if err := os.MkdirAll(filepath.Join(h.xdg, "agent"), 0o755); err != nil {
		t.Fatal(err)
	}
	return h
}

// hook writes a hook script and returns its path.
func (h *hookEnv) hook(name, body string) string {
	h.t.Helper()
	p := filepath.Join(h.dir, name)
	if err := os.WriteFile(p, []byte("#!/bin/bash\n"+body), 0o755); err != nil {
		h.t.Fatal(err)
	}
	return p
}

// config writes the user config: one [[hooks]] table per {event, matcher, command, timeout}.
func (h *hookEnv) config(hooks ...[4]string) {
	h.t.Helper()
	var b strings.Builder
	for _, x := range hooks {
		fmt.Fprintf(&b, "[[hooks]]\nevent = %q\nmatcher = %q\ncommand = %q\ntimeout = %q\n\n", x[0], x[1], x[2], x[3])
	}
	if err := os.WriteFile(filepath.Join(h.xdg, "agent", "config.toml"), []byte(b.String()), 0o644); err != nil {
		h.t.Fatal(err)
	}
}

func (h *hookEnv) run(extra []string, args ...string) result {
	h.t.Helper()
	return h.runEnv(append([]string{"XDG_CONFIG_HOME=" + h.xdg}, extra...), args...)
}

func approvalOf(t *testing.T, e *env, id, callID string) map[string]any {
	t.Helper()
	var evs []map[string]any
	e.mustJSON(&evs, "trace", id, "--json")
	for _, ev := range evs {
		if ev["type"] == "approval" && ev["call_id"] == callID {
			return ev
		}
	}
	return nil
}

// A before_tool_call hook that exits 2 denies the call: it does not run,
// the model gets the hook's stderr as a denied result, the approval event
// and the audit row say source hook and name the hook; an after_tool_call
// hook's note reaches the next request; hooks never see a planted secret,
// neither in what the model read nor in the agent's environment.
func TestHooksDenyAndNote(t *testing.T) {
	secret := "ghp_R7sdfT3kLm9QwErTyUiOpAsDfGhJkLzXcVbN12"
	envSecret := "ghp_Q2wErTy7UiOpAsDfGhJkLzXcVbNm34aSdFgHjK"
	h := newHookEnv(t, script(
		turn("", call("c1", "run_command", map[string]any{"command": "echo forbidden > marker.txt"})),
		turn("", call("c2", "read_file", map[string]any{"path": "secret.txt"})),
		turn("", call("c3", "run_command", map[string]any{"command": "echo fine > ok.txt"})),
		turn("done"),
	))
	if err := os.WriteFile(filepath.Join(h.ws, "secret.txt"), []byte("token: "+secret+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	deny := h.hook("deny.sh", fmt.Sprintf(`in=$(cat); n=$(ls %[1]s | grep -c '^in\.'); printf '%%s' "$in" > %[1]s/in.$n.json; export -p > %[1]s/env.$n.txt
case $in in *forbidden*) echo "REASON-7781: no forbidden commands" >&2; exit 2;; esac`, h.dir))
	note := h.hook("note.sh", fmt.Sprintf(`cat > %s/after.json; echo '{"note": "NOTE-3390: mind the secret"}'`, h.dir))
	h.config([4]string{"before_tool_call", "run_command", deny, "10s"}, [4]string{"after_tool_call", "read_file", note, "10s"})
	r := h.run([]string{"GITHUB_TOKEN=" + envSecret, "OPENAI_API_KEY=sk-test-abcdefghijklmnopqrstuvwxyz012345"}, "run", "--approval", "full-auto", "go")
	if r.code != 0 {
		t.Fatalf("exit %d: a hook's denial goes to the model and the run goes on\n%s", r.code, r.stderr)
	}
	if _, err := os.Stat(filepath.Join(h.ws, "marker.txt")); err == nil {
		t.Error("the command the hook denied ran")
	}
	if _, err := os.Stat(filepath.Join(h.ws, "ok.txt")); err != nil {
		t.Error("the command the hook let through did not run")
	}
	reqs := h.srv.Requests()
	if len(reqs) != 4 {
		t.Fatalf("%d model requests, want 4", len(reqs))
	}
	if !strings.Contains(string(reqs[1].Body), "REASON-7781") {
		t.Error("the model did not get the hook's reason")
	}
	if !strings.Contains(string(reqs[2].Body), "NOTE-3390") {
		t.Error("the after_tool_call note did not reach the next request")
	}
	id := runID(t, r.stderr)
	if res := resultOf(h.trace(id), "c1"); res.Status != "denied" {
		t.Errorf("c1 result %q, want denied", res.Status)
	}
	if a := approvalOf(t, h.env, id, "c1"); a == nil || a["decision"] != "deny" || a["source"] != "hook" || a["hook"] != deny {
		t.Errorf("approval of c1 = %v, want deny by hook naming %s", a, deny)
	}
	found := false
	for _, row := range h.audit(id) {
		if row.CallID == "c1" && strings.Contains(row.Detail, "deny by hook") && strings.Contains(row.Detail, deny) {
			found = true
		}
	}
	if !found {
		t.Errorf("no audit row of c1 says deny by hook naming %s: %+v", deny, h.audit(id))
	}
	ins, _ := filepath.Glob(filepath.Join(h.dir, "in.*.json"))
	if len(ins) != 2 {
		t.Errorf("the run_command hook ran %d times for 2 calls", len(ins))
	}
	var first map[string]any
	if err := json.Unmarshal([]byte(readFile(t, filepath.Join(h.dir, "in.0.json"))), &first); err != nil {
		t.Fatalf("the hook's stdin is not JSON: %v", err)
	}
	if first["event"] != "before_tool_call" || first["tool"] != "run_command" || first["call_id"] != "c1" || first["run_id"] != id || first["workspace"] != h.ws {
		t.Errorf("hook input %v", first)
	}
	var after map[string]any
	if err := json.Unmarshal([]byte(readFile(t, filepath.Join(h.dir, "after.json"))), &after); err != nil {
		t.Fatal(err)
	}
	if after["status"] != "ok" || !strings.Contains(fmt.Sprint(after["output"]), "[REDACTED:") {
		t.Errorf("after_tool_call input %v: want status ok and the output redacted", after)
	}
	files, _ := filepath.Glob(filepath.Join(h.dir, "*"))
	for _, f := range files {
		if strings.HasSuffix(f, ".sh") {
			continue
		}
		b := readFile(t, f)
		for _, s := range []string{secret, envSecret, "sk-test-abcdefghijklmnopqrstuvwxyz012345"} {
			if strings.Contains(b, s) {
				t.Errorf("a hook saw a secret in %s", filepath.Base(f))
			}
		}
	}
}

// A hook that hangs past its timeout is killed with its process group and
// the call is denied saying it timed out; one that answers garbage denies.
func TestHooksFailClosed(t *testing.T) {
	h := newHookEnv(t, script(
		turn("", call("c1", "run_command", map[string]any{"command": "echo x > marker.txt"})),
		turn("done"),
	))
	slow := h.hook("slow.sh", fmt.Sprintf("sleep 60 & echo $! > %s/child; wait", h.dir))
	h.config([4]string{"before_tool_call", "", slow, "500ms"})
	start := time.Now()
	r := h.run(nil, "run", "--approval", "full-auto", "go")
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	if el := time.Since(start); el > 20*time.Second {
		t.Errorf("the run took %s with a hook that hangs past a 500ms timeout", el)
	}
	if _, err := os.Stat(filepath.Join(h.ws, "marker.txt")); err == nil {
		t.Error("the call ran although its hook timed out")
	}
	res := resultOf(h.trace(runID(t, r.stderr)), "c1")
	if res.Status != "denied" || !strings.Contains(res.Output, "timed out after 500ms") {
		t.Errorf("c1: %s %q, want denied saying the hook timed out", res.Status, res.Output)
	}
	pid, _ := strconv.Atoi(strings.TrimSpace(readFile(t, filepath.Join(h.dir, "child"))))
	if pid > 0 && syscall.Kill(pid, 0) == nil {
		if st, _ := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid)); !strings.Contains(string(st), ") Z ") {
			syscall.Kill(pid, syscall.SIGKILL)
			t.Errorf("the timed-out hook's child %d still runs", pid)
		}
	}

	h2 := newHookEnv(t, script(
		turn("", call("c1", "run_command", map[string]any{"command": "echo y > marker.txt"})),
		turn("done"),
	))
	h2.config([4]string{"before_tool_call", "run_*", h2.hook("garbage.sh", "echo 'this is {not json'"), "10s"})
	r = h2.run(nil, "run", "--approval", "full-auto", "go")
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	if _, err := os.Stat(filepath.Join(h2.ws, "marker.txt")); err == nil {
		t.Error("the call ran although its hook answered garbage")
	}
	if res := resultOf(h2.trace(runID(t, r.stderr)), "c1"); res.Status != "denied" || !strings.Contains(res.Output, "not one JSON object") {
		t.Errorf("c1: %s %q, want denied saying the answer was not JSON", res.Status, res.Output)
	}
}

// A hook's answer is journaled before the call runs: an agent killed
// (SIGKILL) while the call it allowed runs does not ask the hook again on
// resume.
func TestHookNotAskedAgainOnResume(t *testing.T) {
	h := newHookEnv(t, script(
		turn("", call("c1", "run_command", map[string]any{"command": "touch started; sleep 30"})),
		turn("done"),
	))
	count := filepath.Join(h.dir, "count")
	h.config([4]string{"before_tool_call", "run_command", h.hook("count.sh", "cat >/dev/null; echo x >> "+count), "10s"})
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, agentBin, "run", "--approval", "full-auto", "go")
	cmd.Env, cmd.Dir = h.environ("XDG_CONFIG_HOME="+h.xdg), h.ws
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		if _, err := os.Stat(filepath.Join(h.ws, "started")); err == nil {
			break
		}
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			t.Fatalf("the command never started\n%s", stderr.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
	cmd.Process.Signal(syscall.SIGKILL)
	cmd.Wait()
	id := runID(t, stderr.String())
	r := h.run(nil, "resume", id, "--headless", "--approval", "full-auto")
	if r.code != 0 {
		t.Fatalf("resume: exit %d\n%s", r.code, r.stderr)
	}
	if n := strings.Count(readFile(t, count), "x"); n != 1 {
		t.Errorf("the hook was asked %d times about one call across a crash and a resume, want 1", n)
	}
}

// A user_prompt hook blocks a prompt before anything is journaled or sent,
// with its reason on stderr; a project file cannot add hooks; the
// session_start and run_finished hooks get their events.
func TestHooksPromptAndNotifications(t *testing.T) {
	h := newHookEnv(t, script(turn("fine")))
	block := h.hook("block.sh", `grep -q forbidden && { echo "REASON-PROMPT: not that" >&2; exit 2; }; exit 0`)
	save := func(name string) string { return h.hook(name+".sh", fmt.Sprintf("cat > %s/%s.json", h.dir, name)) }
	h.config([4]string{"user_prompt", "", block, "10s"}, [4]string{"session_start", "", save("start"), "10s"},
		[4]string{"run_finished", "", save("finished"), "10s"})
	if err := os.MkdirAll(filepath.Join(h.ws, ".agent"), 0o755); err != nil {
		t.Fatal(err)
	}
	evil := filepath.Join(h.dir, "evil-ran")
	os.WriteFile(filepath.Join(h.ws, ".agent", "config.toml"), []byte(fmt.Sprintf("[[hooks]]\nevent = \"session_start\"\ncommand = \"touch %s\"\n", evil)), 0o644)

	r := h.run(nil, "run", "--approval", "full-auto", "do the forbidden thing")
	if r.code != 1 || !strings.Contains(r.stderr, "REASON-PROMPT: not that") {
		t.Errorf("a blocked prompt: exit %d, stderr %q; want exit 1 with the hook's reason", r.code, r.stderr)
	}
	if len(h.srv.Requests()) != 0 {
		t.Error("a blocked prompt reached the model")
	}
	r = h.run(nil, "run", "--approval", "full-auto", "say fine")
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	if !strings.Contains(r.stderr, "cannot add hooks") {
		t.Errorf("no warning that the project file's hooks are ignored: %q", r.stderr)
	}
	if _, err := os.Stat(evil); err == nil {
		t.Error("a project file's hook ran")
	}
	_, rest, _ := strings.Cut(r.stderr, "\n") // the config warning comes first
	id := runID(t, rest)
	var start, fin map[string]any
	if err := json.Unmarshal([]byte(readFile(t, filepath.Join(h.dir, "start.json"))), &start); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal([]byte(readFile(t, filepath.Join(h.dir, "finished.json"))), &fin); err != nil {
		t.Fatal(err)
	}
	if start["event"] != "session_start" || start["run_id"] != id || start["source"] != "new" {
		t.Errorf("session_start input %v", start)
	}
	if fin["event"] != "run_finished" || fin["status"] != "completed" || fin["run_id"] != id {
		t.Errorf("run_finished input %v", fin)
	}
}

// A headless run that pauses for a person runs the approval_requested
// hooks with the call; a before_tool_call hook's "ask" pauses a full-auto
// run for a person, and resume --approve runs the call without asking the
// hook again.
func TestHooksAskAndApprovalRequested(t *testing.T) {
	h := newHookEnv(t, script(
		turn("", call("c1", "run_command", map[string]any{"command": "echo hi > asked.txt"})),
		turn("done"),
	))
	count := filepath.Join(h.dir, "count")
	ask := h.hook("ask.sh", "cat >/dev/null; echo x >> "+count+`; echo '{"decision": "ask", "reason": "ASK-REASON-55"}'`)
	notify := h.hook("notify.sh", fmt.Sprintf("cat > %s/requested.json", h.dir))
	h.config([4]string{"before_tool_call", "run_command", ask, "10s"}, [4]string{"approval_requested", "run_*", notify, "10s"})
	r := h.run(nil, "run", "--approval", "full-auto", "go")
	if r.code != 3 || !strings.Contains(r.stderr, "ASK-REASON-55") {
		t.Fatalf("a hook's ask under full-auto: exit %d, want 3 (paused) with the hook's reason\n%s", r.code, r.stderr)
	}
	var req map[string]any
	if err := json.Unmarshal([]byte(readFile(t, filepath.Join(h.dir, "requested.json"))), &req); err != nil {
		t.Fatalf("approval_requested input: %v", err)
	}
	id := runID(t, r.stderr)
	if req["event"] != "approval_requested" || req["call_id"] != "c1" || req["tool"] != "run_command" || req["run_id"] != id {
		t.Errorf("approval_requested input %v", req)
	}
	r = h.run(nil, "resume", id, "--headless", "--approve", "c1")
	if r.code != 0 {
		t.Fatalf("resume --approve: exit %d\n%s", r.code, r.stderr)
	}
	if readFile(t, filepath.Join(h.ws, "asked.txt")) != "hi\n" {
		t.Error("the approved call did not run")
	}
	if n := strings.Count(readFile(t, count), "x"); n != 1 {
		t.Errorf("the before_tool_call hook ran %d times, want 1 (the person decided on resume)", n)
	}
}
