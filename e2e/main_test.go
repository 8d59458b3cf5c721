// Package e2e runs the real agent binary as a subprocess against a local
// OpenAI-compatible server (internal/replay over HTTP+SSE), real git
// repositories and a real SQLite journal, and checks what a user would check.
package e2e

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	_ "modernc.org/sqlite"

	"agent/internal/replay"
)

var agentBin string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "agent-e2e-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	agentBin = filepath.Join(dir, "agent")
	_, file, _, _ := runtime.Caller(0)
	root := filepath.Dir(filepath.Dir(file))
	build := exec.Command("go", "build", "-o", agentBin, ".")
	build.Dir = root
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := build.CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "build agent: %v\n%s", err, out)
		os.Exit(1)
	}
	mcpServerBin = filepath.Join(dir, "mcpserver") // mcp_test.go's MCP server
	build = exec.Command("go", "build", "-o", mcpServerBin, "./internal/mcp/testdata/mcpserver")
	build.Dir = root
	if out, err := build.CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "build the MCP test server: %v\n%s", err, out)
		os.Exit(1)
	}
	tiocstiBin = filepath.Join(dir, "tiocsti") // sandbox2_test.go's terminal injector
	build = exec.Command("go", "build", "-o", tiocstiBin, "./e2e/testdata/tiocsti")
	build.Dir = root
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := build.CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "build the terminal injector: %v\n%s", err, out)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// env is one test's world: a workspace repository, a state directory and a
// model server.
type env struct {
	t    *testing.T
	ws   string
	home string
	srv  *replay.Server
	url  string
}

func newEnv(t *testing.T, script string) *env {
	t.Helper()
	e := &env{t: t, ws: gitRepo(t, map[string]string{
		"main.go":    "package main\n\nimport \"fmt\"\n\nfunc main() {\n\tfmt.Println(\"Hello\")\n}\n",
		"go.mod":     "module demo\n\ngo 1.22\n",
		"README.md":  "# demo\n",
		".gitignore": "build/\n",
	}), home: filepath.Join(t.TempDir(), "state")}
	if script != "" {
		e.serve(script)
	}
	return e
}

func (e *env) serve(script string) {
	sc, err := replay.Parse([]byte(script))
	if err != nil {
		e.t.Fatalf("script: %v", err)
	}
	e.srv, e.url = replay.Start(e.t, sc)
}

// gitRepo makes a git repository with one commit of files.
func gitRepo(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, body := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, args := range [][]string{{"init", "-q"}, {"add", "-A"}, {"-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "-m", "init"}} {
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	return dir
}

type result struct {
	code   int
	stdout string
	stderr string
}

func (e *env) environ(extra ...string) []string {
	env := []string{"PATH=" + os.Getenv("PATH"), "HOME=" + e.t.TempDir(), "AGENT_HOME=" + e.home}
	if e.url != "" {
		env = append(env, "OPENAI_BASE_URL="+e.url)
	}
	return append(env, extra...)
}

// run runs the agent binary to completion.
func (e *env) run(args ...string) result {
	e.t.Helper()
	return e.runEnv(nil, args...)
}

func (e *env) mustJSON(v any, args ...string) {
	e.t.Helper()
	r := e.run(args...)
	if r.code != 0 {
		e.t.Fatalf("agent %v: exit %d\n%s", args, r.code, r.stderr)
	}
	if err := json.Unmarshal([]byte(r.stdout), v); err != nil {
		e.t.Fatalf("agent %v: bad JSON: %v\n%s", args, err, r.stdout)
	}
}

// runID reads the run id from the first stderr line.
func runID(t *testing.T, stderr string) string {
	t.Helper()
	first, _, _ := strings.Cut(stderr, "\n")
	id, ok := strings.CutPrefix(first, "run: ")
	if !ok || id == "" {
		t.Fatalf("first stderr line is %q, want \"run: RUN_ID\"", first)
	}
	return id
}

type traceEvent struct {
	Type      string `json:"type"`
	RunID     string `json:"run_id"`
	Seq       int64  `json:"seq"`
	CallID    string `json:"call_id"`
	Name      string `json:"name"`
	Status    string `json:"status"`
	Output    string `json:"output"`
	Arguments string `json:"arguments"`
	Class     string `json:"class"`
}

func (e *env) trace(id string) []traceEvent {
	var evs []traceEvent
	e.mustJSON(&evs, "trace", id, "--json")
	return evs
}

// openDB opens the journal read-only for checks.
func openDB(t *testing.T, home string) *sql.DB {
	t.Helper()
	db, err := sql.Open("sqlite", "file:"+filepath.Join(home, "agent.db")+"?_pragma=busy_timeout(5000)")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

func readFile(t *testing.T, p string) string {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// jsonArgs encodes tool arguments as the raw string a script carries.
func jsonArgs(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// script builds a replay script from turns.
func script(turns ...map[string]any) string {
	b, _ := json.Marshal(map[string]any{"turns": turns})
	return string(b)
}

func call(id, name string, args any) map[string]any {
	s, ok := args.(string)
	if !ok {
		s = jsonArgs(args)
	}
	return map[string]any{"id": id, "name": name, "arguments": s}
}

func turn(text string, calls ...map[string]any) map[string]any {
	t := map[string]any{"text": text, "usage": map[string]int{"input": 100, "output": 10}}
	if len(calls) > 0 {
		t["tool_calls"] = calls
	}
	return t
}

func jsonUnmarshal(s string, v any) error { return json.Unmarshal([]byte(s), v) }

// runEnv is run with extra environment variables.
func (e *env) runEnv(extra []string, args ...string) result {
	e.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, agentBin, args...)
	cmd.Env = e.environ(extra...)
	cmd.Dir = e.ws
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	code := 0
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		code = ee.ExitCode()
	} else if err != nil {
		e.t.Fatalf("agent %v: %v", args, err)
	}
	return result{code, out.String(), errb.String()}
}
