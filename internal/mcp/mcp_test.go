package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"agent/internal/event"
	"agent/internal/tools"
)

// serverBin is the test server (testdata/mcpserver), built once.
var serverBin string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "mcptest")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	serverBin = filepath.Join(dir, "mcpserver")
	out, err := exec.Command("go", "build", "-o", serverBin, "./testdata/mcpserver").CombinedOutput()
	if err != nil {
		fmt.Fprintf(os.Stderr, "build the test server: %v\n%s", err, out)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

type warnings struct {
	mu   sync.Mutex
	list []string
}

func (w *warnings) add(s string) {
	w.mu.Lock()
	w.list = append(w.list, s)
	w.mu.Unlock()
}

func (w *warnings) all() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return strings.Join(w.list, "\n")
}

// newManager returns a manager of cfgs for a fresh workspace (returned),
// with a state directory of its own.
func newManager(t *testing.T, cfgs ...ServerConfig) (*Manager, *warnings, string) {
	t.Helper()
	w := &warnings{}
	dir := t.TempDir()
	m := New(Options{Servers: cfgs, Workspace: dir, StateDir: filepath.Join(t.TempDir(), "mcp"), Warn: w.add, Version: "test",
		Environ: []string{"PATH=" + os.Getenv("PATH"), "HOME=" + dir, "AGENT_HOME=/agent-state-must-not-pass"}})
	t.Cleanup(m.Close)
	return m, w, dir
}

func testServer(name string) ServerConfig {
	return ServerConfig{Name: name, Command: serverBin, ReadOnly: []string{"echo"}, Env: map[string]string{"SERVICE_TOKEN": "tok_live_planted"}}
}

func byName(ts []tools.Tool) map[string]tools.Tool {
	out := map[string]tools.Tool{}
	for _, t := range ts {
		out[t.Name()] = t
	}
	return out
}

func run(t *testing.T, tool tools.Tool, args string) (tools.Result, error) {
	t.Helper()
	return tools.Exec(context.Background(), &tools.Env{}, tool, json.RawMessage(args))
}

func TestToolsOfAStdioServer(t *testing.T) {
	m, w, dir := newManager(t, testServer("t"))
	if !m.Configured() {
		t.Fatal("Configured() = false")
	}
	if st := m.Status(); st[0].State != StateIdle {
		t.Fatalf("started before Tools: %v", st[0].State)
	}
	ts := m.Tools(context.Background())
	var names []string
	for _, tl := range ts {
		names = append(names, tl.Name())
	}
	want := []string{"mcp__t__add", "mcp__t__cat", "mcp__t__crash", "mcp__t__echo", "mcp__t__get-env", "mcp__t__sleep", "mcp__t__touch"}
	if !slices.Equal(names, want) {
		t.Fatalf("tools %v, want %v (warnings: %s)", names, want, w.all())
	}
	tl := byName(ts)
	if tl["mcp__t__echo"].Risk() != event.RiskRead || tl["mcp__t__touch"].Risk() != event.RiskExec {
		t.Errorf("risks: echo %s, touch %s", tl["mcp__t__echo"].Risk(), tl["mcp__t__touch"].Risk())
	}
	var schema map[string]any
	if err := json.Unmarshal(tl["mcp__t__echo"].(*Tool).SchemaJSON(), &schema); err != nil || schema["type"] != "object" {
		t.Errorf("schema %s", tl["mcp__t__echo"].(*Tool).SchemaJSON())
	}

	res, err := run(t, tl["mcp__t__echo"], `{"message":"ping"}`)
	if err != nil || res.Output != "Echo: ping" || res.IsError {
		t.Errorf("echo: %+v, %v", res, err)
	}
	// The tool's schema decides, through the registry, like a built-in's.
	reg := tools.Default()
	if err := reg.Add(ts...); err != nil {
		t.Fatal(err)
	}
	_, _, err = reg.Validate("mcp__t__add", `{"a": 1, "b": "two"}`)
	var ae *tools.ArgError
	if !errors.As(err, &ae) || !strings.Contains(err.Error(), "arguments do not match the tool's schema") || !strings.Contains(err.Error(), `"b"`) {
		t.Errorf("a mistyped argument: %v", err)
	}
	if _, args, err := reg.Validate("mcp__t__add", `{"a": 1, "b": 2}`); err != nil {
		t.Errorf("a good call: %v", err)
	} else if res, err := run(t, tl["mcp__t__add"], string(args)); err != nil || res.Output != "3" {
		t.Errorf("add: %+v, %v", res, err)
	}

	// It works in its own directory, not the workspace; it gets its own
	// variables and the command environment, not the agent's state
	// directory.
	if res, err := run(t, tl["mcp__t__touch"], `{"path":"made.txt","content":"x"}`); err != nil || res.IsError {
		t.Fatalf("touch: %+v, %v", res, err)
	}
	own := filepath.Join(m.opt.StateDir, "t")
	if _, err := os.Stat(filepath.Join(own, "made.txt")); err != nil {
		t.Errorf("touch did not write in the server's own directory: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "made.txt")); err == nil {
		t.Error("the server works in the workspace")
	}
	if fi, err := os.Stat(own); err != nil || fi.Mode().Perm() != 0o700 {
		t.Errorf("the server's directory: %v, %v; want 0700", fi, err)
	}
	res, err = run(t, tl["mcp__t__get-env"], `{}`)
	if err != nil || !strings.Contains(res.Output, "tok_live_planted") || !strings.Contains(res.Output, `"PATH"`) ||
		strings.Contains(res.Output, "AGENT_HOME") || !strings.Contains(res.Output, `"PWD": "`+own+`"`) {
		t.Errorf("get-env: %s, %v", res.Output, err)
	}
	if st := m.Status()[0]; st.State != StateRunning || len(st.Tools) != 7 || st.Transport != "stdio" || st.Target != serverBin {
		t.Errorf("status %+v", st)
	}
}

// A server that dies in the middle of a call gives a tool error that says
// so; the next call starts it again.
func TestServerCrashMidCall(t *testing.T) {
	m, _, _ := newManager(t, testServer("t"))
	tl := byName(m.Tools(context.Background()))
	res, err := run(t, tl["mcp__t__crash"], `{}`)
	if err == nil || !res.IsError || !strings.Contains(res.Output, `MCP server "t" died during the call`) ||
		!strings.Contains(res.Output, "exit status 3") || !strings.Contains(res.Output, "simulated crash") {
		t.Fatalf("crash: %+v, %v", res, err)
	}
	if st := m.Status()[0]; st.State != StateExited {
		t.Errorf("state after the crash: %v", st.State)
	}
	res, err = run(t, tl["mcp__t__echo"], `{"message":"again"}`)
	if err != nil || res.Output != "Echo: again" {
		t.Fatalf("the call after the crash: %+v, %v", res, err)
	}
	if st := m.Status()[0]; st.State != StateRunning {
		t.Errorf("state after the restart: %v", st.State)
	}
}

func TestServerCrashesTooOften(t *testing.T) {
	m, _, _ := newManager(t, testServer("t"))
	tl := byName(m.Tools(context.Background()))
	for range maxRestarts + 1 {
		if _, err := run(t, tl["mcp__t__crash"], `{}`); err == nil {
			t.Fatal("crash returned no error")
		}
	}
	res, err := run(t, tl["mcp__t__echo"], `{"message":"x"}`)
	if err == nil || !strings.Contains(res.Output, "is not started again in this session") {
		t.Fatalf("after %d crashes: %+v, %v", maxRestarts+1, res, err)
	}
}

func TestToolTimeout(t *testing.T) {
	cfg := testServer("t")
	cfg.ToolTimeout = 200 * time.Millisecond
	m, _, _ := newManager(t, cfg)
	tl := byName(m.Tools(context.Background()))
	res, err := run(t, tl["mcp__t__sleep"], `{"seconds": 30}`)
	if err == nil || !strings.Contains(res.Output, "did not answer within 200ms; the call was cancelled") {
		t.Fatalf("sleep: %+v, %v", res, err)
	}
	if res, err := run(t, tl["mcp__t__echo"], `{"message":"still there"}`); err != nil || res.Output != "Echo: still there" {
		t.Errorf("after a timeout: %+v, %v", res, err)
	}
}

func TestCancelledCall(t *testing.T) {
	m, _, _ := newManager(t, testServer("t"))
	tl := byName(m.Tools(context.Background()))
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := tl["mcp__t__sleep"].Run(ctx, nil, json.RawMessage(`{"seconds": 30}`))
		done <- err
	}()
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Fatalf("a cancelled call: %v", err)
	}
}

// What a server offers is untrusted: tools a model API would refuse or
// that could carry a prompt injection are refused with a warning.
func TestHostileToolsRefused(t *testing.T) {
	cfg := testServer("h")
	cfg.Env["MCPTEST_HOSTILE"] = "1"
	cfg.ReadOnly = append(cfg.ReadOnly, "no-such-tool")
	m, w, _ := newManager(t, cfg)
	ts := m.Tools(context.Background())
	if len(ts) != 7 {
		t.Errorf("%d tools offered", len(ts))
	}
	all := w.all()
	for _, want := range []string{
		`tool "bad-schema" refused: its input schema is not of type object`,
		`tool "huge" refused: its description is 67999 bytes, more than the 4096 taken`,
		`tool "bad name!" refused: its name gives "mcp__h__bad name!", which is not`,
		`MCP server "h" has no tool "no-such-tool" (named in read_only_tools)`,
	} {
		if !strings.Contains(all, want) {
			t.Errorf("no warning %q in:\n%s", want, all)
		}
	}
	var refused int
	for _, ts := range m.Status()[0].Tools {
		if ts.Refused != "" {
			refused++
		}
	}
	if refused != 3 {
		t.Errorf("status lists %d refused tools", refused)
	}
}

func TestStartFailures(t *testing.T) {
	tests := []struct {
		name string
		cfg  ServerConfig
		want string
	}{
		{"not found", ServerConfig{Command: "no-such-mcp-server-here", Origin: "[mcp.servers.x] in config.toml"},
			`command "no-such-mcp-server-here" not found in PATH (its relative entries and those inside the workspace are not searched); fix command in [mcp.servers.x] in config.toml`},
		{"relative", ServerConfig{Command: "./bin/server", Origin: "[mcp.servers.x] in config.toml"},
			`command "./bin/server" is a relative path, which MCP servers do not take (they do not start in the workspace): give its absolute path, or the name of a program on PATH; fix command in [mcp.servers.x] in config.toml`},
		{"exits", ServerConfig{Command: "sh", Args: []string{"-c", "echo 'npm ERR! 404 no such package' >&2; exit 7"}},
			`sh exited before it answered (exit status 7); it wrote on stderr: npm ERR! 404 no such package`},
		{"silent", ServerConfig{Command: "sh", Args: []string{"-c", "exec sleep 60"}, StartupTimeout: 300 * time.Millisecond},
			`it did not answer within 300ms (raise startup_timeout in [mcp.servers.x])`},
		{"unset variable", ServerConfig{Command: serverBin, Problem: "the variable GITHUB_TOKEN is not set"},
			`the variable GITHUB_TOKEN is not set`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tc.cfg.Name = "x"
			m, w, _ := newManager(t, tc.cfg)
			if ts := m.Tools(context.Background()); len(ts) != 0 {
				t.Fatalf("tools of a failed server: %v", ts)
			}
			st := m.Status()[0]
			if st.State != StateFailed || !strings.Contains(st.Err, tc.want) || !strings.Contains(w.all(), `MCP server "x" is not available`) {
				t.Errorf("state %v, err %q, warnings %q; want %q", st.State, st.Err, w.all(), tc.want)
			}
		})
	}
}

func TestDisabledServer(t *testing.T) {
	cfg := testServer("off")
	cfg.Disabled = true
	m, _, _ := newManager(t, cfg)
	if m.Configured() {
		t.Error("Configured() with only a disabled server")
	}
	if ts := m.Tools(context.Background()); len(ts) != 0 {
		t.Fatal("a disabled server's tools are offered")
	}
	if st := m.Status()[0]; st.State != StateDisabled {
		t.Errorf("state %v", st.State)
	}
}

// Close stops the server's process and what it started in its group.
func TestCloseStopsTheServer(t *testing.T) {
	m, _, _ := newManager(t, testServer("t"))
	m.Tools(context.Background())
	s := m.servers[0]
	s.mu.Lock()
	pid := s.proc.cmd.Process.Pid
	s.mu.Unlock()
	m.Close()
	if err := syscall.Kill(pid, 0); !errors.Is(err, syscall.ESRCH) {
		t.Errorf("the server (pid %d) is still there after Close: %v", pid, err)
	}
	if st := m.Status()[0]; st.State != StateClosed {
		t.Errorf("state %v", st.State)
	}
	res, err := run(t, byName(m.tools)["mcp__t__echo"], `{"message":"x"}`)
	if err == nil || !strings.Contains(res.Output, "was closed") {
		t.Errorf("a call after Close: %+v, %v", res, err)
	}
}

// A streamable-HTTP server gets the configured headers.
func TestStreamableHTTPServer(t *testing.T) {
	srv := sdk.NewServer(&sdk.Implementation{Name: "web", Version: "1"}, nil)
	sdk.AddTool(srv, &sdk.Tool{Name: "hello", Description: "Says hello."},
		func(_ context.Context, _ *sdk.CallToolRequest, _ struct{}) (*sdk.CallToolResult, any, error) {
			return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "hello"}}}, nil, nil
		})
	h := sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return srv }, nil)
	var mu sync.Mutex
	var auth []string
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		auth = append(auth, r.Header.Get("Authorization"))
		mu.Unlock()
		if r.Header.Get("Authorization") != "Bearer s3cret" {
			http.Error(w, "unauthorized", http.StatusUnauthorized)
			return
		}
		h.ServeHTTP(w, r)
	}))
	defer hs.Close()
	m, w, _ := newManager(t, ServerConfig{Name: "web", URL: hs.URL, Headers: map[string]string{"Authorization": "Bearer s3cret"}})
	tl := byName(m.Tools(context.Background()))
	res, err := run(t, tl["mcp__web__hello"], `{}`)
	if err != nil || res.Output != "hello" {
		t.Fatalf("hello: %+v, %v (warnings %s)", res, err, w.all())
	}
	mu.Lock()
	if len(auth) == 0 || slices.ContainsFunc(auth, func(a string) bool { return a != "Bearer s3cret" }) {
		t.Errorf("headers seen: %q", auth)
	}
	mu.Unlock()
	if st := m.Status()[0]; st.Transport != "http" || st.Target != hs.URL {
		t.Errorf("status %+v", st)
	}

	m2, w2, _ := newManager(t, ServerConfig{Name: "web", URL: hs.URL})
	if ts := m2.Tools(context.Background()); len(ts) != 0 || !strings.Contains(w2.all(), "the server answered 401 Unauthorized; check url and headers in [mcp.servers.web]") {
		t.Errorf("without the header: %d tools, warnings %q", len(ts), w2.all())
	}
}

func TestCheckSchema(t *testing.T) {
	tests := []struct {
		schema any
		sent   string
		err    string
	}{
		{map[string]any{"$schema": "http://json-schema.org/draft-07/schema#", "type": "object", "properties": map[string]any{"a": map[string]any{"type": "number"}}},
			`{"properties":{"a":{"type":"number"}},"type":"object"}`, ""},
		{map[string]any{"properties": map[string]any{}}, `{"properties":{},"type":"object"}`, ""},
		{map[string]any{"type": "string"}, "", `not of type object (type "string")`},
		{[]any{1, 2}, "", "not a JSON object (got [1,2])"},
		{nil, "", "not a JSON object (got null)"},
		{"{}", "", `not a JSON object (got "{}")`},
		{map[string]any{"type": "object", "$ref": "https://evil.example/schema.json"}, "", "does not resolve"},
		{map[string]any{"type": "object", "description": strings.Repeat("x", MaxSchema)}, "", "more than the 32768 taken"},
	}
	for i, tc := range tests {
		sent, _, err := checkSchema(tc.schema)
		switch {
		case tc.err == "" && (err != nil || string(sent) != tc.sent):
			t.Errorf("%d: sent %s, %v; want %s", i, sent, err, tc.sent)
		case tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)):
			t.Errorf("%d: %v, want %q", i, err, tc.err)
		}
	}
}

func TestRender(t *testing.T) {
	tests := []struct {
		res  *sdk.CallToolResult
		want string
	}{
		{&sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "a"}, &sdk.TextContent{Text: "b"}}}, "a\nb"},
		{&sdk.CallToolResult{Content: []sdk.Content{&sdk.ImageContent{MIMEType: "image/png", Data: make([]byte, 10)}}}, "[image: image/png, 10 bytes, not shown]"},
		{&sdk.CallToolResult{Content: []sdk.Content{&sdk.EmbeddedResource{Resource: &sdk.ResourceContents{URI: "file:///x", Text: "body"}}}}, "[resource file:///x]\nbody"},
		{&sdk.CallToolResult{StructuredContent: map[string]any{"t": 1}}, "{\n  \"t\": 1\n}"},
		{&sdk.CallToolResult{}, "(no output)"},
		{&sdk.CallToolResult{IsError: true}, "the tool failed and said nothing"},
	}
	for i, tc := range tests {
		if got := render(tc.res); got != tc.want {
			t.Errorf("%d: %q, want %q", i, got, tc.want)
		}
	}
}

func TestServerEnv(t *testing.T) {
	ws := t.TempDir()
	env := serverEnv([]string{"PATH=" + ws + "/bin:/usr/bin::.:node_modules/.bin:" + ws + "/node_modules/.bin:/bin", "HOME=/h",
		"AGENT_HOME=/state", "OLDPWD=" + ws, "LC_ALL=C", "TOKEN=old", "CI_LEVEL=3",
		"PYTHONPATH=" + ws + ":/opt/py:" + ws + "/lib", "NODE_PATH=" + ws + "/node_modules", "PYTHONSTARTUP=./start.py",
		"NODE_OPTIONS=--require ./evil.js --max-old-space-size=100 --import=" + ws + "/x.mjs"},
		map[string]string{"TOKEN": "new"}, ws)
	slices.Sort(env)
	want := []string{"CI_LEVEL=3", "HOME=/h", "LC_ALL=C", "NODE_OPTIONS=--max-old-space-size=100", "PATH=/usr/bin:/bin",
		"PYTHONPATH=/opt/py", "TOKEN=new"}
	if !slices.Equal(env, want) {
		t.Errorf("env %v, want %v", env, want)
	}
	// The server's own env is taken as configured, even into the workspace.
	env = serverEnv([]string{"PYTHONPATH=/opt/py"}, map[string]string{"PYTHONPATH": ws}, ws)
	if !slices.Equal(env, []string{"PYTHONPATH=" + ws}) {
		t.Errorf("configured PYTHONPATH: %v", env)
	}
	// Without a command environment, only the basic variables of the
	// agent's own pass, not its keys.
	t.Setenv("OPENAI_API_KEY", "sk-agent-own-key-must-not-pass")
	t.Setenv("LANG", "C.UTF-8")
	env = serverEnv(nil, nil, ws)
	if j := strings.Join(env, "\n"); strings.Contains(j, "sk-agent-own-key") || !strings.Contains(j, "LANG=C.UTF-8") {
		t.Errorf("basic env: %v", env)
	}
}

// A server's command is looked up only where the workspace cannot put a
// program: not in PATH entries inside it or relative ones, and not through
// a symlink into it.
func TestResolveCommand(t *testing.T) {
	ws, outside := t.TempDir(), t.TempDir()
	ws = realPath(ws)
	exe := func(p string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("#!/bin/sh\n"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, d := range []string{"bin", "node_modules/.bin", "."} {
		exe(filepath.Join(ws, d, "srv"))
	}
	exe(filepath.Join(outside, "real", "srv"))
	exe(filepath.Join(ws, "linked"))
	if err := os.MkdirAll(filepath.Join(outside, "links"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(ws, "linked"), filepath.Join(outside, "links", "linked")); err != nil {
		t.Fatal(err)
	}
	path := strings.Join([]string{ws + "/bin", ws + "/node_modules/.bin", "node_modules/.bin", ".", "", "bin",
		filepath.Join(outside, "links"), filepath.Join(outside, "real")}, ":")
	if got, err := resolveCommand("srv", path, ws); err != nil || got != filepath.Join(outside, "real", "srv") {
		t.Errorf("srv: %q, %v; want the one outside the workspace", got, err)
	}
	if got, err := resolveCommand("linked", path, ws); err == nil {
		t.Errorf("linked: %q, a symlink into the workspace was taken", got)
	}
	for _, c := range []string{"./srv", "bin/srv", "node_modules/.bin/srv"} {
		if _, err := resolveCommand(c, path, ws); err == nil || !strings.Contains(err.Error(), "give its absolute path") {
			t.Errorf("%s: %v; want an error naming the fix", c, err)
		}
	}
	if got, err := resolveCommand(filepath.Join(ws, "bin", "srv"), path, ws); err != nil || got != filepath.Join(ws, "bin", "srv") {
		t.Errorf("an absolute command is the person's choice: %q, %v", got, err)
	}
}

// An answer over the message limit is reported as too large, with the
// limit, not as a server that died with an unknown outcome; the server is
// started again for the next call.
func TestAnswerTooLarge(t *testing.T) {
	w := &warnings{}
	m := New(Options{Servers: []ServerConfig{testServer("t")}, Workspace: t.TempDir(), StateDir: t.TempDir(), Warn: w.add,
		Environ: []string{"PATH=" + os.Getenv("PATH")}, MaxMessage: 64 << 10})
	t.Cleanup(m.Close)
	tl := byName(m.Tools(context.Background()))
	big := strings.Repeat("x", 80<<10)
	res, err := run(t, tl["mcp__t__echo"], `{"message":"`+big+`"}`)
	msg := res.Output
	if err != nil {
		msg = err.Error()
	}
	if !strings.Contains(msg, `MCP server "t": answer too large: the server sent a message of more than 64 KiB, the limit`) ||
		strings.Contains(msg, "died") || strings.Contains(msg, "unknown") {
		t.Fatalf("an answer over the limit: %+v, %v", res, err)
	}
	if res, err := run(t, tl["mcp__t__echo"], `{"message":"small"}`); err != nil || res.Output != "Echo: small" {
		t.Errorf("the next call: %+v, %v", res, err)
	}
	// Just under the limit is read.
	ok := strings.Repeat("y", 60<<10)
	if res, err := run(t, tl["mcp__t__echo"], `{"message":"`+ok+`"}`); err != nil || res.IsError || !strings.HasPrefix(res.Output, "Echo: yyy") {
		t.Errorf("an answer under the limit: %.100v, %v", res, err)
	}
}
