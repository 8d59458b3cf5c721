package demo

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"time"
)

// childTimeout bounds one child command: the whole demo takes seconds.
const childTimeout = 45 * time.Second

// result is how a child `agent` command ended.
type result struct {
	code   int
	stdout string
	stderr string
}

// runID is the id on the first stderr line ("run: RUN_ID").
func (r result) runID() string {
	first, _, _ := strings.Cut(r.stderr, "\n")
	id, _ := strings.CutPrefix(first, "run: ")
	return strings.TrimSpace(id)
}

// agentCmd is a child `agent ARGS...` in the repository with env.
func (w *world) agentCmd(ctx context.Context, env []string, args ...string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, w.exe, args...)
	cmd.Dir = w.repo
	cmd.Env = env
	cmd.WaitDelay = 5 * time.Second
	return cmd
}

// agent runs a child `agent ARGS...` to its end.
func (w *world) agent(ctx context.Context, env []string, args ...string) (result, error) {
	ctx, cancel := context.WithTimeout(ctx, childTimeout)
	defer cancel()
	cmd := w.agentCmd(ctx, env, args...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	res := result{stdout: out.String(), stderr: errb.String()}
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee) && ctx.Err() == nil:
		res.code = ee.ExitCode()
	case err != nil:
		return res, fmt.Errorf("demo: agent %s: %w\n%s", strings.Join(args, " "), err, res.stderr)
	}
	return res, nil
}

// want checks a child's exit code.
func (r result) want(code int, what string) error {
	if r.code != code {
		return fmt.Errorf("demo: %s exited %d, want %d:\n%s%s", what, r.code, code, r.stderr, r.stdout)
	}
	return nil
}

// syncBuffer is a bytes.Buffer safe for a child's writes and our reads.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// crashed is a child run killed with SIGKILL while its command ran.
type crashed struct {
	res result
	pid int
}

// runAndKill starts `agent ARGS...`, waits until the blocking command has
// opened the release gate, and SIGKILLs the agent alone (not its process
// group; the command is in a group of its own anyway): a crash with no
// chance to clean up.
func (w *world) runAndKill(ctx context.Context, env []string, args ...string) (crashed, error) {
	ctx, cancel := context.WithTimeout(ctx, childTimeout)
	defer cancel()
	cmd := w.agentCmd(ctx, env, args...)
	var out, errb syncBuffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Start(); err != nil {
		return crashed{}, fmt.Errorf("demo: starting agent run: %w", err)
	}
	exited := make(chan struct{})
	var waitErr error
	go func() { waitErr = cmd.Wait(); close(exited) }()
	stop := make(chan struct{})
	go func() {
		select {
		case <-exited:
		case <-ctx.Done():
		}
		close(stop)
	}()
	gateErr := w.openGate(stop)
	if gateErr == nil {
		_ = cmd.Process.Signal(syscall.SIGKILL)
	}
	<-exited
	c := crashed{res: result{stdout: out.String(), stderr: errb.String(), code: -1}, pid: cmd.Process.Pid}
	if gateErr != nil {
		return c, fmt.Errorf("%w (agent run ended first: %v)\n%s", gateErr, waitErr, c.res.stderr)
	}
	var ee *exec.ExitError
	if errors.As(waitErr, &ee) {
		if st, ok := ee.Sys().(syscall.WaitStatus); !ok || !st.Signaled() || st.Signal() != syscall.SIGKILL {
			return c, fmt.Errorf("demo: agent run ended by itself (%v) before the kill\n%s", waitErr, c.res.stderr)
		}
	}
	return c, nil
}

// event is the part of a journaled event the demo narrates.
type event struct {
	Type      string   `json:"type"`
	CallID    string   `json:"call_id"`
	Name      string   `json:"name"`
	Arguments string   `json:"arguments"`
	Decision  string   `json:"decision"`
	Scope     string   `json:"scope"`
	Source    string   `json:"source"`
	Rule      string   `json:"rule"`
	Status    string   `json:"status"`
	Output    string   `json:"output"`
	Text      string   `json:"text"`
	Files     []string `json:"files"`
	ID        string   `json:"checkpoint_id"`
	Kind      string   `json:"kind"`
	// Interrupted are a resume's decisions about the calls it found cut off.
	Interrupted []struct {
		CallID string `json:"call_id"`
		Action string `json:"action"`
	} `json:"interrupted"`
}

// events parses an event stream (--json: one object a line) or a trace
// (--json: one array).
func events(s string) ([]event, error) {
	s = strings.TrimSpace(s)
	if strings.HasPrefix(s, "[") {
		var evs []event
		if err := json.Unmarshal([]byte(s), &evs); err != nil {
			return nil, fmt.Errorf("demo: the trace: %w", err)
		}
		return evs, nil
	}
	var evs []event
	sc := bufio.NewScanner(strings.NewReader(s))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		var ev event
		if err := json.Unmarshal(sc.Bytes(), &ev); err != nil {
			return nil, fmt.Errorf("demo: the event stream: %w", err)
		}
		evs = append(evs, ev)
	}
	return evs, sc.Err()
}

// find is the first event of typ for call ("" matches any call).
func find(evs []event, typ, call string) (event, bool) {
	for _, ev := range evs {
		if ev.Type == typ && (call == "" || ev.CallID == call) {
			return ev, true
		}
	}
	return event{}, false
}
