package e2e

import (
	"bufio"
	"context"
	"encoding/json"
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

// procGone reports whether pid no longer runs (absent, or a zombie).
func procGone(pid int) bool {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return true
	}
	s := string(b)
	f := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
	return len(f) > 0 && (f[0] == "Z" || f[0] == "X")
}

// openWriter opens a FIFO for writing, which returns once a reader has it
// open: the command reached that point.
func openWriter(t *testing.T, fifo string) *os.File {
	t.Helper()
	got := make(chan *os.File, 1)
	go func() {
		f, err := os.OpenFile(fifo, os.O_WRONLY, 0)
		if err != nil {
			got <- nil
			return
		}
		got <- f
	}()
	select {
	case f := <-got:
		if f == nil {
			t.Fatal("could not open the gate FIFO")
		}
		t.Cleanup(func() { f.Close() })
		return f
	case <-time.After(time.Minute):
		t.Fatal("the command never reached the gate")
	}
	return nil
}

// rawTrace is the run's events as generic JSON objects.
func (e *env) rawTrace(id string) []map[string]any {
	var evs []map[string]any
	e.mustJSON(&evs, "trace", id, "--json")
	return evs
}

func firstOfType(evs []map[string]any, typ string) map[string]any {
	for _, ev := range evs {
		if ev["type"] == typ {
			return ev
		}
	}
	return nil
}

// The agent is SIGKILLed alone (not its process group) while a command runs:
// the command's shell dies with it, and `agent resume` ends what the shell
// left running before it takes its after-checkpoint, and says so; nothing of
// the killed command writes afterwards.
func TestOrphanedCommandEndedOnResume(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "gate")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	command := "echo start >> side.log; setsid sh -c 'echo $$ > " + dir + "/inner.pid; cat " + fifo + " > /dev/null; echo end >> side.log'; echo after >> side.log"
	// The run takes the first turn, its resume the second.
	e := newEnv(t, script(
		turn("", call("c1", "run_command", map[string]any{"command": command})),
		turn("the command's outcome is unknown; stopping here"),
	))
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, agentBin, "run", "--approval", "full-auto", "work")
	// The command runs in full-auto's default sandbox; the test's directory
	// (where the inner shell reports its pid) is made writable for it.
	cmd.Env = e.environ("XDG_CONFIG_HOME=" + userConfig(t, "[sandbox]\nwritable = ["+strconv.Quote(dir)+"]\n"))
	cmd.Dir = e.ws
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	w := openWriter(t, fifo)
	inner, err := strconv.Atoi(strings.TrimSpace(readFile(t, filepath.Join(dir, "inner.pid"))))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { syscall.Kill(inner, syscall.SIGKILL) })
	cmd.Process.Signal(syscall.SIGKILL) // the agent alone, as a crash
	cmd.Wait()
	if procGone(inner) {
		t.Fatal("the command's child died with the agent; the test needs it orphaned")
	}
	id := runID(t, stderr.String())

	r := e.run("resume", id, "--headless", "--approval", "full-auto")
	if r.code != 0 {
		t.Fatalf("resume: exit %d\n%s", r.code, r.stderr)
	}
	if !procGone(inner) {
		t.Fatalf("resume left the killed run's command (pid %d) running", inner)
	}
	w.Close() // had the orphan lived, it would now write "end"
	evs := e.rawTrace(id)
	started := firstOfType(evs, "command_started")
	if started == nil || started["call_id"] != "c1" || started["pgid"] == nil {
		t.Fatalf("no command_started event for c1: %v", started)
	}
	res := firstOfType(evs, "resume")
	b, _ := json.Marshal(res)
	var rd struct {
		Interrupted []struct {
			CallID    string `json:"call_id"`
			Action    string `json:"action"`
			Processes *struct {
				Action    string `json:"action"`
				Processes []struct {
					PID int `json:"pid"`
				} `json:"processes"`
			} `json:"processes"`
		} `json:"interrupted"`
	}
	json.Unmarshal(b, &rd)
	if len(rd.Interrupted) != 1 || rd.Interrupted[0].Action != "not_rerun" || rd.Interrupted[0].Processes == nil ||
		rd.Interrupted[0].Processes.Action != "killed" || !hasPID(rd.Interrupted[0].Processes.Processes, inner) {
		t.Fatalf("resume event %s: want c1 not_rerun with its leftover pid %d killed", b, inner)
	}
	// The resume event comes before the after-checkpoint it protects.
	seqResume, seqCP := res["seq"].(float64), 0.0
	for _, ev := range evs {
		if ev["type"] == "checkpoint" && ev["call_id"] == "c1" && ev["kind"] == "after" {
			seqCP = ev["seq"].(float64)
		}
	}
	if seqCP <= seqResume {
		t.Errorf("after-checkpoint at seq %v, resume at %v: the leftovers were not ended before it", seqCP, seqResume)
	}
	if got := readFile(t, filepath.Join(e.ws, "side.log")); got != "start\n" {
		t.Errorf("side.log = %q: the killed command ran on", got)
	}
}

func hasPID(ps []struct {
	PID int `json:"pid"`
}, pid int) bool {
	for _, p := range ps {
		if p.PID == pid {
			return true
		}
	}
	return false
}

// A process a command leaves in the background is reported in the call's
// result and ended when the run ends, so nothing changes files behind the
// journal.
func TestBackgroundProcessReportedAndEnded(t *testing.T) {
	e := newEnv(t, script(
		turn("", call("c1", "run_command", map[string]any{"command": "(exec sleep 300) > /dev/null 2>&1 & echo $! > bg.pid"})),
		turn("", call("c2", "read_file", map[string]any{"path": "bg.pid"})),
		turn("done"),
	))
	cmd := exec.Command(agentBin, "run", "--json", "--approval", "full-auto", "start it")
	cmd.Env = e.environ()
	cmd.Dir = e.ws
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var result, finished map[string]any
	sc := bufio.NewScanner(out)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		var ev map[string]any
		json.Unmarshal(sc.Bytes(), &ev)
		switch {
		case ev["type"] == "tool_result" && ev["call_id"] == "c1":
			result = ev
		case ev["type"] == "run_finished":
			finished = ev
		}
	}
	if err := cmd.Wait(); err != nil {
		t.Fatalf("run: %v", err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(readFile(t, filepath.Join(e.ws, "bg.pid"))))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { syscall.Kill(pid, syscall.SIGKILL) })
	bg, _ := json.Marshal(result["background"])
	if !strings.Contains(string(bg), strconv.Itoa(pid)) {
		t.Errorf("c1's result lists background %s, want pid %d", bg, pid)
	}
	if out, _ := result["output"].(string); !strings.Contains(out, "left 1 process(es) running in the background") {
		t.Errorf("c1's output does not tell the model: %q", out)
	}
	ended, _ := json.Marshal(finished["ended"])
	if !strings.Contains(string(ended), strconv.Itoa(pid)) || !strings.Contains(string(ended), `"killed"`) {
		t.Errorf("run_finished.ended = %s, want pid %d killed", ended, pid)
	}
	if !procGone(pid) {
		t.Errorf("the background process %d outlived the run", pid)
	}
}

// userConfig writes a user config file and returns its XDG_CONFIG_HOME.
func userConfig(t *testing.T, toml string) string {
	t.Helper()
	x := t.TempDir()
	if err := os.MkdirAll(filepath.Join(x, "agent"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(x, "agent", "config.toml"), []byte(toml), 0o600); err != nil {
		t.Fatal(err)
	}
	return x
}
