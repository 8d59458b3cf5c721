package mcp

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// pyServer is a stdio MCP server in Python whose one tool, ping, answers
// "pong-IDENT cwd=DIR"; it also appends DIR to the file MARKER when it
// starts.
const pyServer = `import json, os, sys
open("MARKER", "a").write(os.getcwd() + "\n")
for line in sys.stdin:
    try:
        m = json.loads(line)
    except ValueError:
        continue
    if "id" not in m:
        continue
    meth, r = m.get("method"), None
    if meth == "initialize":
        r = {"protocolVersion": (m.get("params") or {}).get("protocolVersion", "2025-06-18"),
             "capabilities": {"tools": {}}, "serverInfo": {"name": "mcpsrv", "version": "1"}}
    elif meth == "tools/list":
        r = {"tools": [{"name": "ping", "description": "Answers pong.", "inputSchema": {"type": "object", "properties": {}}}]}
    elif meth == "tools/call":
        r = {"content": [{"type": "text", "text": "pong-IDENT cwd=" + os.getcwd()}]}
    elif meth == "ping":
        r = {}
    out = {"jsonrpc": "2.0", "id": m["id"]}
    if r is None:
        out["error"] = {"code": -32601, "message": "no such method"}
    else:
        out["result"] = r
    sys.stdout.write(json.dumps(out) + "\n"); sys.stdout.flush()
`

func writeFile(t *testing.T, path, text string, mode os.FileMode) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), mode); err != nil {
		t.Fatal(err)
	}
}

func py(ident, marker string) string {
	return strings.NewReplacer("IDENT", ident, "MARKER", marker).Replace(pyServer)
}

// lookalikeEnv is a workspace (the agent's working directory, as when it
// runs there) that ships look-alikes of the servers' code, and a place
// outside it for the real ones.
type lookalikeEnv struct {
	ws, outside, markers string
	state                string
}

func newLookalikeEnv(t *testing.T) *lookalikeEnv {
	t.Helper()
	e := &lookalikeEnv{ws: realPath(t.TempDir()), outside: realPath(t.TempDir()), markers: t.TempDir()}
	e.state = filepath.Join(e.outside, "state", "mcp")
	t.Chdir(e.ws) // what an unconfined start would inherit
	return e
}

func (e *lookalikeEnv) call(t *testing.T, cfg ServerConfig, environ []string) string {
	t.Helper()
	w := &warnings{}
	m := New(Options{Servers: []ServerConfig{cfg}, Workspace: e.ws, StateDir: e.state, Environ: environ, Warn: w.add})
	defer m.Close()
	tl := byName(m.Tools(context.Background()))
	tool, ok := tl["mcp__"+cfg.Name+"__ping"]
	if !ok {
		t.Fatalf("no ping tool; warnings: %s", w.all())
	}
	res, err := run(t, tool, `{}`)
	if err != nil || res.IsError {
		t.Fatalf("ping: %+v, %v", res, err)
	}
	return res.Output
}

func (e *lookalikeEnv) ran(ident string) bool {
	_, err := os.Stat(filepath.Join(e.markers, ident))
	return err == nil
}

// `python3 -m mcpsrv` from a workspace that ships mcpsrv.py, with the
// agent's PYTHONPATH pointing into the workspace: the real module (on the
// server's configured PYTHONPATH) runs, in the server's own directory.
func TestPythonModuleLookalikeNotRun(t *testing.T) {
	pyExe, err := exec.Command("python3", "-c", "import sys; print(sys.executable)").Output()
	if err != nil {
		t.Skip("no python3")
	}
	e := newLookalikeEnv(t)
	real := filepath.Join(e.outside, "pylib")
	writeFile(t, filepath.Join(real, "mcpsrv.py"), py("real", filepath.Join(e.markers, "real")), 0o644)
	writeFile(t, filepath.Join(e.ws, "mcpsrv.py"), py("lookalike", filepath.Join(e.markers, "lookalike")), 0o644)
	writeFile(t, filepath.Join(e.ws, "lib", "mcpsrv.py"), py("lookalike", filepath.Join(e.markers, "lookalike")), 0o644)
	bin := filepath.Join(e.outside, "bin")
	if err := os.MkdirAll(bin, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(strings.TrimSpace(string(pyExe)), filepath.Join(bin, "python3")); err != nil {
		t.Fatal(err)
	}
	// A workspace python3 first on PATH, too.
	writeFile(t, filepath.Join(e.ws, "bin", "python3"), "#!/bin/sh\ntouch "+filepath.Join(e.markers, "lookalike")+"\n", 0o755)
	environ := []string{"PATH=" + e.ws + "/bin:.:" + bin, "HOME=" + e.outside, "PYTHONPATH=" + e.ws + "/lib:" + e.ws}
	cfg := ServerConfig{Name: "lk", Command: "python3", Args: []string{"-m", "mcpsrv"}, Env: map[string]string{"PYTHONPATH": real}}
	out := e.call(t, cfg, environ)
	if e.ran("lookalike") || strings.Contains(out, "lookalike") {
		t.Fatalf("the workspace's look-alike ran: %q", out)
	}
	if want := "pong-real cwd=" + filepath.Join(e.state, "lk"); out != want || !e.ran("real") {
		t.Errorf("ping: %q, want %q", out, want)
	}
	// Without a configured PYTHONPATH the agent's (into the workspace) is
	// not passed on: the module is not found, and the look-alike not run.
	cfg.Env = nil
	w := &warnings{}
	m := New(Options{Servers: []ServerConfig{cfg}, Workspace: e.ws, StateDir: e.state, Environ: environ, Warn: w.add})
	m.Tools(context.Background())
	m.Close()
	if e.ran("lookalike") || !strings.Contains(w.all(), "No module named mcpsrv") {
		t.Errorf("with the agent's PYTHONPATH into the workspace: look-alike ran %t; warnings %s", e.ran("lookalike"), w.all())
	}
}

// An npx-like launcher prefers ./node_modules/.bin and then PATH: started
// from the server's own directory with a PATH without the workspace's
// ./bin and node_modules/.bin, it runs the real program.
func TestNpxLikeLookalikeNotRun(t *testing.T) {
	e := newLookalikeEnv(t)
	bin := filepath.Join(e.outside, "bin")
	// The real server: the Go test server.
	writeFile(t, filepath.Join(bin, "x"), "#!/bin/sh\ntouch "+filepath.Join(e.markers, "real")+"\nexec "+serverBin+"\n", 0o755)
	// The launcher, as npx resolves a package's binary.
	writeFile(t, filepath.Join(bin, "npxlike"), "#!/bin/sh\nPATH=./node_modules/.bin:$PATH exec \"$@\"\n", 0o755)
	evil := "#!/bin/sh\ntouch " + filepath.Join(e.markers, "lookalike") + "\nexit 1\n"
	for _, p := range []string{"node_modules/.bin/x", "bin/x", "bin/npxlike", "node_modules/.bin/npxlike"} {
		writeFile(t, filepath.Join(e.ws, p), evil, 0o755)
	}
	environ := []string{"PATH=" + e.ws + "/bin:" + e.ws + "/node_modules/.bin:node_modules/.bin:bin:.:" + bin + ":/usr/bin:/bin", "HOME=" + e.outside}
	w := &warnings{}
	m := New(Options{Servers: []ServerConfig{{Name: "np", Command: "npxlike", Args: []string{"x"}}},
		Workspace: e.ws, StateDir: e.state, Environ: environ, Warn: w.add})
	defer m.Close()
	tl := byName(m.Tools(context.Background()))
	if e.ran("lookalike") {
		t.Fatal("a workspace look-alike ran")
	}
	if _, ok := tl["mcp__np__echo"]; !ok || !e.ran("real") {
		t.Fatalf("the real server did not run (tools %v, warnings %s)", tl, w.all())
	}
}

// Wrap sees the resolved program and the environment, and what it returns
// is what starts (the seam for the OS sandbox); its error keeps the server
// from starting.
func TestWrap(t *testing.T) {
	e := newLookalikeEnv(t)
	var got []string // t's argv
	w := &warnings{}
	wrap := func(cfg ServerConfig, dir string, argv, env []string) (Start, error) {
		if cfg.Name == "refused" {
			return Start{}, os.ErrPermission
		}
		got = argv
		return Start{Path: "/bin/sh", Args: append([]string{"sh", "-c", `exec "$@"`, "wrapped"}, argv...), Env: append(env, "WRAPPED=1")}, nil
	}
	cfg := testServer("t")
	cfg.Command = filepath.Base(serverBin)
	m := New(Options{Servers: []ServerConfig{cfg, {Name: "refused", Command: serverBin, Writable: true}},
		Workspace: e.ws, StateDir: e.state, Environ: []string{"PATH=" + filepath.Dir(serverBin)}, Warn: w.add, Wrap: wrap})
	defer m.Close()
	tl := byName(m.Tools(context.Background()))
	res, err := run(t, tl["mcp__t__get-env"], `{}`)
	if err != nil || !strings.Contains(res.Output, `"WRAPPED": "1"`) {
		t.Errorf("get-env through the wrapper: %s, %v", res.Output, err)
	}
	if !strings.Contains(w.all(), `cannot confine MCP server "refused": permission denied`) {
		t.Errorf("warnings: %s", w.all())
	}
	if len(got) == 0 || !filepath.IsAbs(got[0]) {
		t.Errorf("Wrap got argv %q, want the resolved program first", got)
	}
}
