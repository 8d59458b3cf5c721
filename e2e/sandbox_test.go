package e2e

import (
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"agent/internal/sandbox"
)

// needSandbox skips a test that needs the kernel's Landlock and user
// namespaces, saying why.
func needSandbox(t *testing.T) {
	t.Helper()
	c := sandbox.Detect()
	if c.LandlockABI == 0 {
		t.Skipf("no Landlock on this kernel (%s): the sandbox cannot be enforced here; TestSandboxUnavailable* cover that path", c.Reason)
	}
	if !c.UserNS {
		t.Skip("user namespaces are not available here: no-network tests need them")
	}
}

// loopbackServer serves "hello from the host" on 127.0.0.1.
func loopbackServer(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { fmt.Fprint(w, "hello from the host") })}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	return ln.Addr().String()
}

type sandboxResult struct {
	calls   []map[string]any
	results map[string]map[string]any
	stderr  string
	code    int
	id      string
}

// runCommands runs each command as one run_command call of a full-auto run
// (the default sandbox, workspace-write, unless args say otherwise).
func (e *env) runCommands(t *testing.T, extraEnv []string, args []string, commands ...string) sandboxResult {
	t.Helper()
	var turns []map[string]any
	for i, c := range commands {
		turns = append(turns, turn("", call("c"+strconv.Itoa(i+1), "run_command", map[string]any{"command": c})))
	}
	e.serve(script(append(turns, turn("done"))...))
	r := e.runEnv(extraEnv, append([]string{"run", "--approval", "full-auto"}, append(args, "go")...)...)
	out := sandboxResult{results: map[string]map[string]any{}, stderr: r.stderr, code: r.code}
	if r.code != 0 {
		t.Fatalf("run: exit %d\n%s", r.code, r.stderr)
	}
	out.id = runID(t, r.stderr)
	for _, ev := range e.rawTrace(out.id) {
		switch ev["type"] {
		case "tool_call":
			out.calls = append(out.calls, ev)
		case "tool_result":
			out.results[ev["call_id"].(string)] = ev
		}
	}
	return out
}

func sandboxOf(ev map[string]any) map[string]any {
	m, _ := ev["sandbox"].(map[string]any)
	return m
}

// Under full-auto's default sandbox, writes outside the workspace fail and
// leave nothing (the home directory, /tmp/../etc, a directory outside
// reached through a symlink); writes inside work; each call records the
// sandbox it ran under, and a blocked write says what and how to allow it.
func TestSandboxWorkspaceWrite(t *testing.T) {
	needSandbox(t)
	e := newEnv(t, "")
	home := t.TempDir()
	outside := t.TempDir()
	etc := "/etc/agent-sandbox-test-" + strconv.Itoa(os.Getpid())
	t.Cleanup(func() { os.Remove(etc) })
	r := e.runCommands(t, []string{"HOME=" + home}, nil,
		"touch $HOME/x",
		"echo escaped > /tmp/../etc/"+filepath.Base(etc),
		"ln -s "+outside+" out && touch out/escaped",
		"touch ./ok && mkdir -p sub && echo ok > sub/x.txt",
		"touch $TMPDIR/scratch && echo tmp-ok",
	)
	for _, p := range []string{filepath.Join(home, "x"), etc, filepath.Join(outside, "escaped")} {
		if _, err := os.Lstat(p); err == nil {
			t.Errorf("%s was written from inside the sandbox", p)
		}
	}
	if readFile(t, filepath.Join(e.ws, "sub", "x.txt")) != "ok\n" {
		t.Error("a write inside the workspace did not work")
	}
	if _, err := os.Stat(filepath.Join(e.ws, "ok")); err != nil {
		t.Error("touch ./ok did not work")
	}
	for _, c := range r.calls {
		sb := sandboxOf(c)
		if sb["mode"] != "workspace-write" || sb["network"] != false {
			t.Errorf("tool_call %v records sandbox %v, want workspace-write without network", c["call_id"], sb)
		}
	}
	for id, want := range map[string]string{"c1": filepath.Join(home, "x"), "c2": etc, "c3": filepath.Join(outside, "escaped")} {
		res := r.results[id]
		out, _ := res["output"].(string)
		if !strings.Contains(out, "note: the OS sandbox (workspace-write) blocked:") || !strings.Contains(out, "writable = [") {
			t.Errorf("%s: the result does not say the sandbox blocked it and how to allow it:\n%s", id, out)
		}
		blocked, _ := sandboxOf(res)["blocked"].([]any)
		found := false
		for _, b := range blocked {
			if m := b.(map[string]any); m["kind"] == "write" && m["target"] == want {
				found = true
			}
		}
		if !found {
			t.Errorf("%s: tool_result sandbox.blocked = %v, want a write of %s", id, blocked, want)
		}
	}
	if out := r.results["c5"]["output"].(string); !strings.Contains(out, "tmp-ok") {
		t.Errorf("the run's $TMPDIR is not writable:\n%s", out)
	}
}

// Without network (the default) a command cannot reach a server on the
// host's loopback; with [sandbox] network = true it can.
func TestSandboxNetwork(t *testing.T) {
	needSandbox(t)
	if _, err := exec.LookPath("curl"); err != nil {
		t.Skip("curl is not installed")
	}
	addr := loopbackServer(t)
	cmd := "curl -sS -m 5 http://" + addr + "/"

	e := newEnv(t, "")
	r := e.runCommands(t, nil, nil, cmd)
	out := r.results["c1"]["output"].(string)
	if strings.Contains(out, "hello from the host") {
		t.Fatalf("a sandboxed command reached the host's loopback:\n%s", out)
	}
	if !strings.Contains(out, "connecting to "+addr) || !strings.Contains(out, "network = true") {
		t.Errorf("the result does not say the connection was blocked and how to allow it:\n%s", out)
	}

	cfg := userConfig(t, "[sandbox]\nnetwork = true\n")
	e2 := newEnv(t, "")
	r2 := e2.runCommands(t, []string{"XDG_CONFIG_HOME=" + cfg}, nil, cmd)
	if out := r2.results["c1"]["output"].(string); !strings.Contains(out, "hello from the host") {
		t.Fatalf("with network = true the command did not reach the server:\n%s", out)
	}
	if sb := sandboxOf(r2.calls[0]); sb["mode"] != "workspace-write" || sb["network"] != true {
		t.Errorf("tool_call records %v, want workspace-write with network", sb)
	}
}

// `go test ./...` of a small module works inside the sandbox (the Go build
// cache is writable).
func TestSandboxGoTest(t *testing.T) {
	needSandbox(t)
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("go is not installed")
	}
	cache, err := exec.Command(goBin, "env", "GOCACHE").Output()
	if err != nil {
		t.Fatal(err)
	}
	e := newEnv(t, "")
	for name, body := range map[string]string{
		"add.go":      "package main\n\nfunc add(a, b int) int { return a + b }\n",
		"add_test.go": "package main\n\nimport (\n\t\"os\"\n\t\"testing\"\n)\n\nfunc TestAdd(t *testing.T) {\n\tif add(2, 2) != 4 {\n\t\tt.Fatal(\"no\")\n\t}\n\tif err := os.WriteFile(t.TempDir()+\"/f\", nil, 0o600); err != nil {\n\t\tt.Fatal(err)\n\t}\n}\n",
	} {
		if err := os.WriteFile(filepath.Join(e.ws, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	r := e.runCommands(t, []string{"GOCACHE=" + strings.TrimSpace(string(cache)), "GOTOOLCHAIN=local", "GOFLAGS=-mod=mod"}, nil, "go test ./...")
	out := r.results["c1"]["output"].(string)
	if !strings.Contains(out, "ok  \tdemo") || !strings.Contains(out, "exit code: 0") {
		t.Fatalf("go test ./... failed inside the sandbox:\n%s", out)
	}
}

// Under --sandbox read-only nothing in the workspace changes.
func TestSandboxReadOnly(t *testing.T) {
	needSandbox(t)
	e := newEnv(t, "")
	before := treeOf(t, e.ws)
	r := e.runCommands(t, nil, []string{"--sandbox", "read-only"},
		"touch new.txt; echo changed > README.md; rm -f main.go; mkdir d; mv go.mod go.mod2; echo done")
	if after := treeOf(t, e.ws); after != before {
		t.Errorf("the workspace changed under read-only:\nbefore %s\nafter  %s", before, after)
	}
	if sb := sandboxOf(r.calls[0]); sb["mode"] != "read-only" || sb["source"] != "flag" {
		t.Errorf("tool_call records %v, want read-only from the flag", sb)
	}
	if out := r.results["c1"]["output"].(string); !strings.Contains(out, "the sandbox is read-only") {
		t.Errorf("the result does not say the read-only sandbox blocked the writes:\n%s", out)
	}
}

// A command's environment holds neither the model API key nor a planted
// credential variable, unless the user's env_allow names it.
func TestSandboxEnvScrubbed(t *testing.T) {
	e := newEnv(t, "")
	token := "tok_" + strconv.Itoa(os.Getpid()) + "a8f3k2m9x7q1"
	vals := []string{"OPENAI_API_KEY=sk-test-not-a-real-key-0123456789", "MY_SERVICE_TOKEN=" + token,
		"INNOCENT=hello", "LOOKS_LIKE=AKIAZ7Q3M5N2P8R4T6V1"}
	r := e.runCommands(t, vals, nil, "env")
	out := r.results["c1"]["output"].(string)
	for _, bad := range []string{"OPENAI_API_KEY", "MY_SERVICE_TOKEN", token, "LOOKS_LIKE"} {
		if strings.Contains(out, bad) {
			t.Errorf("env in a command shows %s:\n%s", bad, out)
		}
	}
	if !strings.Contains(out, "INNOCENT=hello") {
		t.Errorf("env in a command lost an ordinary variable:\n%s", out)
	}
	cfg := userConfig(t, "[sandbox]\nenv_allow = [\"MY_SERVICE_*\"]\n")
	e2 := newEnv(t, "")
	r2 := e2.runCommands(t, append(vals, "XDG_CONFIG_HOME="+cfg), nil, "echo value=$MY_SERVICE_TOKEN")
	// The output is redacted (the token is a known secret), but it was there.
	if out := r2.results["c1"]["output"].(string); strings.Contains(out, "value=\n") || !strings.Contains(out, "value=") {
		t.Errorf("env_allow did not keep MY_SERVICE_TOKEN:\n%s", out)
	}
}

// Under ask with a sandbox, a command the sandbox blocked can be run again
// outside it for that one call, when a person approves: an approval of
// scope escalate, on record. Under full-auto, nobody can approve it: the
// mode denies it and the command does not run.
func TestSandboxEscalation(t *testing.T) {
	needSandbox(t)
	outside := t.TempDir()
	target := filepath.Join(outside, "needed.txt")
	e := newEnv(t, script(
		turn("", call("c1", "run_command", map[string]any{"command": "touch " + target})),
		turn("", call("c2", "run_command", map[string]any{"command": "touch " + target, "outside_sandbox": true})),
		turn("done"),
	))
	r := e.run("run", "--approval", "ask", "--sandbox", "workspace-write", "go")
	if r.code != 3 {
		t.Fatalf("run: exit %d, want 3 (c1 asks)\n%s", r.code, r.stderr)
	}
	id := runID(t, r.stderr)
	r = e.run("resume", id, "--headless", "--approve", "c1")
	if r.code != 3 {
		t.Fatalf("resume --approve c1: exit %d, want 3 (c2 asks to leave the sandbox)\n%s", r.code, r.stderr)
	}
	if _, err := os.Stat(target); err == nil {
		t.Fatal("the sandboxed c1 wrote outside the workspace")
	}
	if !strings.Contains(r.stderr, "OUTSIDE the OS sandbox") {
		t.Errorf("the pause does not say the call leaves the sandbox:\n%s", r.stderr)
	}
	r = e.run("resume", id, "--headless", "--approve", "c2")
	if r.code != 0 {
		t.Fatalf("resume --approve c2: exit %d\n%s", r.code, r.stderr)
	}
	if _, err := os.Stat(target); err != nil {
		t.Fatal("the approved call outside the sandbox did not run")
	}
	var scope string
	var c2 map[string]any
	for _, ev := range e.rawTrace(id) {
		if ev["type"] == "approval" && ev["call_id"] == "c2" {
			scope, _ = ev["scope"].(string)
		}
		if ev["type"] == "tool_call" && ev["call_id"] == "c2" {
			c2 = ev
		}
	}
	if scope != "escalate" {
		t.Errorf("c2's approval has scope %q, want escalate", scope)
	}
	if sb := sandboxOf(c2); sb["mode"] != "off" || sb["requested"] != "workspace-write" || sb["source"] != "escalation" {
		t.Errorf("c2's tool_call records %v, want off (requested workspace-write, by escalation)", sb)
	}
	var audit []map[string]any
	e.mustJSON(&audit, "audit", "--run", id, "--json")
	found := false
	for _, a := range audit {
		if a["call_id"] == "c2" && strings.Contains(fmt.Sprint(a["detail"]), "scope escalate") {
			found = true
		}
	}
	if !found {
		t.Errorf("the audit log has no escalate approval of c2: %v", audit)
	}

	// full-auto: the mode does not allow it either; the run pauses for a
	// person, and an "allow for this run" of it is this call only.
	os.Remove(target)
	e2 := newEnv(t, script(
		turn("", call("c1", "run_command", map[string]any{"command": "touch " + target, "outside_sandbox": true})),
		turn("", call("c2", "run_command", map[string]any{"command": "touch " + target, "outside_sandbox": true})),
		turn("done"),
	))
	r = e2.run("run", "--approval", "full-auto", "go")
	if r.code != 3 {
		t.Fatalf("full-auto run: exit %d, want 3 (paused for a person)\n%s", r.code, r.stderr)
	}
	if _, err := os.Stat(target); err == nil {
		t.Fatal("full-auto let a call leave the sandbox")
	}
	if !strings.Contains(r.stderr, "OUTSIDE the OS sandbox") {
		t.Errorf("the full-auto pause does not say the call leaves the sandbox:\n%s", r.stderr)
	}
	id = runID(t, r.stderr)
	r = e2.run("resume", id, "--headless", "--approve", "c1", "--scope", "run")
	if r.code != 3 {
		t.Fatalf("resume --approve c1 --scope run: exit %d, want 3 (c2 asks again)\n%s", r.code, r.stderr)
	}
	if _, err := os.Stat(target); err != nil {
		t.Fatal("the approved call outside the sandbox did not run under full-auto")
	}
	for _, ev := range e2.rawTrace(id) {
		if ev["type"] == "approval" && ev["call_id"] == "c1" && (ev["scope"] != "escalate" || ev["grant"] != nil) {
			t.Errorf("c1's approval %v, want scope escalate and no grant", ev)
		}
	}
}

// --sandbox off under full-auto is a decision on record: run_started and
// each tool_call say off, and the audit log has it.
func TestSandboxOffRecorded(t *testing.T) {
	e := newEnv(t, "")
	r := e.runCommands(t, nil, []string{"--sandbox", "off"}, "true")
	if sb := sandboxOf(r.calls[0]); sb["mode"] != "off" {
		t.Errorf("tool_call records %v, want off", sb)
	}
	var audit []map[string]any
	e.mustJSON(&audit, "audit", "--run", r.id, "--json")
	found := false
	for _, a := range audit {
		if a["action"] == "sandbox" && strings.Contains(fmt.Sprint(a["detail"]), "from the flag") {
			found = true
		}
	}
	if !found {
		t.Errorf("the audit log does not record --sandbox off: %v", audit)
	}
}

// treeOf lists a directory's files with their contents (not .git).
func treeOf(t *testing.T, dir string) string {
	t.Helper()
	var b strings.Builder
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.Name() == ".git" {
			return filepath.SkipDir
		}
		rel, _ := filepath.Rel(dir, p)
		if d.IsDir() {
			fmt.Fprintf(&b, "%s/ ", rel)
			return nil
		}
		data, _ := os.ReadFile(p)
		fmt.Fprintf(&b, "%s=%q ", rel, data)
		return nil
	})
	return b.String()
}
