package hooks

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"time"
	"unicode/utf8"

	"agent/internal/proc"
)

// Input is the JSON object a hook reads on stdin. Every text in it has
// passed redaction. The Claude Code names (session_id, cwd,
// hook_event_name, tool_name, tool_input) are filled too, so that scripts
// written for it port with little change.
type Input struct {
	Event     Event           `json:"event"`
	RunID     string          `json:"run_id"`
	Workspace string          `json:"workspace"`
	Tool      string          `json:"tool,omitempty"`
	CallID    string          `json:"call_id,omitempty"`
	Arguments json.RawMessage `json:"arguments,omitempty"`
	// Status and Output are the call's result (after_tool_call).
	Status string  `json:"status,omitempty"`
	Output *string `json:"output,omitempty"`
	// Prompt is the person's message (user_prompt).
	Prompt string `json:"prompt,omitempty"`
	// Reason is why a person is asked (approval_requested).
	Reason string `json:"reason,omitempty"`
	// Source is "new" or "resume" (session_start).
	Source string `json:"source,omitempty"`
	// Payload is the journaled event (compaction, run_finished), as
	// agent export shows it.
	Payload json.RawMessage `json:"payload,omitempty"`

	SessionID     string          `json:"session_id"`
	Cwd           string          `json:"cwd"`
	HookEventName string          `json:"hook_event_name"`
	ToolName      string          `json:"tool_name,omitempty"`
	ToolInput     json.RawMessage `json:"tool_input,omitempty"`
}

// Reply is the JSON a hook may print on stdout when it exits 0. Claude
// Code's shapes are read too: "decision": "approve" | "block", and
// hookSpecificOutput's permissionDecision, permissionDecisionReason and
// additionalContext.
type Reply struct {
	Decision string `json:"decision"` // before_tool_call: allow, deny, ask
	Reason   string `json:"reason"`
	Block    bool   `json:"block"` // user_prompt
	Note     string `json:"note"`  // after_tool_call
	Specific struct {
		PermissionDecision       string `json:"permissionDecision"`
		PermissionDecisionReason string `json:"permissionDecisionReason"`
		AdditionalContext        string `json:"additionalContext"`
	} `json:"hookSpecificOutput"`
}

// Answer is what one hook answered.
type Answer struct {
	Hook Hook
	// Exit is the hook's exit code; -1 when it did not exit by itself.
	Exit   int
	Stderr string
	// Reply is the JSON it printed (exit 0), nil when it printed nothing.
	Reply *Reply
	// Err is why the hook failed: it could not start, timed out, exited
	// with a code other than 0 and 2, or printed what is not a JSON object.
	Err error
}

// Blocked reports a hook that exited 2: it objects, its stderr says why.
func (a Answer) Blocked() bool { return a.Err == nil && a.Exit == 2 }

// ErrTimeout is the cause of a hook that outlived its timeout.
var ErrTimeout = errors.New("timed out")

// outputLimit bounds what is kept of a hook's stdout and stderr.
const outputLimit = 64 << 10

// Options configure a Runner.
type Options struct {
	Hooks []Hook
	// Env is the environment hooks run with: the scrubbed one commands get
	// (no credentials).
	Env []string
	// Redact removes secrets from every text a hook is given and from
	// what it answers before that is journaled or shown.
	Redact func(string) string
	// Warn receives a hook's failure where it does not decide anything.
	Warn func(string)
}

// Runner runs the hooks of a session.
type Runner struct {
	hooks  []Hook
	env    []string
	redact func(string) string
	warn   func(string)
}

// New returns a Runner of opt's hooks; nil when there are none.
func New(opt Options) *Runner {
	if len(opt.Hooks) == 0 {
		return nil
	}
	r := &Runner{hooks: opt.Hooks, env: opt.Env, redact: opt.Redact, warn: opt.Warn}
	if r.redact == nil {
		r.redact = func(s string) string { return s }
	}
	if r.warn == nil {
		r.warn = func(string) {}
	}
	return r
}

// Has reports whether a hook is bound to ev for tool.
func (r *Runner) Has(ev Event, tool string) bool {
	if r == nil {
		return false
	}
	for _, h := range r.hooks {
		if h.Matches(ev, tool) {
			return true
		}
	}
	return false
}

// run runs every hook bound to in's event and tool, in config order,
// until stop says an answer settles it.
func (r *Runner) run(ctx context.Context, in Input, stop func(Answer) bool) []Answer {
	if r == nil {
		return nil
	}
	in = r.prepare(in)
	b, err := marshal(in)
	if err != nil {
		r.warn(fmt.Sprintf("hook input for %s: %v", in.Event, err))
		return nil
	}
	var out []Answer
	for _, h := range r.hooks {
		if !h.Matches(in.Event, in.Tool) {
			continue
		}
		a := r.exec(ctx, h, in.Workspace, b)
		out = append(out, a)
		if stop != nil && stop(a) {
			break
		}
	}
	return out
}

// prepare redacts the input and fills in the Claude Code names.
func (r *Runner) prepare(in Input) Input {
	in.Arguments = redactJSON(in.Arguments, r.redact)
	in.Payload = redactJSON(in.Payload, r.redact)
	if in.Output != nil {
		o := r.redact(*in.Output)
		in.Output = &o
	}
	in.Prompt, in.Reason = r.redact(in.Prompt), r.redact(in.Reason)
	in.SessionID, in.Cwd, in.HookEventName = in.RunID, in.Workspace, in.Event.claudeName()
	in.ToolName, in.ToolInput = in.Tool, in.Arguments
	return in
}

// exec runs one hook: bash -c COMMAND in the workspace, in a session of its
// own (no controlling terminal, its own process group), input on stdin.
// Whatever the hook leaves running is killed with its group when it exits,
// and the whole group when it outlives its timeout or ctx.
func (r *Runner) exec(ctx context.Context, h Hook, dir string, input []byte) Answer {
	a := Answer{Hook: h, Exit: -1}
	cmd := exec.Command("bash", "-c", h.Command)
	cmd.Dir = dir
	cmd.Env = r.env
	if cmd.Env == nil {
		cmd.Env = []string{}
	}
	cmd.SysProcAttr = sysProcAttr()
	// Pipes of our own: exec's copying goroutines would make Wait wait for
	// whatever the hook left holding them.
	inR, inW, err := os.Pipe()
	if err != nil {
		a.Err = fmt.Errorf("could not start: %w", err)
		return a
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		inR.Close()
		inW.Close()
		a.Err = fmt.Errorf("could not start: %w", err)
		return a
	}
	errR, errW, err := os.Pipe()
	if err != nil {
		inR.Close()
		inW.Close()
		outR.Close()
		outW.Close()
		a.Err = fmt.Errorf("could not start: %w", err)
		return a
	}
	cmd.Stdin, cmd.Stdout, cmd.Stderr = inR, outW, errW
	// The keeper is started before the hook and told its group right
	// after: a SIGKILLed agent leaves no background child of the hook
	// running.
	keeper := startWatchdog()
	err = cmd.Start()
	inR.Close()
	outW.Close()
	errW.Close()
	if err != nil {
		inW.Close()
		outR.Close()
		errR.Close()
		keeper.release()
		a.Err = fmt.Errorf("could not start: %w", err)
		return a
	}
	pgid := cmd.Process.Pid
	keeper.guard(pgid)
	go func() {
		inW.Write(input) // a hook that does not read its input gets EPIPE
		inW.Close()
	}()
	var stdout, stderr bytes.Buffer
	readDone := make(chan struct{}, 2)
	for _, p := range []struct {
		f   *os.File
		buf *bytes.Buffer
	}{{outR, &stdout}, {errR, &stderr}} {
		go func() {
			io.Copy(p.buf, io.LimitReader(p.f, outputLimit))
			io.Copy(io.Discard, p.f)
			readDone <- struct{}{}
		}()
	}
	waited := make(chan error, 1)
	go func() { waited <- cmd.Wait() }()
	timer := time.NewTimer(h.timeout())
	defer timer.Stop()
	var werr error
	select {
	case werr = <-waited:
	case <-timer.C:
		proc.KillGroup(pgid)
		<-waited
		a.Err = fmt.Errorf("%w after %s (killed with its process group)", ErrTimeout, h.timeout())
	case <-ctx.Done():
		proc.KillGroup(pgid)
		<-waited
		a.Err = fmt.Errorf("cancelled: %w", ctx.Err())
	}
	// A hook does not outlive its answer: what it left running ends now.
	proc.KillGroup(pgid)
	keeper.release()
	for range 2 {
		select {
		case <-readDone:
		case <-time.After(time.Second): // a process that left the group holds a pipe
		}
	}
	outR.Close()
	errR.Close()
	a.Stderr = strings.TrimSpace(r.redact(stderr.String()))
	if a.Err != nil {
		return a
	}
	var ee *exec.ExitError
	switch {
	case werr == nil:
		a.Exit = 0
	case errors.As(werr, &ee) && ee.Exited():
		a.Exit = ee.ExitCode()
	default:
		a.Err = fmt.Errorf("ended abnormally: %v", werr)
		return a
	}
	switch a.Exit {
	case 0:
		text := strings.TrimSpace(stdout.String())
		if text == "" {
			return a
		}
		var rep Reply
		dec := json.NewDecoder(strings.NewReader(text))
		if err := dec.Decode(&rep); err != nil || dec.More() || !strings.HasPrefix(text, "{") {
			a.Err = fmt.Errorf("answered what is not one JSON object: %q", clip(r.redact(text), 120))
			return a
		}
		a.Reply = &rep
	case 2:
	default:
		a.Err = fmt.Errorf("exited %d%s", a.Exit, colon(a.Stderr))
	}
	return a
}

func colon(s string) string {
	if s == "" {
		return ""
	}
	return ": " + clip(s, 300)
}

// clip cuts s to at most n bytes at a character boundary (a hook's stderr
// may be any UTF-8: a reason cut inside a character would not be valid).
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}

// redactJSON redacts the string values of a JSON document, keeping it
// well-formed; what does not parse is redacted as text, as a JSON string.
func redactJSON(raw json.RawMessage, redact func(string) string) json.RawMessage {
	if len(raw) == 0 {
		return raw
	}
	var v any
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if err := dec.Decode(&v); err != nil {
		b, _ := marshal(redact(string(raw)))
		return b
	}
	b, err := marshal(redactValue(v, redact))
	if err != nil {
		b, _ = marshal(redact(string(raw)))
	}
	return b
}

// marshal is json.Marshal without escaping <, > and & (a hook's patterns
// see "a > b" as written).
func marshal(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimRight(buf.Bytes(), "\n"), nil
}

func redactValue(v any, redact func(string) string) any {
	switch x := v.(type) {
	case string:
		return redact(x)
	case []any:
		for i := range x {
			x[i] = redactValue(x[i], redact)
		}
	case map[string]any:
		for k := range x {
			x[k] = redactValue(x[k], redact)
		}
	}
	return v
}
