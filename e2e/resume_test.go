package e2e

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"agent/internal/replay"
)

// convServer answers each request with the turn that matches the
// conversation (the number of assistant messages so far), as a real model
// re-asked after a crash would answer the same conversation again. One
// request number can be made to stall mid-stream.
type convServer struct {
	turns   []map[string]any
	mu      sync.Mutex
	stallAt int           // conversation position to stall on once; -1 never
	stalled chan struct{} // closed when the stall begins
}

func newConvServer(t *testing.T, turns []map[string]any) (*convServer, string) {
	cs := &convServer{turns: turns, stallAt: -1, stalled: make(chan struct{})}
	hs := httptest.NewServer(cs)
	t.Cleanup(hs.Close)
	return cs, hs.URL + "/v1"
}

// stallOn makes the request at conversation position n stall once.
func (cs *convServer) stallOn(n int) {
	cs.mu.Lock()
	defer cs.mu.Unlock()
	cs.stallAt = n
}

func (cs *convServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	var req struct {
		Messages []struct {
			Role      string `json:"role"`
			Content   string `json:"content"`
			ToolCalls []struct {
				ID       string `json:"id"`
				Function struct {
					Name      string `json:"name"`
					Arguments string `json:"arguments"`
				} `json:"function"`
			} `json:"tool_calls"`
			ToolCallID string `json:"tool_call_id"`
		} `json:"messages"`
	}
	json.Unmarshal(body, &req)
	// A sensible model re-issues a command whose outcome is unknown (the
	// scripted commands are idempotent, so running one again finishes what a
	// crash cut short); each such retry adds an assistant message that is not
	// a scripted turn.
	n, retries := 0, 0
	var retry map[string]any
	for i, m := range req.Messages {
		switch {
		case m.Role == "assistant":
			n++
		case m.Role == "tool" && strings.HasPrefix(m.Content, "outcome unknown"):
			retries++
			if i == len(req.Messages)-1 {
				for _, prev := range req.Messages {
					for _, tc := range prev.ToolCalls {
						if tc.ID == m.ToolCallID {
							retry = turn("", call(tc.ID+"_again", tc.Function.Name, tc.Function.Arguments))
						}
					}
				}
			}
		}
	}
	n -= retries
	if n >= len(cs.turns) {
		n = len(cs.turns) - 1
	}
	turn := map[string]any{}
	for k, v := range cs.turns[n] {
		turn[k] = v
	}
	if retry != nil {
		turn = retry
	}
	cs.mu.Lock()
	stall := cs.stallAt == n
	if stall {
		cs.stallAt = -1
		turn["stall_after_chunks"] = 2
		close(cs.stalled)
	}
	cs.mu.Unlock()
	sc, err := replay.Parse([]byte(script(turn)))
	if err != nil {
		http.Error(w, err.Error(), 500)
		return
	}
	sc.Lenient = true
	r.Body = io.NopCloser(bytes.NewReader(body))
	srv := replay.NewServer(sc)
	defer srv.Close()
	srv.ServeHTTP(w, r)
}

// crashTurns: reads, edits, writes and commands that append to a log (each
// command is idempotent but for its log line, which counts its runs).
func crashTurns(fifo string) []map[string]any {
	t := []map[string]any{
		turn("", call("c1", "read_file", map[string]any{"path": "main.go"})),
		turn("", call("c2", "edit_file", map[string]any{"path": "main.go", "old_string": `"Hello"`, "new_string": `"Hello, world"`})),
		turn("", call("c3", "run_command", map[string]any{"command": "echo cmd3 >> log.txt"})),
		turn("", call("c4", "write_file", map[string]any{"path": "notes/a.txt", "content": "note\n"}),
			call("c5", "run_command", map[string]any{"command": "echo cmd5 >> log.txt && mkdir -p out && echo built > out/bin.txt && rm -f README.md"})),
		turn("", call("c6", "edit_file", map[string]any{"path": "go.mod", "old_string": "go 1.22", "new_string": "go 1.23"})),
	}
	if fifo != "" {
		t = append(t, turn("", call("c7", "run_command", map[string]any{"command": "echo cmd7 >> log.txt && cat " + fifo + " > /dev/null"})))
	}
	return append(t, turn("all done"))
}

// tree reads every file of a workspace but .git.
func tree(t *testing.T, root string) map[string]string {
	t.Helper()
	out := map[string]string{}
	filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.Name() == ".git" {
			return filepath.SkipDir
		}
		if !d.IsDir() {
			rel, _ := filepath.Rel(root, p)
			b, _ := os.ReadFile(p)
			out[rel] = string(b)
		}
		return nil
	})
	return out
}

type crashCase struct {
	name     string
	killAt   int  // kill after this many --json events (0: use stallAt)
	stallAt  int  // kill while the model streams this turn (-1: no)
	fifoKill bool // kill while the blocking command runs
}

// Kill the real binary with SIGKILL at many points, resume it, and check the
// result against an uninterrupted run: same files, no command twice, a sound
// journal.
func TestCrashAndResume(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "gate")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	// The gate lets the blocking command finish whenever it is reached.
	openGate := func(ctx context.Context) {
		go func() {
			for ctx.Err() == nil {
				f, err := os.OpenFile(fifo, os.O_WRONLY, 0)
				if err != nil {
					return
				}
				f.Close()
			}
		}()
	}
	turns := crashTurns(fifo)

	// The uninterrupted reference.
	ref := newEnv(t, "")
	_, ref.url = newConvServer(t, turns)
	gctx, gcancel := context.WithCancel(context.Background())
	openGate(gctx)
	r := ref.run("run", "--approval", "full-auto", "do it")
	if r.code != 0 {
		t.Fatalf("reference run: exit %d\n%s", r.code, r.stderr)
	}
	want := tree(t, ref.ws)
	if want["log.txt"] != "cmd3\ncmd5\ncmd7\n" {
		t.Fatalf("reference log.txt = %q", want["log.txt"])
	}
	delete(want, "log.txt")
	refEvents := len(ref.trace(runID(t, r.stderr)))
	gcancel()

	var cases []crashCase
	for k := 1; k <= refEvents; k++ {
		cases = append(cases, crashCase{name: "after event " + itoa(k), killAt: k, stallAt: -1})
	}
	for n := 0; n < len(turns); n++ {
		cases = append(cases, crashCase{name: "while streaming turn " + itoa(n), stallAt: n})
	}
	cases = append(cases, crashCase{name: "while a command runs", stallAt: -1, fifoKill: true})

	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e := newEnv(t, "")
			cs, url := newConvServer(t, turns)
			e.url = url
			cs.stallOn(c.stallAt)
			id := e.startAndKill(t, c, cs, fifo)
			if s := e.status(id); s != "interrupted" && s != "completed" {
				t.Errorf("agent runs shows a killed run as %q, want interrupted (or completed if it had finished)", s)
			}

			gctx, gcancel := context.WithCancel(context.Background())
			defer gcancel()
			openGate(gctx)
			r := e.run("resume", id, "--headless")
			if r.code != 0 {
				t.Fatalf("resume: exit %d\n%s", r.code, r.stderr)
			}
			got := tree(t, e.ws)
			log := got["log.txt"]
			delete(got, "log.txt")
			// The agent never starts a call's command twice; a second run is
			// the model's retry (its own call, c5_again), and the log holds no
			// run the journal does not know of (no orphan ran on).
			starts := map[string]int{}
			for _, ev := range e.rawTrace(id) {
				if ev["type"] == "command_started" {
					starts[ev["call_id"].(string)]++
				}
			}
			for _, c := range []string{"c3", "c5", "c7"} {
				if starts[c] > 1 || starts[c+"_again"] > 1 {
					t.Errorf("%s started %d times, its retry %d times: the agent re-ran a command by itself", c, starts[c], starts[c+"_again"])
				}
				if n := strings.Count(log, "cmd"+c[1:]+"\n"); n < 1 || n > starts[c]+starts[c+"_again"] {
					t.Errorf("%s's log line appears %d times, with %d journaled starts (log %q)", c, n, starts[c]+starts[c+"_again"], log)
				}
			}
			if !sameTree(got, want) {
				t.Errorf("files after crash+resume differ from the uninterrupted run:\n got %v\nwant %v", keys(got), keys(want))
				for k, v := range want {
					if got[k] != v {
						t.Errorf("%s: got %q want %q", k, got[k], v)
					}
				}
			}
			db := openDB(t, e.home)
			var verdict string
			if err := db.QueryRow("PRAGMA integrity_check").Scan(&verdict); err != nil || verdict != "ok" {
				t.Fatalf("integrity_check = %q, %v", verdict, err)
			}
			var count, max int64
			db.QueryRow(`SELECT count(*), max(seq) FROM events WHERE run_id = ?`, id).Scan(&count, &max)
			if count != max {
				t.Errorf("events not gapless: %d events, max seq %d", count, max)
			}
			var status string
			db.QueryRow(`SELECT status FROM runs WHERE id = ?`, id).Scan(&status)
			if status != "completed" {
				t.Errorf("status after resume = %s", status)
			}
		})
	}
}

// startAndKill starts a run and SIGKILLs it at the case's point; it returns the run id.
func (e *env) startAndKill(t *testing.T, c crashCase, cs *convServer, fifo string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, agentBin, "run", "--json", "--approval", "full-auto", "do it")
	cmd.Env = e.environ()
	cmd.Dir = e.ws
	stdout, _ := cmd.StdoutPipe()
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(stdout)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	var runIDSeen string
	switch {
	case c.killAt > 0:
		for seen := 0; seen < c.killAt && sc.Scan(); seen++ {
			if runIDSeen == "" {
				var ev traceEvent
				json.Unmarshal(sc.Bytes(), &ev)
				runIDSeen = ev.RunID
			}
		}
	case c.fifoKill:
		// Opening the gate for writing blocks until the command opens it.
		f, err := os.OpenFile(fifo, os.O_WRONLY, 0)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
	default:
		select {
		case <-cs.stalled:
		case <-ctx.Done():
			t.Fatal("the model request never came")
		}
	}
	cmd.Process.Signal(syscall.SIGKILL)
	for sc.Scan() {
	}
	cmd.Wait()
	first, _, _ := strings.Cut(stderr.String(), "\n")
	id := strings.TrimPrefix(first, "run: ")
	if id == "" || id == first {
		t.Fatalf("no run id on stderr: %q", stderr.String())
	}
	return id
}

func sameTree(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if w, ok := b[k]; !ok || w != v {
			return false
		}
	}
	return true
}

func keys(m map[string]string) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}
