package hooks

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
	"unicode/utf8"

	"agent/internal/agent"
	"agent/internal/approval"
	"agent/internal/event"
	"agent/internal/policy"
	"agent/internal/protocol"
	"agent/internal/tools"
)

// script writes an executable bash script into dir and returns its path.
func script(t *testing.T, dir, name, body string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte("#!/bin/bash\n"+body), 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

// redactSecret stands in for the session's redactor: it replaces one
// planted secret.
func redactSecret(s string) string { return strings.ReplaceAll(s, "s3cr3t-value", "[REDACTED:test]") }

func newRunner(t *testing.T, hs ...Hook) (*Runner, *[]string) {
	t.Helper()
	var warns []string
	r := New(Options{Hooks: hs, Env: []string{"PATH=" + os.Getenv("PATH"), "KEPT=yes"}, Redact: redactSecret,
		Warn: func(m string) { warns = append(warns, m) }})
	return r, &warns
}

func callInput(tool, args string) Input {
	return Input{RunID: "run1", Workspace: os.TempDir(), Tool: tool, CallID: "call_0_0", Arguments: json.RawMessage(args)}
}

// Each way a before_tool_call hook can answer, by exit code and JSON,
// and every way it can fail (which denies: fail closed).
func TestBeforeToolCallAnswers(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		name, body string
		want       Verdict
		reason     string
	}{
		{"silent", "exit 0", NoObjection, ""},
		{"exit2", "echo 'no rm here' >&2; exit 2", Deny, "no rm here"},
		{"json-deny", `echo '{"decision": "deny", "reason": "not today"}'`, Deny, "not today"},
		{"json-allow", `echo '{"decision": "allow"}'`, Allow, ""},
		{"json-ask", `echo '{"decision": "ask", "reason": "check with me"}'`, Ask, "check with me"},
		{"json-empty", `echo '{}'`, NoObjection, ""},
		{"claude-deny", `echo '{"hookSpecificOutput": {"permissionDecision": "deny", "permissionDecisionReason": "claude says no"}}'`, Deny, "claude says no"},
		{"claude-block", `echo '{"decision": "block", "reason": "blocked"}'`, Deny, "blocked"},
		{"garbage", `echo 'this is {not json'`, Deny, "not one JSON object"},
		{"two-objects", `echo '{} {}'`, Deny, "not one JSON object"},
		{"bad-decision", `echo '{"decision": "maybe"}'`, Deny, `decision "maybe"`},
		{"exit1", "echo boom >&2; exit 1", Deny, "exited 1: boom"},
		{"killed", "kill -9 $$", Deny, "ended abnormally"},
		{"missing", "exec /nonexistent/hook", Deny, "exited 127"},
	} {
		t.Run(c.name, func(t *testing.T) {
			r, _ := newRunner(t, Hook{Event: BeforeToolCall, Command: script(t, dir, c.name+".sh", c.body), Timeout: 5 * time.Second})
			d := r.BeforeToolCall(context.Background(), callInput("run_command", `{"command":"ls"}`))
			if d.Verdict != c.want || !strings.Contains(d.Reason, c.reason) {
				t.Errorf("verdict %q reason %q, want %q with %q", d.Verdict, d.Reason, c.want, c.reason)
			}
			if !strings.HasSuffix(d.Hooks, c.name+".sh") {
				t.Errorf("decision names hooks %q", d.Hooks)
			}
		})
	}
}

// The first denial settles it and later hooks do not run; ask wins over
// allow.
func TestBeforeToolCallCombines(t *testing.T) {
	dir := t.TempDir()
	ran := filepath.Join(dir, "ran")
	allow := script(t, dir, "allow.sh", `echo '{"decision":"allow"}'`)
	ask := script(t, dir, "ask.sh", `echo '{"decision":"ask"}'`)
	deny := script(t, dir, "deny.sh", "echo nope >&2; exit 2")
	after := script(t, dir, "after.sh", "touch "+ran)
	h := func(cmd string) Hook { return Hook{Event: BeforeToolCall, Command: cmd} }
	r, _ := newRunner(t, h(allow), h(ask), h(allow))
	if d := r.BeforeToolCall(context.Background(), callInput("x", `{}`)); d.Verdict != Ask {
		t.Errorf("allow, ask, allow = %q, want ask", d.Verdict)
	}
	r, _ = newRunner(t, h(allow), h(deny), h(after))
	d := r.BeforeToolCall(context.Background(), callInput("x", `{}`))
	if d.Verdict != Deny || d.Reason != "nope" || !strings.HasSuffix(d.Hooks, "deny.sh") || strings.Contains(d.Hooks, "after.sh") {
		t.Errorf("allow, deny, after = %+v", d)
	}
	if _, err := os.Stat(ran); err == nil {
		t.Error("a hook after the denial ran")
	}
}

// A hook that outlives its timeout is killed with every process of its
// group, and the call is denied saying it timed out; a hook that exits
// leaving a background process behind has it killed too.
func TestTimeoutKillsProcessGroup(t *testing.T) {
	dir := t.TempDir()
	slow := script(t, dir, "slow.sh", fmt.Sprintf("sleep 60 & echo $! > %s/child; wait", dir))
	r, _ := newRunner(t, Hook{Event: BeforeToolCall, Command: slow, Timeout: 300 * time.Millisecond})
	start := time.Now()
	d := r.BeforeToolCall(context.Background(), callInput("run_command", `{}`))
	if el := time.Since(start); el > 5*time.Second {
		t.Errorf("the hook took %s to be stopped at a 300ms timeout", el)
	}
	if d.Verdict != Deny || !strings.Contains(d.Reason, "timed out after 300ms") {
		t.Errorf("a hung hook: %+v, want deny saying it timed out", d)
	}
	assertGone(t, filepath.Join(dir, "child"))

	leaver := script(t, dir, "leaver.sh", fmt.Sprintf("sleep 60 >/dev/null 2>&1 & echo $! > %s/left; exit 0", dir))
	r, _ = newRunner(t, Hook{Event: BeforeToolCall, Command: leaver})
	if d := r.BeforeToolCall(context.Background(), callInput("run_command", `{}`)); d.Verdict != NoObjection {
		t.Errorf("leaver: %+v", d)
	}
	assertGone(t, filepath.Join(dir, "left"))
}

// assertGone fails unless the process whose pid pidFile holds has ended
// (a zombie of an exited parent is reaped by init; wait for that).
func assertGone(t *testing.T, pidFile string) {
	t.Helper()
	b, err := os.ReadFile(pidFile)
	if err != nil {
		t.Fatalf("the hook never wrote its child's pid: %v", err)
	}
	pid, _ := strconv.Atoi(strings.TrimSpace(string(b)))
	deadline := time.Now().Add(5 * time.Second)
	for {
		st, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
		if err != nil || syscall.Kill(pid, 0) != nil {
			return
		}
		if f := strings.Fields(string(st)); len(f) > 2 && f[2] == "Z" {
			return // killed, not yet reaped
		}
		if time.Now().After(deadline) {
			syscall.Kill(pid, syscall.SIGKILL)
			t.Fatalf("the hook's child %d still runs", pid)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// The hook reads one JSON object with the contract's fields and Claude
// Code's names, every text redacted, with only the environment given and
// no controlling terminal.
func TestInputEnvironmentAndRedaction(t *testing.T) {
	dir := t.TempDir()
	cat := script(t, dir, "cat.sh", fmt.Sprintf("cat > %s/in.json; export -p > %s/env.txt; (exec 3</dev/tty) 2>/dev/null && echo has-tty > %s/tty; exit 0", dir, dir, dir))
	r, _ := newRunner(t, Hook{Event: AfterToolCall, Matcher: "read_*", Command: cat})
	out := "token: s3cr3t-value"
	note := r.AfterToolCall(context.Background(), Input{RunID: "run1", Workspace: dir, Tool: "read_file", CallID: "c1",
		Arguments: json.RawMessage(`{"path":"a.txt","x":"s3cr3t-value <b>"}`), Status: "ok", Output: &out})
	if note != "" {
		t.Errorf("a silent hook gave note %q", note)
	}
	b, _ := os.ReadFile(filepath.Join(dir, "in.json"))
	var in map[string]any
	if err := json.Unmarshal(b, &in); err != nil {
		t.Fatalf("stdin is not one JSON object: %v\n%s", err, b)
	}
	for k, want := range map[string]any{"event": "after_tool_call", "run_id": "run1", "workspace": dir, "tool": "read_file", "call_id": "c1",
		"status": "ok", "output": "token: [REDACTED:test]", "session_id": "run1", "cwd": dir, "hook_event_name": "PostToolUse", "tool_name": "read_file"} {
		if in[k] != want {
			t.Errorf("input %s = %v, want %v", k, in[k], want)
		}
	}
	if args, _ := json.Marshal(in["arguments"]); string(args) != `{"path":"a.txt","x":"[REDACTED:test] \u003cb\u003e"}` || !strings.Contains(string(b), "<b>") {
		t.Errorf("arguments = %s (raw %s)", args, b)
	}
	if strings.Contains(string(b), "s3cr3t") {
		t.Errorf("the hook saw the secret: %s", b)
	}
	env, _ := os.ReadFile(filepath.Join(dir, "env.txt"))
	if !strings.Contains(string(env), "KEPT") || strings.Contains(string(env), "HOME=") {
		t.Errorf("the hook's environment is not the one given:\n%s", env)
	}
	if _, err := os.Stat(filepath.Join(dir, "tty")); err == nil {
		t.Error("the hook has a controlling terminal")
	}
}

func TestMatcher(t *testing.T) {
	for _, c := range []struct {
		m, tool string
		want    bool
	}{
		{"", "anything", true}, {"run_command", "run_command", true}, {"run_command", "read_file", false},
		{"*_file", "edit_file", true}, {"*_file", "grep", false}, {"edit_file|write_file", "write_file", true},
		{"edit_file | grep", "grep", true}, {"*", "x", true},
	} {
		if got := (Hook{Event: BeforeToolCall, Matcher: c.m}).Matches(BeforeToolCall, c.tool); got != c.want {
			t.Errorf("matcher %q on %q = %v", c.m, c.tool, got)
		}
	}
	if (Hook{Event: AfterToolCall}).Matches(BeforeToolCall, "x") {
		t.Error("a hook matched another event")
	}
	if (Hook{Event: UserPrompt, Matcher: "nothing"}).Matches(UserPrompt, "") != true {
		t.Error("the matcher of an event that is not about a call must not apply")
	}
	if CheckMatcher("[bad") == nil || CheckMatcher("a|b*") != nil {
		t.Error("CheckMatcher")
	}
}

func TestUserPromptAndNotes(t *testing.T) {
	dir := t.TempDir()
	block := script(t, dir, "block.sh", `grep -q forbidden && { echo "no forbidden prompts" >&2; exit 2; }; exit 0`)
	jsonBlock := script(t, dir, "jblock.sh", `echo '{"block": true, "reason": "s3cr3t-value stays home"}'`)
	broken := script(t, dir, "broken.sh", "exit 7")
	r, warns := newRunner(t, Hook{Event: UserPrompt, Command: broken}, Hook{Event: UserPrompt, Command: block})
	if b, _, _ := r.UserPrompt(context.Background(), Input{Prompt: "hello"}); b {
		t.Error("a plain prompt was blocked (a failing hook only warns)")
	}
	if len(*warns) == 0 || !strings.Contains((*warns)[0], "exited 7") {
		t.Errorf("warnings %q", *warns)
	}
	if b, reason, hook := r.UserPrompt(context.Background(), Input{Prompt: "do the forbidden thing"}); !b || reason != "no forbidden prompts" || hook != block {
		t.Errorf("blocked %v reason %q hook %q", b, reason, hook)
	}
	r, _ = newRunner(t, Hook{Event: UserPrompt, Command: jsonBlock})
	if b, reason, _ := r.UserPrompt(context.Background(), Input{Prompt: "x"}); !b || reason != "[REDACTED:test] stays home" {
		t.Errorf("json block: %v %q", b, reason)
	}

	note := script(t, dir, "note.sh", `echo '{"note": "remember the tests"}'`)
	claude := script(t, dir, "claude.sh", `echo '{"hookSpecificOutput": {"additionalContext": "and the docs"}}'`)
	r, _ = newRunner(t, Hook{Event: AfterToolCall, Matcher: "edit_file", Command: note}, Hook{Event: AfterToolCall, Command: claude})
	out := ""
	if n := r.AfterToolCall(context.Background(), Input{Tool: "edit_file", Output: &out}); n != "remember the tests\nand the docs" {
		t.Errorf("notes %q", n)
	}
	if n := r.AfterToolCall(context.Background(), Input{Tool: "grep", Output: &out}); n != "and the docs" {
		t.Errorf("a matcher that does not match: notes %q", n)
	}
}

// The hooks stand in front of the real approver: a rule's denial stands
// without asking a hook; a hook's denial, ask and allow change what the
// mode would do; only a person may let a call leave the sandbox.
func TestApprover(t *testing.T) {
	dir := t.TempDir()
	count := filepath.Join(dir, "count")
	answer := func(name, body string) string {
		return script(t, dir, name, fmt.Sprintf("echo x >> %s\n%s", count, body))
	}
	deny := answer("deny.sh", "echo 'hook says no' >&2; exit 2")
	allow := answer("allow.sh", `echo '{"decision":"allow","reason":"fine by me"}'`)
	ask := answer("ask.sh", `echo '{"decision":"ask","reason":"look first"}'`)
	silent := answer("silent.sh", "exit 0")
	mk := func(mode policy.Mode, cmd string) *Approver {
		pol, err := policy.New(mode, nil, []string{"run_command(rm *)"}, dir)
		if err != nil {
			t.Fatal(err)
		}
		env := &tools.Env{Workspace: dir}
		r, _ := newRunner(t, Hook{Event: BeforeToolCall, Matcher: "run_command|read_file", Command: cmd})
		return &Approver{Inner: &approval.Approver{Policy: pol, Tools: tools.Default(), ToolEnv: env}, Hooks: r, Workspace: dir}
	}
	req := func(tool, args string) protocol.ApprovalRequest {
		risk := event.RiskExec
		if tool == "read_file" {
			risk = event.RiskRead
		}
		return protocol.ApprovalRequest{RunID: "r", CallID: "c", Tool: tool, Arguments: args, Risk: risk}
	}
	ls := req("run_command", `{"command":"ls"}`)
	for _, c := range []struct {
		name    string
		a       *Approver
		req     protocol.ApprovalRequest
		verdict protocol.Verdict
		source  event.Source
		asked   bool // the hook ran
	}{
		{"rule denies first", mk(policy.ModeFullAuto, allow), req("run_command", `{"command":"rm -rf x"}`), protocol.Deny, event.SourceRule, false},
		{"hook denies full-auto", mk(policy.ModeFullAuto, deny), ls, protocol.Deny, event.SourceHook, true},
		{"hook denies a read", mk(policy.ModeFullAuto, deny), req("read_file", `{"path":"a"}`), protocol.Deny, event.SourceHook, true},
		{"hook asks in full-auto", mk(policy.ModeFullAuto, ask), ls, protocol.Pending, "", true},
		{"hook allows under ask", mk(policy.ModeAsk, allow), ls, protocol.Allow, event.SourceHook, true},
		{"silent hook: the mode asks", mk(policy.ModeAsk, silent), ls, protocol.Pending, "", true},
		{"silent hook: the mode allows", mk(policy.ModeFullAuto, silent), ls, protocol.Allow, event.SourceMode, true},
		{"other tool: no hook", mk(policy.ModeFullAuto, deny), req("grep", `{"pattern":"x"}`), protocol.Allow, event.SourceMode, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			os.Remove(count)
			d, err := c.a.Approve(context.Background(), c.req)
			if err != nil {
				t.Fatal(err)
			}
			_, ran := os.Stat(count)
			if d.Verdict != c.verdict || d.Source != c.source || (ran == nil) != c.asked || (d.Hook != "") != c.asked {
				t.Errorf("got %s by %q (hook %q, ran %v), want %s by %q (ran %v); reason %q", d.Verdict, d.Source, d.Hook, ran == nil, c.verdict, c.source, c.asked, d.Reason)
			}
		})
	}
	var _ agent.Escalator = (*Approver)(nil)
	var _ agent.Granter = (*Approver)(nil)
	var _ agent.AfterCallHook = (*Approver)(nil)
}

// A cancelled context stops a hook at once and decides nothing.
func TestCancelled(t *testing.T) {
	dir := t.TempDir()
	slow := script(t, dir, "slow.sh", fmt.Sprintf("sleep 60 & echo $! > %s/child; wait", dir))
	r, _ := newRunner(t, Hook{Event: BeforeToolCall, Command: slow, Timeout: time.Minute})
	pol, _ := policy.New(policy.ModeFullAuto, nil, nil, dir)
	a := &Approver{Inner: &approval.Approver{Policy: pol, ToolEnv: &tools.Env{Workspace: dir}}, Hooks: r, Workspace: dir}
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		for {
			if _, err := os.Stat(filepath.Join(dir, "child")); err == nil {
				cancel()
				return
			}
			time.Sleep(10 * time.Millisecond)
		}
	}()
	if _, err := a.Approve(ctx, protocol.ApprovalRequest{Tool: "run_command", Arguments: `{"command":"ls"}`, Risk: event.RiskExec}); err == nil {
		t.Error("an interrupted hook decided the call")
	}
	assertGone(t, filepath.Join(dir, "child"))
}

func TestClipKeepsCharacters(t *testing.T) {
	got := clip("aé", 2) // é is two bytes: byte 2 is inside it
	if got != "a…" || !utf8.ValidString(got) {
		t.Fatalf("clip = %q", got)
	}
	if got := clip("abc", 3); got != "abc" {
		t.Fatalf("clip = %q", got)
	}
}
