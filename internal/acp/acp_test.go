package acp

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"agent/internal/app"
	"agent/internal/event"
)

// wire is the editor's end of a Serve over pipes: raw lines in, decoded
// messages out.
type wire struct {
	t    *testing.T
	in   *io.PipeWriter
	msgs chan map[string]any
	done chan error
}

func serve(t *testing.T, flags app.Flags) *wire {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	w := &wire{t: t, in: inW, msgs: make(chan map[string]any, 256), done: make(chan error, 1)}
	go func() {
		w.done <- Serve(context.Background(), Options{In: inR, Out: outW, Log: io.Discard, Flags: flags, Version: "test"})
		outW.Close()
	}()
	go func() {
		sc := bufio.NewScanner(outR)
		sc.Buffer(nil, 16<<20)
		for sc.Scan() {
			var m map[string]any
			if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
				t.Errorf("stdout line is not JSON: %q", sc.Text())
				continue
			}
			w.msgs <- m
		}
		close(w.msgs)
	}()
	return w
}

func (w *wire) send(line string) {
	w.t.Helper()
	if _, err := io.WriteString(w.in, line+"\n"); err != nil {
		w.t.Fatalf("write: %v", err)
	}
}

func (w *wire) request(id int, method string, params any) {
	w.t.Helper()
	b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "method": method, "params": params})
	w.send(string(b))
}

// next is the next message that pred accepts (others are dropped).
func (w *wire) next(what string, pred func(map[string]any) bool) map[string]any {
	w.t.Helper()
	timeout := time.After(20 * time.Second)
	for {
		select {
		case m, ok := <-w.msgs:
			if !ok {
				w.t.Fatalf("stdout closed while waiting for %s", what)
			}
			if pred(m) {
				return m
			}
		case <-timeout:
			w.t.Fatalf("no %s within 20 s", what)
		}
	}
}

func (w *wire) answer(id int) map[string]any {
	w.t.Helper()
	return w.next(fmt.Sprintf("answer %d", id), func(m map[string]any) bool {
		v, ok := m["id"].(float64)
		return ok && int(v) == id && m["method"] == nil
	})
}

func errorOf(t *testing.T, m map[string]any) (int, string) {
	t.Helper()
	e, ok := m["error"].(map[string]any)
	if !ok {
		t.Fatalf("want an error, got %v", m)
	}
	return int(e["code"].(float64)), fmt.Sprint(e["message"])
}

func workspace(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "a.txt"), []byte("a\n"), 0o644); err != nil {
		t.Fatal(err)
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

// TestProtocolErrorsAndStdinClose: what is not a well-formed conversation
// gets a JSON-RPC error naming the problem and the process goes on; a
// second prompt while one runs is refused, not cancelling the first;
// stdin closing interrupts the running prompt (journaled, resumable), ends
// its command and ends Serve.
func TestProtocolErrorsAndStdinClose(t *testing.T) {
	home := t.TempDir()
	t.Setenv("AGENT_HOME", home)
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	ws := workspace(t)
	marker := fmt.Sprintf("30.%d", time.Now().UnixNano()%1000000)
	sc := map[string]any{"turns": []any{
		map[string]any{"text": "waiting", "tool_calls": []any{map[string]any{"id": "c1", "name": "run_command", "arguments": fmt.Sprintf(`{"command":"sleep %s"}`, marker)}}},
	}}
	b, _ := json.Marshal(sc)
	scriptFile := filepath.Join(t.TempDir(), "script.json")
	if err := os.WriteFile(scriptFile, b, 0o644); err != nil {
		t.Fatal(err)
	}
	w := serve(t, app.Flags{Replay: scriptFile, Approval: "full-auto", Sandbox: "off"})

	w.send("this is not json")
	m := w.next("a parse error", func(m map[string]any) bool { return m["error"] != nil })
	if code, msg := errorOf(t, m); code != -32700 || m["id"] != nil || !strings.Contains(msg, "not JSON") {
		t.Errorf("parse error: %v", m)
	}
	w.send(`{"jsonrpc":"2.0","id":7}`)
	if code, _ := errorOf(t, w.next("an invalid request", func(m map[string]any) bool { return m["error"] != nil })); code != -32600 {
		t.Errorf("invalid request: code %d", code)
	}
	w.request(1, "no/such/method", map[string]any{})
	if code, _ := errorOf(t, w.answer(1)); code != -32601 {
		t.Errorf("unknown method: code %d", code)
	}
	w.request(2, "initialize", map[string]any{"protocolVersion": 1})
	if res, ok := w.answer(2)["result"].(map[string]any); !ok || res["protocolVersion"].(float64) != 1 {
		t.Fatalf("initialize: %v", res)
	}
	w.request(3, "session/prompt", map[string]any{"sessionId": "acp-nosuch", "prompt": []any{map[string]any{"type": "text", "text": "hi"}}})
	if code, msg := errorOf(t, w.answer(3)); code != -32602 || !strings.Contains(msg, "unknown session") || !strings.Contains(msg, "session/new") {
		t.Errorf("unknown session: %d %s", code, msg)
	}
	w.request(4, "session/new", map[string]any{"cwd": "relative/dir", "mcpServers": []any{}})
	if code, msg := errorOf(t, w.answer(4)); code != -32602 || !strings.Contains(msg, "absolute") {
		t.Errorf("relative cwd: %d %s", code, msg)
	}
	w.request(5, "session/new", map[string]any{"cwd": ws, "mcpServers": []any{}})
	sid := w.answer(5)["result"].(map[string]any)["sessionId"].(string)
	w.request(6, "session/prompt", map[string]any{"sessionId": sid, "prompt": []any{map[string]any{"type": "text", "text": "wait"}}})
	w.next("the command running", func(m map[string]any) bool {
		p, _ := m["params"].(map[string]any)
		u, _ := p["update"].(map[string]any)
		return m["method"] == "session/update" && u["sessionUpdate"] == "tool_call_update" && u["status"] == "in_progress"
	})
	if !waitProc(marker, true) {
		t.Fatal("the command never started")
	}
	w.request(8, "session/prompt", map[string]any{"sessionId": sid, "prompt": []any{map[string]any{"type": "text", "text": "again"}}})
	if code, msg := errorOf(t, w.answer(8)); code != -32000 || !strings.Contains(msg, "already running a prompt") {
		t.Errorf("second prompt: %d %s", code, msg)
	}
	if !waitProc(marker, true) {
		t.Fatal("the second prompt ended the first one's command")
	}
	w.in.Close() // the editor goes away
	select {
	case err := <-w.done:
		if err != nil {
			t.Fatalf("Serve: %v", err)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("Serve did not end after stdin closed")
	}
	if !waitProc(marker, false) {
		t.Error("the command still runs after stdin closed")
	}
	h, err := app.OpenHome(context.Background(), home)
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	runs, err := h.Runs(context.Background())
	if err != nil || len(runs) != 1 {
		t.Fatalf("runs: %v %v", runs, err)
	}
	if runs[0].Status != event.StatusInterrupted {
		t.Errorf("run status %s, want interrupted (resumable)", runs[0].Status)
	}
	if app.RunIsLive(home, runs[0].ID) {
		t.Error("the run's lock is still held")
	}
}

// waitProc waits until a process with marker in its command line exists
// (want) or is gone.
func waitProc(marker string, want bool) bool {
	end := time.Now().Add(10 * time.Second)
	for time.Now().Before(end) {
		err := exec.Command("pgrep", "-f", strings.ReplaceAll(marker, ".", "[.]")).Run()
		if (err == nil) == want {
			return true
		}
		time.Sleep(20 * time.Millisecond)
	}
	return false
}

func TestCheckMessage(t *testing.T) {
	for _, c := range []struct {
		line string
		code int
	}{
		{`{"jsonrpc":"2.0","id":1,"method":"initialize"}`, 0},
		{`{"jsonrpc":"2.0","method":"session/cancel","params":{}}`, 0},
		{`{"jsonrpc":"2.0","id":1,"result":{}}`, 0},
		{`{"jsonrpc":"2.0","id":1,"error":{"code":1,"message":"x"}}`, 0},
		{`{"jsonrpc":"2.0","id":1`, -32700},
		{`[{"jsonrpc":"2.0","id":1,"method":"x"}]`, -32600},
		{`"hello"`, -32600},
		{`{"id":1,"method":"initialize"}`, -32600},
		{`{"jsonrpc":"2.0","id":1,"method":""}`, -32600},
		{`{"jsonrpc":"2.0"}`, -32600},
	} {
		_, e := checkMessage([]byte(c.line))
		got := 0
		if e != nil {
			got = e.Code
		}
		if got != c.code {
			t.Errorf("%s: code %d, want %d", c.line, got, c.code)
		}
	}
}
