package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"
)

// npmTools installs pkg@version with npm into a cache directory shared by
// runs ($AGENT_ACP_CLIENT_DIR, else /tmp/agent-acp-client/NAME) and returns
// it. Without node and npm the test is skipped, but not in CI: .ci/run
// installs them.
func npmTools(t *testing.T, name, pkg, version string) string {
	t.Helper()
	for _, tool := range []string{"node", "npm"} {
		if _, err := exec.LookPath(tool); err != nil {
			if os.Getenv("CI") != "" {
				t.Fatalf("%s is not installed; .ci/run installs Node and npm (apt-get install nodejs npm)", tool)
			}
			t.Skipf("%s is not installed: the ACP client is the official TypeScript SDK (apt-get install nodejs npm)", tool)
		}
	}
	base := os.Getenv("AGENT_ACP_CLIENT_DIR")
	if base == "" {
		base = filepath.Join(os.TempDir(), "agent-acp-client")
	}
	dir := filepath.Join(base, name)
	pj := filepath.Join(dir, "node_modules", filepath.FromSlash(pkg), "package.json")
	installed := func() bool {
		b, err := os.ReadFile(pj)
		if err != nil {
			return false
		}
		var v struct{ Version string }
		return json.Unmarshal(b, &v) == nil && v.Version == version
	}
	if !installed() {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
		defer cancel()
		cmd := exec.CommandContext(ctx, "npm", "install", "--no-audit", "--no-fund", "--save-exact", pkg+"@"+version)
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil || !installed() {
			t.Fatalf("npm install %s@%s in %s: %v\n%s", pkg, version, dir, err, out)
		}
	}
	return dir
}

// TestACPWithTheOfficialClient drives `agent acp` with the client side of
// the official ACP TypeScript SDK against a scripted model: streaming text,
// an edit allowed once (the diff arrives as ACP diff content), a command
// rejected (it never runs), "allow always" (the second call runs without
// asking), session/cancel during a command (its processes end; the run is
// interrupted, resumable), SIGKILL of agent acp mid-command and
// session/load in a new process (the transcript replays; the command is
// not run again), the extension methods (checkpoints, rollback and its
// undo, the context report) and stdin closing.
func TestACPWithTheOfficialClient(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("pgrep and process groups: Linux")
	}
	tools := npmTools(t, "sdk", "@agentclientprotocol/sdk", "2.4.0")
	r1, r2 := rand.IntN(900000)+100000, rand.IntN(900000)+100000
	e := newEnv(t, script(
		turn("I will change the greeting now (ACPTEXT-ONE).", call("c1", "edit_file", map[string]any{"path": "main.go", "old_string": `"Hello"`, "new_string": `"Hello, acp"`})),
		turn("The greeting now says Hello, acp (ACPANSWER-ONE)."),
		turn("", call("c2", "run_command", map[string]any{"command": "touch rejected-ran.txt"})),
		turn("", call("c3", "run_command", map[string]any{"command": "echo again >> always.txt"})),
		turn("", call("c4", "run_command", map[string]any{"command": "echo again >> always.txt"})),
		turn("Written twice (ACPANSWER-ALWAYS)."),
		turn("", call("c5", "run_command", map[string]any{"command": fmt.Sprintf("sleep 30.%d", r1)})),
		turn("", call("c6", "run_command", map[string]any{"command": fmt.Sprintf("echo once >> kill-count.txt; sleep 30.%d", r2)})),
		turn("The counter ran once; I did not run it again (ACPANSWER-AFTER)."),
	))
	work := t.TempDir()
	if err := os.Symlink(filepath.Join(tools, "node_modules"), filepath.Join(work, "node_modules")); err != nil {
		t.Fatal(err)
	}
	client, err := os.ReadFile(filepath.Join("testdata", "acp", "client.mjs"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(work, "client.mjs"), client, 0o644); err != nil {
		t.Fatal(err)
	}
	cfg := map[string]any{
		"agent": agentBin, "ws": e.ws,
		"prompt1": "ACPONE: please change the greeting in main.go", "text1": "I will change the greeting now", "answer1": "ACPANSWER-ONE",
		"editFile": "main.go", "editNew": "Hello, acp", "editOld": `"Hello"`,
		"prompt2": "ACPTWO: clean up", "rejectFile": "rejected-ran.txt",
		"prompt3": "ACPTHREE: write it twice", "alwaysFile": "always.txt",
		"prompt4": "ACPFOUR: wait for the slow job", "cancelPattern": fmt.Sprintf("30[.]%d", r1),
		"prompt5": "ACPFIVE: run the counter", "killFile": "kill-count.txt", "killPattern": fmt.Sprintf("30[.]%d", r2),
		"prompt6": "ACPSIX: what happened to the counter?",
	}
	b, _ := json.Marshal(cfg)
	if err := os.WriteFile(filepath.Join(work, "cfg.json"), b, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { // a failed step may leave the marked commands behind
		for _, r := range []int{r1, r2} {
			exec.Command("pkill", "-KILL", "-f", fmt.Sprintf("30[.]%d", r)).Run()
		}
	})
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "node", "client.mjs", "cfg.json")
	cmd.Dir = work
	cmd.Env = e.environ("AGENT_APPROVAL=ask")
	out, err := cmd.CombinedOutput()
	t.Logf("client:\n%s", out)
	if err != nil {
		t.Fatalf("the ACP client failed: %v", err)
	}

	// The journal says what happened: decisions by the person, the
	// interrupt, the command that was not run again.
	var runs []struct {
		ID     string `json:"run_id"`
		Status string `json:"status"`
	}
	e.mustJSON(&runs, "runs", "--json")
	if len(runs) != 1 {
		t.Fatalf("%d runs, want the session's one: %+v", len(runs), runs)
	}
	evs := e.trace(runs[0].ID)
	var interrupted, notRerun bool
	decisions := map[string]int{}
	for _, ev := range evs {
		switch ev.Type {
		case "run_finished":
			interrupted = interrupted || ev.Status == "interrupted"
		case "tool_result":
			if ev.CallID == "c6" && ev.Status == "interrupted" && strings.Contains(ev.Output, "not run again") {
				notRerun = true
			}
		}
	}
	db := openDB(t, e.home)
	rows, err := db.Query(`SELECT data FROM events WHERE run_id = ? AND type = 'approval'`, runs[0].ID)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	for rows.Next() {
		var data string
		if err := rows.Scan(&data); err != nil {
			t.Fatal(err)
		}
		var a struct {
			CallID                  string `json:"call_id"`
			Decision, Scope, Source string
			Rule                    string // a grant's rule: decided by an earlier answer
		}
		if err := json.Unmarshal([]byte(data), &a); err != nil {
			t.Fatal(err)
		}
		switch {
		case a.Source == "user" && a.Rule == "":
			decisions[a.CallID+" "+a.Decision+" "+a.Scope]++
		case a.Source == "user":
			decisions[a.CallID+" granted"]++
		}
	}
	if !interrupted {
		t.Error("no run_finished with status interrupted: session/cancel is the TUI's Esc")
	}
	if !notRerun {
		t.Error("the killed command c6 has no tool_result saying it was not run again")
	}
	for _, want := range []string{"c1 allow once", "c2 deny once", "c3 allow run", "c4 granted", "c5 allow once", "c6 allow once"} {
		if decisions[want] != 1 {
			t.Errorf("the journal has %d user decisions %q, want 1 (all: %v)", decisions[want], want, decisions)
		}
	}
	if decisions["c4 allow run"]+decisions["c4 allow once"] != 0 {
		t.Errorf("c4 was asked, though c3 was allowed for the run: %v", decisions)
	}
}

// TestACPWithAcpx runs one prompt end to end with the acpx CLI (0.19.1), a
// second ACP client nobody here wrote: the answer streams, the edit is
// approved and applied, and the run is journaled.
func TestACPWithAcpx(t *testing.T) {
	tools := npmTools(t, "acpx", "acpx", "0.19.1")
	e := newEnv(t, script(
		turn("Changing the greeting (ACPX-TEXT).", call("c1", "edit_file", map[string]any{"path": "main.go", "old_string": `"Hello"`, "new_string": `"Hello, acpx"`})),
		turn("Done: the greeting says Hello, acpx (ACPX-ANSWER)."),
	))
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, filepath.Join(tools, "node_modules", ".bin", "acpx"),
		"--agent", agentBin+" acp", "--cwd", e.ws, "--approve-all", "--format", "json", "--timeout", "60", "exec", "ACPX: change the greeting in main.go")
	cmd.Dir = e.ws
	cmd.Env = e.environ("AGENT_APPROVAL=ask")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("acpx: %v\n%s", err, out)
	}
	for _, want := range []string{"ACPX-TEXT", "ACPX-ANSWER", "edit_file"} {
		if !strings.Contains(string(out), want) {
			t.Errorf("acpx's output lacks %q:\n%s", want, out)
		}
	}
	if body := readFile(t, filepath.Join(e.ws, "main.go")); !strings.Contains(body, "Hello, acpx") {
		t.Errorf("main.go was not edited:\n%s", body)
	}
	var runs []struct {
		Status string `json:"status"`
		Answer string `json:"answer"`
	}
	e.mustJSON(&runs, "runs", "--json")
	if len(runs) != 1 || runs[0].Status != "completed" {
		t.Errorf("runs: %+v, want one completed run", runs)
	}
}
