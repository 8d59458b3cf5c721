package e2e

import (
	"bufio"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// longScript is a run of many small steps: reads, writes and commands.
func longScript(steps int) string {
	var turns []map[string]any
	for i := 0; i < steps; i++ {
		switch i % 3 {
		case 0:
			turns = append(turns, turn("", call("r"+itoa(i), "read_file", map[string]any{"path": "main.go"})))
		case 1:
			turns = append(turns, turn("", call("w"+itoa(i), "write_file", map[string]any{"path": "notes/n" + itoa(i) + ".txt", "content": "step " + itoa(i) + "\n"})))
		case 2:
			turns = append(turns, turn("", call("x"+itoa(i), "run_command", map[string]any{"command": "echo " + itoa(i) + " >> log.txt"})))
		}
	}
	turns = append(turns, turn("all done"))
	return script(turns...)
}

// SIGKILL at many points of a run: the journal always opens, passes
// PRAGMA integrity_check, and every run's events are gapless.
func TestSIGKILLLeavesConsistentJournal(t *testing.T) {
	e := newEnv(t, "")
	const kills = 24
	for i := 0; i < kills; i++ {
		e.serve(longScript(30))
		killAfter := 1 + (i*7)%60 // the number of events to see before the kill
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		cmd := exec.CommandContext(ctx, agentBin, "run", "--json", "--approval", "full-auto", "crash me")
		cmd.Env = e.environ()
		cmd.Dir = e.ws
		out, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(out)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		seen := 0
		for seen < killAfter && sc.Scan() {
			seen++
		}
		cmd.Process.Signal(syscall.SIGKILL)
		for sc.Scan() { // drain what was written before the kill
		}
		cmd.Wait()
		cancel()

		db := openDB(t, e.home)
		var verdict string
		if err := db.QueryRow("PRAGMA integrity_check").Scan(&verdict); err != nil || verdict != "ok" {
			t.Fatalf("kill %d after %d events: integrity_check = %q, %v", i, seen, verdict, err)
		}
		rows, err := db.Query(`SELECT r.id, r.last_seq, count(e.seq), coalesce(min(e.seq),0), coalesce(max(e.seq),0)
			FROM runs r LEFT JOIN events e ON e.run_id = r.id GROUP BY r.id`)
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for rows.Next() {
			var id string
			var last, count, min, max int64
			if err := rows.Scan(&id, &last, &count, &min, &max); err != nil {
				t.Fatal(err)
			}
			if count > 0 && (min != 1 || max != count) || last != max {
				t.Errorf("kill %d: run %s has %d events with seqs %d..%d (last_seq %d): not gapless", i, id, count, min, max, last)
			}
			n++
		}
		rows.Close()
		db.Close()
		if n != i+1 {
			t.Fatalf("kill %d: %d runs in the journal, want %d", i, n, i+1)
		}
	}
}

// killAfterEvent runs the agent with --json and SIGKILLs it as soon as an
// event of type typ is printed (it is committed by then).
func (e *env) killAfterEvent(t *testing.T, typ string, args ...string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, agentBin, args...)
	cmd.Env = e.environ()
	cmd.Dir = e.ws
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(out)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		var ev traceEvent
		if json.Unmarshal(sc.Bytes(), &ev) == nil && ev.Type == typ {
			break
		}
	}
	cmd.Process.Signal(syscall.SIGKILL)
	for sc.Scan() {
	}
	cmd.Wait()
}

// SIGINT or SIGTERM during a command kills its process group, records the
// run as interrupted, exits 130, and `agent resume` continues it.
func TestSignalInterruptsAndResumes(t *testing.T) {
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM} {
		t.Run(sig.String(), func(t *testing.T) {
			fifo := filepath.Join(t.TempDir(), "gate")
			if err := syscall.Mkfifo(fifo, 0o600); err != nil {
				t.Fatal(err)
			}
			e := newEnv(t, "")
			_, e.url = newConvServer(t, []map[string]any{
				turn("", call("c1", "run_command", map[string]any{"command": "echo started > started.txt; cat " + fifo + "; echo finished > finished.txt"})),
				turn("the command was interrupted; stopping"),
			})
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			cmd := exec.CommandContext(ctx, agentBin, "run", "--approval", "full-auto", "wait")
			cmd.Env = e.environ()
			cmd.Dir = e.ws
			var stderr strings.Builder
			cmd.Stderr = &stderr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			// Opening the gate for writing returns once the command reads it.
			f, err := os.OpenFile(fifo, os.O_WRONLY, 0)
			if err != nil {
				t.Fatal(err)
			}
			cmd.Process.Signal(sig)
			err = cmd.Wait()
			f.Close()
			if code := cmd.ProcessState.ExitCode(); code != 130 {
				t.Fatalf("exit %d (%v), want 130\n%s", code, err, stderr.String())
			}
			if _, err := os.Stat(filepath.Join(e.ws, "finished.txt")); err == nil {
				t.Error("the command went on after the signal: its process group was not killed")
			}
			id := runID(t, stderr.String())
			if s := e.status(id); s != "interrupted" {
				t.Errorf("status %s, want interrupted", s)
			}
			if res := resultOf(e.trace(id), "c1"); res.Status != "interrupted" {
				t.Errorf("c1 result %+v, want interrupted", res)
			}
			r := e.run("resume", id)
			if r.code != 0 || e.status(id) != "completed" {
				t.Errorf("resume: exit %d, status %s\n%s", r.code, e.status(id), r.stderr)
			}
		})
	}
}

// Two `agent resume` of one run at the same time: one runs, the other exits 2.
func TestConcurrentResumeIsRefused(t *testing.T) {
	e := newEnv(t, "")
	cs, url := newConvServer(t, []map[string]any{
		turn("", call("c1", "run_command", map[string]any{"command": "true"})),
		turn("done"),
	})
	e.url = url
	r := e.run("run", "--approval", "ask", "go")
	id := runID(t, r.stderr)
	if r.code != 3 {
		t.Fatalf("exit %d", r.code)
	}
	cs.stallOn(1) // the first resume hangs in its model request
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	first := exec.CommandContext(ctx, agentBin, "resume", id, "--approve", "c1")
	first.Env = e.environ()
	if err := first.Start(); err != nil {
		t.Fatal(err)
	}
	<-cs.stalled
	second := e.run("resume", id, "--approve", "c1")
	if second.code != 2 || !strings.Contains(second.stderr, "in use by another agent process") {
		t.Errorf("second resume: exit %d %q, want 2 with a message", second.code, second.stderr)
	}
	first.Process.Signal(syscall.SIGTERM)
	first.Wait()
	if code := first.ProcessState.ExitCode(); code != 130 {
		t.Errorf("first resume exit %d after SIGTERM, want 130", code)
	}
	// Its lock died with it: the run can be taken over.
	r = e.run("resume", id)
	if r.code != 0 || strings.TrimSpace(r.stdout) != "done" {
		t.Errorf("take-over: exit %d stdout %q\n%s", r.code, r.stdout, r.stderr)
	}
}
