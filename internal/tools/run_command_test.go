//go:build linux

package tools

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"agent/internal/proc"
)

func TestRunCommand(t *testing.T) {
	env, ws := newWorkspace(t)
	writeTree(t, ws, map[string]string{"sub/f.txt": "content\n"})
	tests := []struct {
		command string
		want    string
		code    int
	}{
		{"echo hello", "hello\nexit code: 0", 0},
		{"echo out; echo err >&2; exit 3", "out\nerr\nexit code: 3", 3},
		{"true", "(no output)\nexit code: 0", 0},
		{"printf 'no newline'", "no newline\nexit code: 0", 0},
		{"pwd", ws + "\nexit code: 0", 0},
		{"cat sub/f.txt", "content\nexit code: 0", 0},
		{"cat", "(no output)\nexit code: 0", 0}, // stdin is /dev/null: no hang
		{"kill -TERM $$", "(no output)\nexit code: 143", 143},
		{"for i in 1 2 3; do echo $i; done | wc -l", "3\nexit code: 0", 0},
	}
	for _, tt := range tests {
		t.Run(tt.command, func(t *testing.T) {
			res, err := call(t, env, "run_command", map[string]any{"command": tt.command})
			if err != nil || res.IsError {
				t.Fatalf("err=%v IsError=%v output=%q (a non-zero exit is not a tool error)", err, res.IsError, res.Output)
			}
			if strings.TrimSpace(res.Output) != tt.want {
				t.Errorf("output %q, want %q", res.Output, tt.want)
			}
			if res.ExitCode == nil || *res.ExitCode != tt.code {
				t.Errorf("ExitCode = %v, want %d", res.ExitCode, tt.code)
			}
		})
	}
}

func TestRunCommandTruncates(t *testing.T) {
	env, _ := newWorkspace(t)
	res := mustCall(t, env, "run_command", map[string]any{"command": "echo BEGIN; head -c 500000 /dev/zero | tr '\\0' 'a'; echo; echo END"})
	if len(res.Output) > MaxOutput {
		t.Errorf("output has %d bytes", len(res.Output))
	}
	for _, want := range []string{"BEGIN\n", "characters cut ...]", "END\nexit code: 0"} {
		if !strings.Contains(res.Output, want) {
			t.Errorf("output lacks %q", want)
		}
	}
}

// fifoChild is a command fragment that starts a background child holding the
// FIFO open; the child writes its pid to the FIFO and then sleeps.
const fifoChild = `(echo $BASHPID; exec sleep 300) > child.fifo & `

// startChildWatch waits (in the background) for the child of fifoChild to
// report its pid and returns a pidfd-like handle to wait for its death.
func startChildWatch(t *testing.T, ws string) <-chan int {
	t.Helper()
	fifo := filepath.Join(ws, "child.fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	pids := make(chan int, 1)
	go func() {
		f, err := os.Open(fifo) // blocks until the child opens it
		if err != nil {
			close(pids)
			return
		}
		defer f.Close()
		line, err := bufio.NewReader(f).ReadString('\n')
		pid, perr := strconv.Atoi(strings.TrimSpace(line))
		if err != nil || perr != nil {
			close(pids)
			return
		}
		pids <- pid
	}()
	return pids
}

// awaitPid returns the pid reported by the child, or fails the test.
func awaitPid(t *testing.T, pids <-chan int) int {
	t.Helper()
	select {
	case pid, ok := <-pids:
		if !ok {
			t.Fatal("the child did not report its pid")
		}
		return pid
	case <-time.After(10 * time.Second):
		t.Fatal("the child never started")
	}
	return 0
}

// watchExit opens a pidfd for pid, which becomes readable when pid exits.
func watchExit(t *testing.T, pid int) (wait func(d time.Duration) bool) {
	t.Helper()
	fd, err := unix.PidfdOpen(pid, 0)
	if err != nil {
		if errors.Is(err, unix.ESRCH) {
			return func(time.Duration) bool { return true }
		}
		t.Skipf("pidfd_open unavailable: %v", err)
	}
	t.Cleanup(func() { unix.Close(fd) })
	return func(d time.Duration) bool {
		fds := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}
		for {
			n, err := unix.Poll(fds, int(d.Milliseconds()))
			if errors.Is(err, unix.EINTR) {
				continue
			}
			return err == nil && n == 1
		}
	}
}

// processGone reports whether pid no longer runs (absent, or a zombie that
// only waits to be reaped).
func processGone(pid int) bool {
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return true
	}
	fields := strings.Fields(string(stat[strings.LastIndexByte(string(stat), ')')+1:]))
	return len(fields) > 0 && (fields[0] == "Z" || fields[0] == "X")
}

func killLeftover(t *testing.T, pid int) {
	t.Cleanup(func() { _ = syscall.Kill(pid, syscall.SIGKILL) })
}

func TestRunCommandTimeoutKillsProcessGroup(t *testing.T) {
	for _, viaEnv := range []bool{false, true} {
		t.Run(fmt.Sprintf("default-from-env=%v", viaEnv), func(t *testing.T) {
			env, ws := newWorkspace(t)
			args := map[string]any{"command": fifoChild + "wait"}
			if viaEnv {
				env.DefaultTimeoutSec = 1
			} else {
				env.DefaultTimeoutSec = 300
				args["timeout_sec"] = 1
			}
			pids := startChildWatch(t, ws)
			type out struct {
				res Result
				err error
			}
			done := make(chan out, 1)
			go func() {
				res, err := call(t, env, "run_command", args)
				done <- out{res, err}
			}()
			pid := awaitPid(t, pids)
			killLeftover(t, pid)
			exited := watchExit(t, pid)

			var o out
			select {
			case o = <-done:
			case <-time.After(30 * time.Second):
				t.Fatal("run_command did not return after its timeout")
			}
			if !o.res.IsError || !strings.Contains(o.res.Output, "command timed out after 1 s; process group killed") {
				t.Errorf("result %+v, err %v", o.res, o.err)
			}
			if !exited(10*time.Second) || !processGone(pid) {
				t.Errorf("background child %d survived the timeout", pid)
			}
		})
	}
}

func TestRunCommandCancelKillsProcessGroup(t *testing.T) {
	env, ws := newWorkspace(t)
	pids := startChildWatch(t, ws)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	type out struct {
		res Result
		err error
	}
	done := make(chan out, 1)
	go func() {
		res, err := Default().Call(ctx, env, "run_command", `{"command": "`+fifoChild+`sleep 300"}`)
		done <- out{res, err}
	}()
	pid := awaitPid(t, pids)
	killLeftover(t, pid)
	exited := watchExit(t, pid)
	cancel()

	var o out
	select {
	case o = <-done:
	case <-time.After(30 * time.Second):
		t.Fatal("run_command did not return after cancellation")
	}
	if !errors.Is(o.err, context.Canceled) || !o.res.IsError || !strings.Contains(o.res.Output, "command interrupted; process group killed") {
		t.Errorf("result %+v, err %v", o.res, o.err)
	}
	if !exited(10*time.Second) || !processGone(pid) {
		t.Errorf("background child %d survived the cancellation", pid)
	}
}

// A background process that keeps the output pipe open must not keep the
// call waiting once the command itself is done.
func TestRunCommandBackgroundChildDoesNotHang(t *testing.T) {
	env, _ := newWorkspace(t)
	start := time.Now()
	res := mustCall(t, env, "run_command", map[string]any{"command": "sleep 300 & echo $!", "timeout_sec": 60})
	pid, err := strconv.Atoi(strings.SplitN(res.Output, "\n", 2)[0])
	if err != nil {
		t.Fatalf("output %q", res.Output)
	}
	killLeftover(t, pid)
	if elapsed := time.Since(start); elapsed > 20*time.Second {
		t.Errorf("took %v", elapsed)
	}
	if !strings.Contains(res.Output, "exit code: 0\nnote: the command left 1 process(es) running") ||
		!strings.Contains(res.Output, fmt.Sprintf("pid %d: sleep 300", pid)) {
		t.Errorf("output %q does not report the background process", res.Output)
	}
	if len(res.Background) != 1 || res.Background[0].PID != pid {
		t.Errorf("Background = %+v, want pid %d", res.Background, pid)
	}
}

// A command holding a redaction placeholder is refused before it can run:
// it would write the placeholder over the real secret.
func TestRunCommandRefusesPlaceholder(t *testing.T) {
	env, ws := newWorkspace(t)
	res, err := call(t, env, "run_command", map[string]any{"command": "printf 'token=[REDACTED:github-token:0123abcd]\\n' > cfg.txt"})
	if err == nil || !res.IsError || !strings.Contains(res.Output, "placeholder") || !strings.Contains(res.Output, "edit_file") {
		t.Fatalf("placeholder command: err %v, result %+v", err, res)
	}
	if _, err := os.Stat(filepath.Join(ws, "cfg.txt")); !os.IsNotExist(err) {
		t.Fatalf("the command ran: cfg.txt exists (%v)", err)
	}
}

// A command started gated runs nothing until the Started hook returned nil,
// and nothing at all when the hook fails.
func TestRunCommandStartedHookGates(t *testing.T) {
	env, ws := newWorkspace(t)
	var seen []bool
	env.Started = func(id proc.Identity) error {
		_, err := os.Stat(filepath.Join(ws, "ran.txt"))
		seen = append(seen, os.IsNotExist(err))
		if id.PGID != id.PID || id.PID <= 0 {
			t.Errorf("identity %+v: the command is not its group's leader", id)
		}
		return nil
	}
	mustCall(t, env, "run_command", map[string]any{"command": "printf x > ran.txt"}) // bash's (printf is not run in-process)
	if len(seen) != 1 || !seen[0] {
		t.Fatalf("hook calls %v: the command ran before its start was recorded", seen)
	}
	env.Started = func(proc.Identity) error { return errors.New("journal is gone") }
	res, err := call(t, env, "run_command", map[string]any{"command": "printf y > refused.txt"})
	if err == nil || !res.IsError || !strings.Contains(res.Output, "not started: journal is gone") {
		t.Fatalf("failed hook: err %v, result %+v", err, res)
	}
	if _, err := os.Stat(filepath.Join(ws, "refused.txt")); !os.IsNotExist(err) {
		t.Fatalf("the command ran although its start could not be recorded")
	}
}

func TestRunCommandRejects(t *testing.T) {
	env, _ := newWorkspace(t)
	for _, args := range []string{`{"command": "  "}`, `{"command": "ls", "timeout_sec": 0}`, `{"command": "ls", "timeout_sec": 3601}`, `{}`} {
		if res, err := call(t, env, "run_command", args); err == nil || !res.IsError {
			t.Errorf("run_command(%s) accepted: %q", args, res.Output)
		}
	}
}
