package e2e

import (
	"bufio"
	"context"
	"encoding/json"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"agent/internal/agent/anthropic/anthropictest"
)

const anthropicKey = "sk-ant-test-e2e-not-real"

// spineTurns: look at main.go, edit it, run a command, answer. Each turn
// reports cache reads after the first, as a warm prompt cache does.
func spineTurns() []anthropictest.Turn {
	u := func(k int) anthropictest.Usage {
		if k == 0 {
			return anthropictest.Usage{InputTokens: 300, OutputTokens: 20, CacheWrite: 1200}
		}
		return anthropictest.Usage{InputTokens: 40 + k, OutputTokens: 10, CacheRead: 1200 + 100*k}
	}
	return []anthropictest.Turn{
		{Text: "Let me look at the file.", Calls: []anthropictest.Call{{ID: "toolu_read", Name: "read_file", Input: `{"path":"main.go"}`}}, Usage: u(0)},
		{Calls: []anthropictest.Call{{ID: "toolu_edit", Name: "edit_file", Input: `{"path":"main.go","old_string":"\"Hello\"","new_string":"\"Hello, world\""}`}}, Usage: u(1)},
		{Calls: []anthropictest.Call{{ID: "toolu_cmd", Name: "run_command", Input: `{"command":"echo ran >> cmd.log"}`}}, Usage: u(2)},
		{Text: "Done: the greeting now says Hello, world.", Usage: u(3)},
	}
}

func anthropicEnv(url string, extra ...string) []string {
	return append([]string{"ANTHROPIC_BASE_URL=" + url, "ANTHROPIC_API_KEY=" + anthropicKey}, extra...)
}

type finished struct {
	Type   string `json:"type"`
	Status string `json:"status"`
	Tokens struct {
		Input      int `json:"input"`
		Output     int `json:"output"`
		CacheRead  int `json:"cache_read"`
		CacheWrite int `json:"cache_write"`
	} `json:"tokens"`
	Provider string `json:"provider"`
}

// A run on the Anthropic adapter against a local Messages API server edits
// a file, runs a command and finishes; its requests stream and carry cache
// breakpoints, and run_finished counts the cache reads and writes.
func TestAnthropicRun(t *testing.T) {
	e := newEnv(t, "")
	srv := &anthropictest.Server{Key: anthropicKey, Turns: spineTurns()}
	url := anthropictest.Start(t, srv)
	r := e.runEnv(anthropicEnv(url, "AGENT_PROVIDER=anthropic", "AGENT_MODEL=claude-sonnet-4-5"),
		"run", "--json", "--approval", "full-auto", "Change the greeting")
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	if got := readFile(t, filepath.Join(e.ws, "main.go")); !strings.Contains(got, `"Hello, world"`) {
		t.Errorf("main.go not edited:\n%s", got)
	}
	if got := readFile(t, filepath.Join(e.ws, "cmd.log")); got != "ran\n" {
		t.Errorf("cmd.log = %q", got)
	}
	var started, fin finished
	for _, line := range strings.Split(strings.TrimSpace(r.stdout), "\n") {
		var ev finished
		if json.Unmarshal([]byte(line), &ev) != nil {
			t.Fatalf("bad event line %q", line)
		}
		switch ev.Type {
		case "run_started":
			started = ev
		case "run_finished":
			fin = ev
		}
	}
	if started.Provider != "anthropic" {
		t.Errorf("run_started provider = %q", started.Provider)
	}
	// input counts every prompt token: uncached + read + written
	wantIn := 300 + 1200 + (41 + 1300) + (42 + 1400) + (43 + 1500)
	if fin.Status != "completed" || fin.Tokens.CacheRead != 1300+1400+1500 || fin.Tokens.CacheWrite != 1200 ||
		fin.Tokens.Input != wantIn || fin.Tokens.Output != 50 {
		t.Errorf("run_finished = %+v, want input %d", fin, wantIn)
	}
	reqs := srv.Requests()
	if len(reqs) != 4 {
		t.Fatalf("%d requests, want 4", len(reqs))
	}
	for i, q := range reqs {
		if q.Params["stream"] != true || !strings.Contains(string(q.Body), `"cache_control"`) || q.Header.Get("x-api-key") != anthropicKey {
			t.Errorf("request %d: stream %v, cache_control %v, key %q", i, q.Params["stream"], strings.Contains(string(q.Body), "cache_control"), q.Header.Get("x-api-key"))
		}
		if n := strings.Count(string(q.Body), `"cache_control"`); n > 4 {
			t.Errorf("request %d: %d breakpoints", i, n)
		}
	}
	if last := string(reqs[3].Body); !strings.Contains(last, `"tool_use_id":"toolu_cmd"`) || !strings.Contains(last, `"type":"tool_result"`) {
		t.Errorf("the command's result is not a tool_result block:\n%s", last)
	}
}

// Killed mid-run, the run is resumed on the adapter it started with, even
// with a model name that does not say so and no AGENT_PROVIDER set.
func TestAnthropicResumeAfterSIGKILL(t *testing.T) {
	e := newEnv(t, "")
	srv := &anthropictest.Server{Key: anthropicKey, Turns: spineTurns()}
	url := anthropictest.Start(t, srv)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, agentBin, "run", "--json", "--approval", "full-auto", "Change the greeting")
	cmd.Env = e.environ(anthropicEnv(url, "AGENT_PROVIDER=anthropic", "AGENT_MODEL=proxy-sonnet")...)
	cmd.Dir = e.ws
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	id := ""
	sc := bufio.NewScanner(out)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		var ev struct {
			Type   string `json:"type"`
			RunID  string `json:"run_id"`
			CallID string `json:"call_id"`
		}
		if json.Unmarshal(sc.Bytes(), &ev) != nil {
			continue
		}
		id = ev.RunID
		if ev.Type == "tool_result" && ev.CallID == "toolu_edit" {
			break
		}
	}
	cmd.Process.Signal(syscall.SIGKILL)
	for sc.Scan() {
	}
	cmd.Wait()
	if id == "" {
		t.Fatal("no event before the kill")
	}
	before := len(srv.Requests())
	// no AGENT_PROVIDER, no AGENT_MODEL, no OPENAI_*: the run's own provider and model
	r := e.runEnv(anthropicEnv(url), "resume", id, "--json")
	if r.code != 0 {
		t.Fatalf("resume: exit %d\n%s", r.code, r.stderr)
	}
	if len(srv.Requests()) <= before {
		t.Fatalf("the resumed run sent no request to the Anthropic server (%d before, %d after)", before, len(srv.Requests()))
	}
	if got := readFile(t, filepath.Join(e.ws, "main.go")); !strings.Contains(got, `"Hello, world"`) {
		t.Errorf("main.go:\n%s", got)
	}
	if got := readFile(t, filepath.Join(e.ws, "cmd.log")); got != "ran\n" {
		t.Errorf("cmd.log = %q, want the command run once", got)
	}
	var fin finished
	for _, line := range strings.Split(strings.TrimSpace(r.stdout), "\n") {
		if json.Unmarshal([]byte(line), &fin) == nil && fin.Type == "run_finished" {
			break
		}
	}
	if fin.Status != "completed" || fin.Tokens.CacheRead == 0 {
		t.Errorf("run_finished = %+v", fin)
	}
	for _, q := range srv.Requests()[before:] {
		if q.Params["model"] != "proxy-sonnet" {
			t.Errorf("resumed request for model %v", q.Params["model"])
		}
	}
}

// The Anthropic provider with a remote endpoint and no key is a usage
// error naming ANTHROPIC_API_KEY; OPENAI_API_KEY does not stand in for it.
func TestAnthropicNeedsItsOwnKey(t *testing.T) {
	e := newEnv(t, "")
	r := e.runEnv([]string{"AGENT_PROVIDER=anthropic", "OPENAI_API_KEY=sk-openai-not-this-one"}, "run", "hi")
	if r.code != 2 || !strings.Contains(r.stderr, "ANTHROPIC_API_KEY") {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	r = e.runEnv(nil, "run", "--provider", "gemini", "hi")
	if r.code != 2 || !strings.Contains(r.stderr, "openai, anthropic") {
		t.Fatalf("bad --provider: exit %d\n%s", r.code, r.stderr)
	}
}
