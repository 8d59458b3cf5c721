package e2e

import (
	"bufio"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
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

// mcpServerBin is internal/mcp/testdata/mcpserver, built by TestMain: an
// MCP stdio server written with the go-sdk's server side (echo, add,
// get-env, touch, crash, sleep).
var mcpServerBin string

// mcpEnv is an env whose user config file names the test MCP server as
// "t", with read_only_tools and a planted token in its environment.
type mcpEnv struct {
	*env
	xdg     string
	planted string
	pidFile string
}

func newMCPEnv(t *testing.T, script string, readOnly ...string) *mcpEnv {
	t.Helper()
	b := make([]byte, 12)
	if _, err := rand.Read(b); err != nil {
		t.Fatal(err)
	}
	m := &mcpEnv{env: newEnv(t, script), xdg: t.TempDir(), planted: "tok_live_" + hex.EncodeToString(b)}
	// The server writes its pid into its own directory: the only place
	// outside the workspace the sandbox lets it write.
	m.pidFile = filepath.Join(m.home, "mcp", "t", "server.pid")
	ro, _ := json.Marshal(readOnly)
	cfg := fmt.Sprintf("[mcp.servers.t]\ncommand = %q\nread_only_tools = %s\nwritable = true\nenv = { SERVICE_TOKEN = %q, MCPTEST_PIDFILE = %q }\n",
		mcpServerBin, ro, m.planted, m.pidFile)
	if err := os.MkdirAll(filepath.Join(m.xdg, "agent"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(m.xdg, "agent", "config.toml"), []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	return m
}

func (m *mcpEnv) agent(args ...string) result {
	m.t.Helper()
	return m.runEnv([]string{"XDG_CONFIG_HOME=" + m.xdg}, args...)
}

// requestBodies are the bodies of the model requests so far.
func (m *mcpEnv) requestBodies() []string {
	var out []string
	for _, r := range m.srv.Requests() {
		out = append(out, string(r.Body))
	}
	return out
}

type mcpToolCallEvent struct {
	Type   string `json:"type"`
	CallID string `json:"call_id"`
	Name   string `json:"name"`
	Risk   string `json:"risk"`
	Status string `json:"status"`
	Output string `json:"output"`
	Files  []string
	Kind   string `json:"kind"`
}

func (m *mcpEnv) export(id string) []mcpToolCallEvent {
	m.t.Helper()
	r := m.agent("export", id)
	if r.code != 0 {
		m.t.Fatalf("export: exit %d\n%s", r.code, r.stderr)
	}
	var evs []mcpToolCallEvent
	for _, line := range strings.Split(strings.TrimSpace(r.stdout), "\n") {
		var ev mcpToolCallEvent
		if err := json.Unmarshal([]byte(line), &ev); err != nil {
			m.t.Fatalf("export line %q: %v", line, err)
		}
		evs = append(evs, ev)
	}
	return evs
}

// Under ask, the model sees the server's tools beside the built-in ones; a
// tool the config marks read runs, the others pause the run for a person;
// what the server returns reaches the model and the journal redacted; an
// approved exec call is checkpointed before and after, with the files it
// changed found by a scan.
func TestMCPToolsUnderAsk(t *testing.T) {
	m := newMCPEnv(t, "", "echo", "get-env")
	// The server works in its own directory: it writes the workspace by
	// its absolute path.
	m.serve(script(
		turn("", call("c1", "mcp__t__echo", map[string]any{"message": "ping-from-agent"})),
		turn("", call("c2", "mcp__t__get-env", map[string]any{})),
		turn("", call("c3", "mcp__t__touch", map[string]any{"path": filepath.Join(m.ws, "made.txt"), "content": "by the server"})),
		turn("all done"),
	))
	r := m.agent("run", "--approval", "ask", "use the tools")
	if r.code != 3 {
		t.Fatalf("exit %d, want 3 (paused)\n%s", r.code, r.stderr)
	}
	if !strings.Contains(r.stderr, "paused: mcp__t__touch exec needs approval (call c3)") {
		t.Errorf("stderr does not say what needs approval:\n%s", r.stderr)
	}
	if _, err := os.Stat(filepath.Join(m.ws, "made.txt")); err == nil {
		t.Fatal("the exec tool ran before it was approved")
	}
	bodies := m.requestBodies()
	if len(bodies) != 3 {
		t.Fatalf("%d model requests, want 3", len(bodies))
	}
	var req struct {
		Tools []struct {
			Function struct {
				Name       string          `json:"name"`
				Parameters json.RawMessage `json:"parameters"`
			} `json:"function"`
		} `json:"tools"`
	}
	if err := json.Unmarshal([]byte(bodies[0]), &req); err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tl := range req.Tools {
		names = append(names, tl.Function.Name)
	}
	joined := strings.Join(names, " ")
	for _, want := range []string{"read_file", "run_command", "mcp__t__echo", "mcp__t__touch", "mcp__t__get-env"} {
		if !strings.Contains(" "+joined+" ", " "+want+" ") {
			t.Errorf("the model was not offered %s: %s", want, joined)
		}
	}
	if !strings.Contains(bodies[1], "Echo: ping-from-agent") {
		t.Error("the read tool's result did not reach the model")
	}
	if strings.Contains(strings.Join(bodies, ""), m.planted) {
		t.Fatal("the planted secret reached the model in plain text")
	}
	if !strings.Contains(bodies[2], "SERVICE_TOKEN") || !strings.Contains(bodies[2], "[REDACTED:") {
		t.Errorf("get-env's output did not reach the model redacted: %.300s", bodies[2])
	}

	id := runID(t, r.stderr)
	r = m.agent("resume", id, "--approve", "c3")
	if r.code != 0 {
		t.Fatalf("resume --approve: exit %d\n%s", r.code, r.stderr)
	}
	if got := readFile(t, filepath.Join(m.ws, "made.txt")); got != "by the server" {
		t.Errorf("made.txt = %q", got)
	}
	evs := m.export(id)
	risks := map[string]string{}
	var afterFiles []string
	for _, ev := range evs {
		switch {
		case ev.Type == "tool_call":
			risks[ev.CallID] = ev.Risk
		case ev.Type == "checkpoint" && ev.CallID == "c3" && ev.Kind == "after":
			afterFiles = ev.Files
		case ev.Type == "tool_result" && strings.Contains(ev.Output, m.planted):
			t.Errorf("the journal holds the secret in %s's result", ev.CallID)
		}
	}
	if risks["c1"] != "read" || risks["c2"] != "read" || risks["c3"] != "exec" {
		t.Errorf("risks %v", risks)
	}
	if strings.Join(afterFiles, ",") != "made.txt" {
		t.Errorf("c3's after-checkpoint lists %v, want made.txt", afterFiles)
	}
	rows := m.audit(id)
	var c3 string
	for _, row := range rows {
		if row.CallID == "c3" {
			c3 = row.Detail
		}
	}
	if !strings.Contains(c3, "allow") {
		t.Errorf("the approval of c3 is not audited: %+v", rows)
	}
}

// A server that dies in the middle of a call gives the model a tool error
// and the run goes on (the next call starts the server again); `agent mcp
// list` shows the server and its tools.
func TestMCPServerCrashAndList(t *testing.T) {
	m := newMCPEnv(t, script(
		turn("", call("c1", "mcp__t__crash", map[string]any{})),
		turn("", call("c2", "mcp__t__echo", map[string]any{"message": "after the crash"})),
		turn("recovered"),
	), "echo")
	r := m.agent("run", "--approval", "full-auto", "crash it")
	if r.code != 0 || strings.TrimSpace(r.stdout) != "recovered" {
		t.Fatalf("exit %d, stdout %q\n%s", r.code, r.stdout, r.stderr)
	}
	bodies := m.requestBodies()
	if len(bodies) != 3 || !strings.Contains(bodies[1], `died during the call`) || !strings.Contains(bodies[1], "simulated crash") {
		t.Fatalf("the crash did not reach the model as a tool error: %d requests\n%.2000s", len(bodies), strings.Join(bodies, "\n"))
	}
	if !strings.Contains(bodies[2], "Echo: after the crash") {
		t.Error("the call after the crash did not run")
	}
	res := resultOf(m.trace(runID(t, r.stderr)), "c1")
	if res.Status != "error" {
		t.Errorf("c1 status %q, want error", res.Status)
	}

	r = m.agent("mcp", "list", "--json")
	var list []struct {
		Name   string `json:"name"`
		Status string `json:"status"`
		Tools  []struct {
			Name string `json:"name"`
			Risk string `json:"risk"`
		} `json:"tools"`
	}
	if r.code != 0 || json.Unmarshal([]byte(r.stdout), &list) != nil || len(list) != 1 {
		t.Fatalf("mcp list --json: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	risks := map[string]string{}
	for _, tl := range list[0].Tools {
		risks[tl.Name] = tl.Risk
	}
	if list[0].Name != "t" || list[0].Status != "running" || risks["mcp__t__echo"] != "read" || risks["mcp__t__touch"] != "exec" {
		t.Errorf("mcp list: %+v", list)
	}
	r = m.agent("mcp", "list")
	if f := strings.Fields(strings.Split(r.stdout+"\n\n", "\n")[1]); r.code != 0 || len(f) < 4 || f[0] != "t" || f[1] != "running" || f[3] != strconv.Itoa(len(list[0].Tools)) {
		t.Errorf("mcp list: exit %d, want a row: t running stdio %d ...\n%s", r.code, len(list[0].Tools), r.stdout)
	}
}

// An MCP call in flight when the agent is killed is not sent again by
// `agent resume`: like a command, its outcome is unknown. The server dies
// with the agent.
func TestMCPCallNotResentOnResume(t *testing.T) {
	m := newMCPEnv(t, script(
		turn("", call("c1", "mcp__t__sleep", map[string]any{"seconds": 60})),
		turn("ok"),
	), "sleep")
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, agentBin, "run", "--json", "--approval", "ask", "sleep")
	cmd.Env = m.environ("XDG_CONFIG_HOME=" + m.xdg)
	cmd.Dir = m.ws
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(out)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	var id string
	for sc.Scan() {
		var ev struct {
			Type  string `json:"type"`
			Name  string `json:"name"`
			RunID string `json:"run_id"`
		}
		if json.Unmarshal(sc.Bytes(), &ev) == nil && ev.Type == "tool_call" && ev.Name == "mcp__t__sleep" {
			id = ev.RunID
			break // committed and fsynced: the call is being sent
		}
	}
	cmd.Process.Signal(syscall.SIGKILL)
	for sc.Scan() {
	}
	cmd.Wait()
	if id == "" {
		t.Fatal("no tool_call event before the kill")
	}
	b, err := os.ReadFile(m.pidFile)
	if err != nil {
		t.Fatal(err)
	}
	pid, _ := strconv.Atoi(string(b))
	gone := false
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		if err := syscall.Kill(pid, 0); errors.Is(err, syscall.ESRCH) {
			gone = true
			break
		}
	}
	if !gone {
		t.Errorf("the MCP server (pid %d) outlived the agent", pid)
	}

	r := m.agent("resume", id)
	if r.code != 0 {
		t.Fatalf("resume: exit %d\n%s", r.code, r.stderr)
	}
	var resume struct {
		Interrupted []struct {
			CallID string `json:"call_id"`
			Action string `json:"action"`
		} `json:"interrupted"`
	}
	res := ""
	for _, line := range strings.Split(strings.TrimSpace(m.agent("export", id).stdout), "\n") {
		var ev struct {
			Type   string `json:"type"`
			CallID string `json:"call_id"`
			Status string `json:"status"`
			Output string `json:"output"`
		}
		json.Unmarshal([]byte(line), &ev)
		if ev.Type == "resume" {
			json.Unmarshal([]byte(line), &resume)
		}
		if ev.Type == "tool_result" && ev.CallID == "c1" {
			res = ev.Status + ": " + ev.Output
		}
	}
	if len(resume.Interrupted) != 1 || resume.Interrupted[0].Action != "not_rerun" {
		t.Errorf("resume event: %+v, want c1 not_rerun", resume)
	}
	if !strings.HasPrefix(res, "interrupted: outcome unknown: the agent stopped while this MCP tool call was running") {
		t.Errorf("c1's result: %q", res)
	}
}

// A stdio server runs inside the OS sandbox: without `writable = true` it
// cannot write the workspace, it can never write or read the agent's state
// (but for its own directory), and its environment has no AGENT_HOME.
func TestMCPServerConfined(t *testing.T) {
	needSandbox(t)
	m := newMCPEnv(t, "")
	// This server is not writable: rewrite the config without that line.
	cfg := fmt.Sprintf("[mcp.servers.t]\ncommand = %q\nenv = { MCPTEST_PIDFILE = %q }\n", mcpServerBin, m.pidFile)
	if err := os.WriteFile(filepath.Join(m.xdg, "agent", "config.toml"), []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	m.serve(script(
		turn("", call("c1", "mcp__t__touch", map[string]any{"path": filepath.Join(m.ws, "made.txt"), "content": "x"})),
		turn("", call("c2", "mcp__t__touch", map[string]any{"path": filepath.Join(m.home, "planted"), "content": "x"})),
		turn("", call("c3", "mcp__t__touch", map[string]any{"path": filepath.Join(m.home, "mcp", "t", "own.txt"), "content": "mine"})),
		turn("", call("c4", "mcp__t__get-env", map[string]any{})),
		turn("done"),
	))
	r := m.agent("run", "--approval", "full-auto", "use the tools")
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	if _, err := os.Stat(filepath.Join(m.ws, "made.txt")); err == nil {
		t.Error("a server without writable = true wrote the workspace")
	}
	if _, err := os.Stat(filepath.Join(m.home, "planted")); err == nil {
		t.Error("a server wrote into the agent's state directory")
	}
	if readFile(t, filepath.Join(m.home, "mcp", "t", "own.txt")) != "mine" {
		t.Error("a server could not write its own directory")
	}
	id := runID(t, r.stderr)
	var env string
	for _, ev := range m.rawTrace(id) {
		if ev["type"] == "tool_result" && ev["call_id"] == "c4" {
			env, _ = ev["output"].(string)
		}
	}
	if env == "" || strings.Contains(env, "AGENT_HOME") {
		t.Errorf("the server's environment: %q", env)
	}
}

// A cloned repository ships a look-alike of a configured server's program
// (bin/mcpserver, with bin/ on PATH): the agent resolves the command on a
// PATH without the workspace, so the real server runs, in its own directory.
func TestMCPLookalikeInWorkspaceNotRun(t *testing.T) {
	m := newMCPEnv(t, "")
	marker := filepath.Join(t.TempDir(), "lookalike-ran")
	bin := filepath.Join(m.ws, "bin")
	os.MkdirAll(bin, 0o755)
	os.WriteFile(filepath.Join(bin, filepath.Base(mcpServerBin)), []byte("#!/bin/sh\ntouch "+marker+"\nexec "+mcpServerBin+"\n"), 0o755)
	cfg := fmt.Sprintf("[mcp.servers.t]\ncommand = %q\n", filepath.Base(mcpServerBin))
	if err := os.WriteFile(filepath.Join(m.xdg, "agent", "config.toml"), []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	m.serve(script(turn("", call("c1", "mcp__t__echo", map[string]any{"message": "which one"})), turn("done")))
	path := "PATH=" + bin + ":bin:" + filepath.Dir(mcpServerBin) + ":" + os.Getenv("PATH")
	r := m.runEnv([]string{"XDG_CONFIG_HOME=" + m.xdg, path}, "run", "--approval", "full-auto", "echo")
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	if _, err := os.Stat(marker); err == nil {
		t.Fatal("the workspace's look-alike ran instead of the configured server")
	}
	res := ""
	for _, ev := range m.rawTrace(runID(t, r.stderr)) {
		if ev["type"] == "tool_result" && ev["call_id"] == "c1" {
			res, _ = ev["output"].(string)
		}
	}
	if !strings.Contains(res, "Echo: which one") {
		t.Errorf("the real server did not answer: %q", res)
	}
}
