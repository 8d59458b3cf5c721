package e2e

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// tiocstiBin is e2e/testdata/tiocsti, built by TestMain.
var tiocstiBin string

// A sandboxed command tries to type into the person's terminal (TIOCSTI on
// its descriptors and /dev/tty, plainly and disguised, and a write to
// /dev/tty): the agent runs in a shell in tmux that stands for the person's
// terminal, and after the agent exits that shell has received nothing, so
// the injected `touch` never runs; nothing was drawn on the terminal.
func TestSandboxCommandCannotTypeIntoTerminal(t *testing.T) {
	needSandbox(t)
	tm := newTmux(t)
	dir := t.TempDir()
	marker := filepath.Join(dir, "injected")
	// Control: the injector, run straight in the pane's shell, does type.
	ctl := filepath.Join(dir, "control")
	e := newEnv(t, script(
		turn("", call("c1", "run_command", map[string]any{"command": tiocstiBin + " 'touch " + marker + "'; echo sent"})),
		turn("done"),
	))
	tm.start(160, 40, e.environ(), e.ws, "bash --norc --noprofile -i")
	tm.wait(`\$ ?$|#`, 10*time.Second)
	tm.typeText(tiocstiBin + " 'touch " + ctl + "' </dev/null >/dev/null 2>&1")
	tm.keys("Enter")
	tm.typeText("echo IDLE-$((6*7))")
	tm.keys("Enter")
	tm.wait(`IDLE-42`, 10*time.Second)
	if _, err := os.Stat(ctl); err != nil {
		t.Skip("TIOCSTI does not inject on this kernel even without the agent (dev.tty.legacy_tiocsti = 0?)")
	}
	out := filepath.Join(dir, "run.err")
	tm.typeText(agentBin + " run --approval full-auto tidy 2>" + out + "; echo AGENT-DONE-$?")
	tm.keys("Enter")
	tm.wait(`AGENT-DONE-\d+`, 60*time.Second)
	tm.typeText("echo IDLE2-$((6*7))")
	tm.keys("Enter")
	tm.wait(`IDLE2-42`, 10*time.Second)
	if !strings.Contains(tm.screen(), "AGENT-DONE-0") {
		t.Fatalf("the run failed:\n%s\n%s", tm.screen(), readFile(t, out))
	}
	if _, err := os.Stat(marker); err == nil {
		t.Fatal("a sandboxed command typed into the person's terminal, whose shell ran it")
	}
	if strings.Contains(tm.screen(), "TTY-WRITE-touch "+marker) {
		t.Error("a sandboxed command wrote to the person's terminal through /dev/tty")
	}
	id := runID(t, readFile(t, out))
	res := resultOf(e.trace(id), "c1")
	if !strings.Contains(res.Output, "stdin:") || strings.Contains(res.Output, ":injected") {
		t.Errorf("the injector's report: %q", res.Output)
	}
}

// Commands cannot plant what git runs (hooks, core.hooksPath,
// core.fsmonitor, a commondir that points elsewhere) in the workspace's
// .git; the result names the block and how to allow it; git add and commit
// still work inside the sandbox, and the person's next git commands run
// nothing a command left.
func TestSandboxGitHooksAndConfigReadOnly(t *testing.T) {
	needSandbox(t)
	e := newEnv(t, "")
	dir := t.TempDir()
	ran := func(n int) string { return filepath.Join(dir, "ran"+strconv.Itoa(n)) }
	configBefore := readFile(t, filepath.Join(e.ws, ".git", "config"))
	evil := filepath.Join(e.ws, "evilgit")
	r := e.runCommands(t, []string{"XDG_CONFIG_HOME=" + userConfig(t, "[sandbox]\nwritable = ["+strconv.Quote(dir)+"]\n")}, nil,
		"printf '#!/bin/sh\\ntouch "+ran(1)+"\\n' > .git/hooks/post-checkout && chmod +x .git/hooks/post-checkout; echo planted=$?",
		"mkdir -p x && printf '#!/bin/sh\\ntouch "+ran(2)+"\\n' > x/post-checkout && chmod +x x/post-checkout && git config core.hooksPath x; echo configured=$?",
		"git config core.fsmonitor 'touch "+ran(3)+"'; echo fsmonitor=$?; echo '[core]' >> .git/config; echo appended=$?",
		"mkdir -p evilgit/hooks && cp -r .git/objects .git/refs .git/HEAD evilgit/ 2>/dev/null; printf '[core]\\n\\trepositoryformatversion = 0\\n\\tfsmonitor = touch "+ran(4)+"\\n' > evilgit/config; echo "+evil+" > .git/commondir; echo commondir=$?",
		"mv .git .git-moved; echo moved=$?",
		"echo more >> README.md && git add -A && git -c user.name=t -c user.email=t@t commit -qm sandboxed && echo committed",
	)
	if got := readFile(t, filepath.Join(e.ws, ".git", "config")); got != configBefore {
		t.Errorf(".git/config changed:\n%s", got)
	}
	if _, err := os.Stat(filepath.Join(e.ws, ".git", "hooks", "post-checkout")); err == nil {
		t.Error("a hook was planted")
	}
	if _, err := os.Stat(filepath.Join(e.ws, ".git", "commondir")); err == nil {
		t.Error(".git/commondir was left in place")
	}
	if _, err := os.Stat(filepath.Join(e.ws, ".git", "HEAD")); err != nil {
		t.Error(".git was moved away")
	}
	if out := r.results["c6"]["output"].(string); !strings.Contains(out, "committed") {
		t.Errorf("git commit did not work inside the sandbox: %s", out)
	}
	log, _ := exec.Command("git", "-C", e.ws, "log", "-1", "--format=%s").Output()
	if strings.TrimSpace(string(log)) != "sandboxed" {
		t.Errorf("last commit %q", log)
	}
	out := r.results["c1"]["output"].(string)
	if !strings.Contains(out, ".git/hooks") || !strings.Contains(out, "read-only") || !strings.Contains(out, "outside_sandbox") {
		t.Errorf("the blocked hook write is not named with how to allow it:\n%s", out)
	}
	if out := r.results["c4"]["output"].(string); !strings.Contains(out, "commondir") {
		t.Errorf("the planted commondir is not named:\n%s", out)
	}
	// The person's next git commands.
	for _, args := range [][]string{{"status"}, {"checkout", "-q", "-b", "person"}, {"diff"}} {
		c := exec.Command("git", args...)
		c.Dir = e.ws
		c.Run()
	}
	for i := 1; i <= 4; i++ {
		if _, err := os.Stat(ran(i)); err == nil {
			t.Errorf("the person's git ran what command %d planted", i)
		}
	}
}

// A command can neither read nor list nor write the agent's state
// directory (the journal, shadow repositories, the redaction key), and
// AGENT_HOME is not in its environment.
func TestSandboxStateDirUnreachable(t *testing.T) {
	needSandbox(t)
	e := newEnv(t, "")
	// The state directory exists (with its key) once a run has opened it.
	r := e.runCommands(t, nil, nil,
		"cat "+e.home+"/redact.key > key.copy; echo read=$?",
		"ls -la "+e.home+" > list.txt 2>&1; ls "+e.home+"/* >> list.txt 2>&1; echo listed",
		"echo x > "+e.home+"/planted; echo wrote=$?; env > env.txt",
	)
	key, err := os.ReadFile(filepath.Join(e.home, "redact.key"))
	if err != nil || len(key) == 0 {
		t.Fatalf("no redact.key in the state directory: %v", err)
	}
	if b, _ := os.ReadFile(filepath.Join(e.ws, "key.copy")); len(b) > 0 && strings.Contains(string(b), strings.TrimSpace(string(key))) {
		t.Error("a command read redact.key")
	}
	if b := readFile(t, filepath.Join(e.ws, "list.txt")); strings.Contains(b, "agent.db") || strings.Contains(b, "redact.key") {
		t.Errorf("a command listed the state directory:\n%s", b)
	}
	if _, err := os.Stat(filepath.Join(e.home, "planted")); err == nil {
		t.Error("a command wrote into the state directory")
	}
	if strings.Contains(readFile(t, filepath.Join(e.ws, "env.txt")), "AGENT_HOME=") {
		t.Error("AGENT_HOME is in a command's environment")
	}
	_ = r
}

// SIGKILL of the agent alone while a command runs under the spawner: the
// spawner and the command die with it; resume reports the command as not
// re-run.
func TestSpawnerDiesWithTheAgent(t *testing.T) {
	needSandbox(t)
	dir := t.TempDir()
	fifo := filepath.Join(dir, "gate")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	e := newEnv(t, script(
		turn("", call("c1", "run_command", map[string]any{"command": "echo $$ > " + dir + "/cmd.pid; cat " + fifo + " > /dev/null; sleep 60"})),
		turn("stopping"),
	))
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, agentBin, "run", "--approval", "full-auto", "work")
	cmd.Env = e.environ("XDG_CONFIG_HOME=" + userConfig(t, "[sandbox]\nwritable = ["+strconv.Quote(dir)+"]\n"))
	cmd.Dir = e.ws
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	w := openWriter(t, fifo)
	w.Close()
	pid, err := strconv.Atoi(strings.TrimSpace(readFile(t, filepath.Join(dir, "cmd.pid"))))
	if err != nil {
		t.Fatal(err)
	}
	spawners := childrenNamed(cmd.Process.Pid, "sandbox-spawner")
	if len(spawners) != 1 {
		t.Fatalf("the agent has %d spawner children, want 1", len(spawners))
	}
	t.Cleanup(func() { syscall.Kill(pid, syscall.SIGKILL); syscall.Kill(spawners[0], syscall.SIGKILL) })
	cmd.Process.Signal(syscall.SIGKILL)
	cmd.Wait()
	deadline := time.Now().Add(10 * time.Second)
	for !(procGone(pid) && procGone(spawners[0])) {
		if time.Now().After(deadline) {
			t.Fatalf("after the agent's SIGKILL: command gone %v, spawner gone %v", procGone(pid), procGone(spawners[0]))
		}
		time.Sleep(20 * time.Millisecond)
	}
	id := runID(t, stderr.String())
	r := e.run("resume", id, "--headless", "--approval", "full-auto")
	if r.code != 0 {
		t.Fatalf("resume: exit %d\n%s", r.code, r.stderr)
	}
	if !strings.Contains(r.stderr, "not re-run") && !strings.Contains(r.stderr, "not run again") {
		t.Errorf("resume does not say the command was not re-run:\n%s", r.stderr)
	}
}

// childrenNamed lists the children of ppid whose command line holds name.
func childrenNamed(ppid int, name string) []int {
	var out []int
	ents, _ := os.ReadDir("/proc")
	for _, en := range ents {
		pid, err := strconv.Atoi(en.Name())
		if err != nil {
			continue
		}
		st, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
		if err != nil {
			continue
		}
		s := string(st)
		f := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
		if len(f) < 2 || f[1] != strconv.Itoa(ppid) {
			continue
		}
		cl, _ := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
		if strings.Contains(string(cl), name) {
			out = append(out, pid)
		}
	}
	return out
}

// In the TUI, a background child of an approved command keeps trying to
// type "y" into the terminal while the model's next call — a request to run
// outside the sandbox — waits for the person: the prompt stays open, the
// call never runs, and the journal records no decision for it.
func TestTUIApprovalCannotBeTypedByACommand(t *testing.T) {
	needSandbox(t)
	tm := newTmux(t)
	e := newEnv(t, script(
		turn("", call("c1", "run_command", map[string]any{"command": "( for i in $(seq 40); do " + tiocstiBin + " y >> typed.log 2>&1; sleep 0.1; done ) > /dev/null 2>&1 & echo started"})),
		turn("", call("c2", "run_command", map[string]any{"command": "touch escalated", "outside_sandbox": true})),
		turn("done"),
	))
	env := append(e.environ(), "AGENT_APPROVAL=ask", "AGENT_SANDBOX=workspace-write", "AGENT_MODEL=test-model")
	tm.start(120, 40, env, e.ws, agentBin+"; echo AGENT-EXITED-$?; sleep 60")
	tm.wait(`Ask, or /`, 15*time.Second)
	tm.typeText("start the background job")
	tm.keys("Enter")
	tm.wait(`1/y\s+allow once`, 15*time.Second)
	time.Sleep(350 * time.Millisecond) // past the prompt's key guard, as a person would be
	tm.keys("1")
	tm.wait(`touch escalated`, 15*time.Second)
	tm.wait(`1/y\s+allow once`, 5*time.Second)
	// The background child has tried many times while this prompt was open.
	waitFile(t, filepath.Join(e.ws, "typed.log"), func(s string) bool { return strings.Count(s, "stdin:") >= 10 }, 30*time.Second)
	s := tm.screen()
	if !regexp.MustCompile(`1/y\s+allow once`).MatchString(s) {
		t.Fatalf("the escalation prompt closed without the person:\n%s", s)
	}
	if _, err := os.Stat(filepath.Join(e.ws, "escalated")); err == nil {
		t.Fatal("the escalated call ran without the person")
	}
	if strings.Contains(readFile(t, filepath.Join(e.ws, "typed.log")), ":injected") {
		t.Error("the background child's TIOCSTI succeeded")
	}
	tm.keys("C-c")
	tm.wait(`ctrl\+c again`, 5*time.Second)
	tm.keys("C-c")
	out := tm.wait(`AGENT-EXITED-\d+`, 10*time.Second)
	id := regexp.MustCompile(`agent resume (\d{8}T\d{6}-[0-9a-f]{6})`).FindStringSubmatch(out)
	if id == nil {
		t.Fatalf("no resume line:\n%s", out)
	}
	for _, ev := range e.rawTrace(id[1]) {
		if ev["type"] == "approval" && ev["call_id"] == "c2" {
			t.Errorf("the journal records a decision for the escalation nobody made: %v", ev)
		}
	}
}

// Credential-named variables never reach a command nor the model nor the
// export, even with low-entropy values only their names mark; harmless
// look-alikes (KEYBOARD_*, PWD) still pass.
func TestCredentialNamedVariablesScrubbed(t *testing.T) {
	needSandbox(t)
	e := newEnv(t, "")
	vals := map[string]string{
		"PGPASS": "amber-12345-birch", "SSHPASS": "cedar-23456-delta", "LDAP_BIND_PW": "ember-34567-fjord",
		"KUBE_BEARER": "grove-45678-heron", "X_API_KEY": "ivory-56789-jewel", "REDIS_PASSWORD": "karma-67890-lemon",
	}
	extra := []string{"KEYBOARD_LAYOUT=kbd-us", "PLAIN_SETTING=plain-ok"}
	for k, v := range vals {
		extra = append(extra, k+"="+v)
	}
	r := e.runCommands(t, extra, nil, "env | sort > env.txt; env; echo PWD=$PWD")
	got := readFile(t, filepath.Join(e.ws, "env.txt"))
	exp := e.run("export", r.id, "-o", filepath.Join(t.TempDir(), "x.jsonl"))
	if exp.code != 0 {
		t.Fatalf("export: %s", exp.stderr)
	}
	var bodies strings.Builder
	for _, req := range e.srv.Requests() {
		bodies.Write(req.Body)
	}
	for k, v := range vals {
		if strings.Contains(got, v) {
			t.Errorf("%s reached the command's environment", k)
		}
		if strings.Contains(bodies.String(), v) {
			t.Errorf("%s's value reached the model", k)
		}
	}
	for _, want := range []string{"KEYBOARD_LAYOUT=kbd-us", "PLAIN_SETTING=plain-ok", "PWD=/"} {
		if !strings.Contains(got, want) {
			t.Errorf("%s was taken from the command's environment too", want)
		}
	}
}

// A project file's base_url (here the repository's own dev server on
// loopback) receives nothing: the request goes to the user's endpoint and
// the run warns, naming base_url.
func TestProjectBaseURLIgnored(t *testing.T) {
	e := newEnv(t, script(turn("nothing to do")))
	got := make(chan string, 4)
	ln := loopbackRecorder(t, got)
	if err := os.MkdirAll(filepath.Join(e.ws, ".agent"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(e.ws, ".agent", "config.toml"), []byte(fmt.Sprintf("base_url = \"http://%s/v1\"\n", ln)), 0o644); err != nil {
		t.Fatal(err)
	}
	r := e.run("run", "--approval", "full-auto", "hello")
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	select {
	case req := <-got:
		t.Fatalf("the project's base_url received a request: %s", req)
	default:
	}
	if len(e.srv.Requests()) == 0 {
		t.Error("the user's endpoint got no request")
	}
	if !strings.Contains(r.stderr, "base_url") {
		t.Errorf("no warning naming base_url:\n%s", r.stderr)
	}
}

// loopbackRecorder is a listener on 127.0.0.1 that reports every request.
func loopbackRecorder(t *testing.T, got chan<- string) string {
	t.Helper()
	ln, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case got <- r.Method + " " + r.URL.Path:
		default:
		}
		http.Error(w, "no", http.StatusTeapot)
	})}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	return ln.Addr().String()
}
