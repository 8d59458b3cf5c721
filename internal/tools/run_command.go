package tools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync"
	"time"

	"agent/internal/event"
)

// RunCommand is the run_command tool: a shell command in the workspace.
type RunCommand struct{}

const (
	// DefaultTimeoutSec applies when neither the call nor Env gives one.
	DefaultTimeoutSec = 120
	// MaxTimeoutSec is the longest timeout a call may ask for.
	MaxTimeoutSec = 3600
	// commandWaitDelay is how long a finished command's output pipes stay
	// open for background processes that still hold them.
	commandWaitDelay = time.Second
	// commandKeep is how many bytes of the beginning and of the end of a
	// command's output are kept in memory (each side >= MaxOutput characters).
	commandKeep = 4 * MaxOutput
)

type runCommandArgs struct {
	Command    string `json:"command"`
	TimeoutSec int    `json:"timeout_sec"`
}

func (RunCommand) Name() string     { return "run_command" }
func (RunCommand) Risk() event.Risk { return event.RiskExec }
func (RunCommand) Description() string {
	return "Run a shell command with `bash -c` in the workspace directory and return its combined stdout and " +
		"stderr followed by its exit code. stdin is empty (/dev/null); nothing is interactive. " +
		"The command and all its child processes are killed after timeout_sec seconds (default 120, at most 3600). " +
		"A non-zero exit code is reported, not treated as a failure of the tool. Long output is shortened in the middle."
}

func (RunCommand) Schema() *Schema {
	return objectOf(map[string]*Schema{
		"command":     strField("The bash command line to run."),
		"timeout_sec": intField("Timeout in seconds (default 120).", ptr(1), ptr(MaxTimeoutSec)),
	}, "command")
}

func (t RunCommand) Run(ctx context.Context, env *Env, raw json.RawMessage) (Result, error) {
	var a runCommandArgs
	if err := decodeArgs(t.Name(), raw, &a); err != nil {
		return Result{}, err
	}
	if err := checkEnv(t.Name(), env); err != nil {
		return Result{}, err
	}
	if strings.TrimSpace(a.Command) == "" {
		return Result{}, &ArgError{Tool: t.Name(), Field: "command", Problem: `field "command" must not be empty`}
	}
	timeout := a.TimeoutSec
	if timeout <= 0 {
		timeout = env.DefaultTimeoutSec
	}
	if timeout <= 0 {
		timeout = DefaultTimeoutSec
	}
	timeout = min(timeout, MaxTimeoutSec)
	root, err := workspaceRoot(env.Workspace)
	if err != nil {
		return Result{}, fmt.Errorf("run_command: %w", err)
	}
	if err := ctx.Err(); err != nil {
		return Result{}, fmt.Errorf("run_command: not started: %w", err)
	}

	out := &keepBuffer{keep: commandKeep}
	cmd := exec.Command("bash", "-c", a.Command)
	cmd.Dir = root
	cmd.Stdin = nil // /dev/null
	cmd.Stdout, cmd.Stderr = out, out
	cmd.Env = append(os.Environ(), "PAGER=cat", "GIT_PAGER=cat", "GIT_TERMINAL_PROMPT=0")
	cmd.WaitDelay = commandWaitDelay
	setProcessGroup(cmd)
	if err := cmd.Start(); err != nil {
		return Result{}, fmt.Errorf("run_command: start bash: %w", err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	timer := time.NewTimer(time.Duration(timeout) * time.Second)
	defer timer.Stop()

	var waitErr error
	timedOut, interrupted := false, false
	select {
	case waitErr = <-done:
	case <-timer.C:
		timedOut = true
		killGroup(cmd)
		waitErr = <-done
	case <-ctx.Done():
		interrupted = true
		killGroup(cmd)
		waitErr = <-done
	}

	text := out.render(MaxOutput - 200)
	if text == "" {
		text = "(no output)"
	}
	if !strings.HasSuffix(text, "\n") {
		text += "\n"
	}
	res := Result{}
	if cmd.ProcessState != nil {
		code := exitCode(cmd.ProcessState)
		res.ExitCode = &code
	}
	var exitErr *exec.ExitError
	switch {
	case timedOut:
		res.Output = text + fmt.Sprintf("command timed out after %d s; process group killed", timeout)
		res.IsError = true
		return res, nil
	case interrupted:
		res.Output = text + "command interrupted; process group killed"
		res.IsError = true
		return res, fmt.Errorf("run_command: %w", ctx.Err())
	case waitErr == nil, errors.Is(waitErr, exec.ErrWaitDelay), errors.As(waitErr, &exitErr):
		code := -1
		if res.ExitCode != nil {
			code = *res.ExitCode
		}
		res.Output = text + fmt.Sprintf("exit code: %d", code)
		return res, nil
	default:
		res.Output = text
		return res, fmt.Errorf("run_command: %w", waitErr)
	}
}

// keepBuffer collects a command's output, keeping at most keep bytes of the
// beginning and keep bytes of the end in memory.
type keepBuffer struct {
	mu      sync.Mutex
	keep    int
	head    []byte
	tail    []byte // the last bytes, up to 2*keep before compaction
	dropped int
}

func (b *keepBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	n := len(p)
	if room := b.keep - len(b.head); room > 0 {
		take := min(room, len(p))
		b.head = append(b.head, p[:take]...)
		p = p[take:]
	}
	b.tail = append(b.tail, p...)
	if len(b.tail) > 2*b.keep {
		cut := len(b.tail) - b.keep
		b.dropped += cut
		b.tail = append(b.tail[:0], b.tail[cut:]...)
	}
	return n, nil
}

// render returns the output truncated to max characters.
func (b *keepBuffer) render(max int) string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return truncateCut(string(b.head)+string(b.tail), max, b.dropped)
}
