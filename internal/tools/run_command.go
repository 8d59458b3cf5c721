package tools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"strings"
	"sync"
	"time"

	"agent/internal/event"
	"agent/internal/proc"
	"agent/internal/redact"
	"agent/internal/sandbox"
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
	// OutsideSandbox asks to run the command without the OS sandbox; it
	// runs so only when a person approved exactly this call.
	OutsideSandbox bool `json:"outside_sandbox"`
}

func (RunCommand) Name() string     { return "run_command" }
func (RunCommand) Risk() event.Risk { return event.RiskExec }
func (RunCommand) Description() string {
	return "Run a shell command with `bash -c` in the workspace directory and return its combined stdout and " +
		"stderr followed by its exit code. stdin is empty (/dev/null); nothing is interactive. " +
		"The command and all its child processes are killed after timeout_sec seconds (default 120, at most 3600). " +
		"A non-zero exit code is reported, not treated as a failure of the tool. Long output is shortened in the middle. " +
		"Commands may run in an OS sandbox (no writes outside the workspace, no network); what it blocked is noted in the result."
}

func (RunCommand) Schema() *Schema {
	return objectOf(map[string]*Schema{
		"command":     strField("The bash command line to run."),
		"timeout_sec": intField("Timeout in seconds (default 120).", ptr(1), ptr(MaxTimeoutSec)),
		"outside_sandbox": boolField("Run outside the OS sandbox. Only after the sandbox blocked this command and " +
			"only if it cannot be done inside; a person must approve it (default false)."),
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

	if err := t.Precheck(raw); err != nil {
		return Result{}, err
	}

	sb, info, err := commandSandbox(env, a)
	if err != nil {
		return Result{}, err
	}
	out := &keepBuffer{keep: commandKeep}
	var w io.Writer = out
	if env.Output != nil {
		w = teeWriter{out, env.Output}
	}
	if plan := planBuiltin(env, a.Command, info == nil || info.Mode != sandbox.NameReadOnly); plan != nil {
		return runBuiltin(env, plan, root, info, out, w)
	}
	spec := proc.Spec{
		Path: "bash", Args: []string{"-c", proc.GateScript + a.Command},
		Dir: root, Env: env.commandEnv(),
		Marker: env.Marker, Stdout: w, Stderr: w, WaitDelay: commandWaitDelay, Gated: true,
	}
	p, err := startCommand(sb, spec, runIDOf(env.Marker), w)
	if err != nil {
		return Result{}, fmt.Errorf("run_command: start bash: %w", err)
	}
	if env.Started != nil {
		// The process exists but runs nothing until released: its identity
		// is journaled first, so a crash from here on leaves a trace of it.
		if err := env.Started(p.Identity()); err != nil {
			p.Abort()
			return Result{}, fmt.Errorf("run_command: not started: %w", err)
		}
	}
	if err := p.Release(); err != nil {
		p.KillGroup()
		<-p.Exited()
		return Result{}, fmt.Errorf("run_command: %w", err)
	}
	timer := time.NewTimer(time.Duration(timeout) * time.Second)
	defer timer.Stop()

	timedOut, interrupted := false, false
	select {
	case <-p.Exited():
	case <-timer.C:
		timedOut = true
		p.KillGroup()
		<-p.Exited()
	case <-ctx.Done():
		interrupted = true
		p.KillGroup()
		<-p.Exited()
	}
	waitErr := p.Err()

	text := out.text()
	res := Result{Sandbox: info}
	if code, ok := p.ExitCode(); ok {
		res.ExitCode = &code
	}
	if sb != nil {
		// Re-read after the command: a fallback for no network may have
		// been learned at its start.
		res.Sandbox = sb.Info()
		code := -1
		if res.ExitCode != nil {
			code = *res.ExitCode
		}
		if blocks := sb.Blocked(text, root, a.Command, code); len(blocks) > 0 {
			res.Sandbox.Blocked = blocks
			text = strings.TrimSuffix(text, "\n") + sandbox.Note(blocks, string(res.Sandbox.Mode), env.Escalation) + "\n"
		}
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
		if bg := p.Background(); len(bg) > 0 {
			res.Background = bg
			res.Output += backgroundNote(bg)
		}
		return res, nil
	default:
		res.Output = text
		return res, fmt.Errorf("run_command: %w", waitErr)
	}
}

// commandSandbox decides what a call runs under: the session's sandbox,
// or none for a call a person approved to run outside it. A call asking to
// leave the sandbox without that approval is refused.
func commandSandbox(env *Env, a runCommandArgs) (Sandboxer, *event.SandboxInfo, error) {
	sb := env.Sandbox
	if sb == nil {
		return nil, &event.SandboxInfo{Mode: sandbox.NameOff, Network: true}, nil
	}
	if !sb.Active() {
		return nil, sb.Info(), nil
	}
	if a.OutsideSandbox {
		if !env.OutsideSandbox {
			return nil, nil, errors.New("run_command: outside_sandbox runs only with a person's approval of this very call " +
				"(no rule, grant or mode gives it); run it inside the sandbox, or ask the user")
		}
		req := sb.Info().Mode
		return nil, &event.SandboxInfo{Mode: sandbox.NameOff, Requested: req, Source: "escalation", Network: true,
			Note: "a person approved running this call outside the sandbox"}, nil
	}
	return sb, sb.Info(), nil
}

// command is a started command: a process of ours (no sandbox) or one the
// sandbox's spawner forked.
type command interface {
	Identity() proc.Identity
	Release() error
	Abort()
	Exited() <-chan struct{}
	Err() error
	ExitCode() (int, bool)
	KillGroup()
	Background() []proc.Info
}

// startCommand starts spec: through the run's sandbox spawner when sb is
// set (its output goes to out), else as a process of ours.
func startCommand(sb Sandboxer, spec proc.Spec, runID string, out io.Writer) (command, error) {
	if sb == nil {
		return proc.Start(spec)
	}
	c, err := sb.Start(runID, sandbox.CommandSpec{
		Argv: append([]string{spec.Path}, spec.Args...), Dir: spec.Dir, Env: spec.Env, Marker: spec.Marker,
		Output: out, WaitDelay: spec.WaitDelay, Gated: spec.Gated,
	})
	if err != nil {
		return nil, err
	}
	return c, nil
}

// Precheck refuses, before anyone is asked to approve it, a command that
// can only do harm.
func (RunCommand) Precheck(raw json.RawMessage) error {
	var a runCommandArgs
	if err := json.Unmarshal(raw, &a); err == nil && redact.ContainsPlaceholder(a.Command) {
		return errPlaceholderCommand
	}
	return nil
}

// errPlaceholderCommand refuses a command holding a redaction placeholder:
// the model never saw the secret, so a command writing the placeholder would
// replace the real value with garbage; the real value is never substituted
// either, since a command could send it anywhere.
var errPlaceholderCommand = errors.New("run_command: the command contains a [REDACTED:...] placeholder. " +
	"Secrets are hidden from you and are never put back into commands: a command writing the placeholder " +
	"would destroy the real value, and one using it cannot work. Edit around the secret with edit_file " +
	"(leave the lines that hold it unchanged), or ask the user to run the command themselves")

// backgroundNote tells the model (and the person) what a command left
// running.
func backgroundNote(bg []proc.Info) string {
	var b strings.Builder
	fmt.Fprintf(&b, "\nnote: the command left %d process(es) running in the background:", len(bg))
	for i, p := range bg {
		if i == 5 {
			fmt.Fprintf(&b, "\n  ... and %d more", len(bg)-i)
			break
		}
		fmt.Fprintf(&b, "\n  pid %d: %s", p.PID, p.Command)
	}
	b.WriteString("\nThey are stopped when the run ends or pauses, so nothing changes files behind the journal. " +
		"A long-lived server should be started by the user outside the agent.")
	return b.String()
}

// teeWriter writes to the kept output and to a live view; the view's
// failure never fails the command's output.
type teeWriter struct {
	keep io.Writer
	live io.Writer
}

func (t teeWriter) Write(p []byte) (int, error) {
	n, err := t.keep.Write(p)
	_, _ = t.live.Write(p)
	return n, err
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
// text is the output as a result shows it: cut to fit, "(no output)"
// when empty, ending in a newline.
func (b *keepBuffer) text() string {
	text := b.render(MaxOutput - 200)
	if text == "" {
		text = "(no output)"
	}
	if !strings.HasSuffix(text, "\n") {
		text += "\n"
	}
	return text
}

func (b *keepBuffer) render(max int) string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return truncateCut(string(b.head)+string(b.tail), max, b.dropped)
}

// runBuiltin runs a command of builtins in-process (builtin_cmd.go). It is
// journaled as started (with no process: pid 0) before anything is
// written, as a command's process is, so a resume never runs it twice.
func runBuiltin(env *Env, plan *builtinPlan, root string, info *event.SandboxInfo, out *keepBuffer, w io.Writer) (Result, error) {
	if env.Started != nil {
		if err := env.Started(proc.Identity{Marker: env.Marker}); err != nil {
			return Result{}, fmt.Errorf("run_command: not started: %w", err)
		}
	}
	br := &builtinRun{plan: plan, out: w, open: func(rel string, appendTo bool) (io.WriteCloser, error) {
		return openBeneath(root, rel, appendTo)
	}}
	code := br.run()
	return Result{Sandbox: info, ExitCode: &code, Output: out.text() + fmt.Sprintf("exit code: %d", code)}, nil
}
