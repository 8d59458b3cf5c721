package evals

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"agent/internal/event"
)

// Options configure a Runner.
type Options struct {
	// Bin is the agent binary to drive (the running one: os.Executable()).
	Bin string
	// Env is the environment the runs start from (os.Environ()); the
	// agent's own variables are replaced per task.
	Env []string
	// Live runs against the configured model instead of the local server;
	// LiveEnv carries it (OPENAI_BASE_URL, OPENAI_API_KEY, AGENT_MODEL).
	Live    bool
	LiveEnv []string
	// BudgetUSD, live only, is each task's dollar budget (agent run
	// --budget-usd): a task's run that reaches it fails the task (0: none).
	BudgetUSD float64
	// TempDir is where task directories are made ("": the system's).
	TempDir string
}

// Runner runs tasks, one at a time per call.
type Runner struct {
	opt Options
}

// NewRunner returns a Runner.
func NewRunner(opt Options) *Runner { return &Runner{opt: opt} }

// dummyKey is the API key the runs send to the local server.
const dummyKey = "eval-local-key"

// scrubbed are the variables of the person's environment a replayed task
// must not see (its own are set per task).
var scrubbed = []string{"AGENT_", "OPENAI_", "ANTHROPIC_", "XDG_CONFIG_HOME=", "XDG_STATE_HOME="}

// taskRun is the state of one task's run.
type taskRun struct {
	r      *Runner
	t      *Task
	ws     string
	home   string
	env    []string
	srv    *modelServer
	runID  string
	res    *Result
	faults []faultState
	// journal is the output of agent trace --json, once read.
	journal []byte
	// pending is the last tool call of the stream not yet decided or done:
	// the one a paused run waits on.
	pending string
	// kids are the subagents' journals, once read; par the barrier of
	// subagents_parallel (nil without it).
	kids []*child
	par  *barrier

	mu     sync.Mutex
	proc   *os.Process
	killed bool
}

type faultState struct {
	Fault
	stalledTurn int // the played turn of a stream fault's stalled copy
	seen        int // events of the type since the fault was armed
	fired       bool
}

// Run runs one task and returns its result; a task that cannot run is a
// failed result, not an error.
func (r *Runner) Run(ctx context.Context, t *Task) (res Result) {
	start := time.Now()
	res = Result{Name: t.Name, Category: t.Category, Description: t.Description}
	defer func() { res.Seconds = roundTo(time.Since(start).Seconds(), 2) }()
	tmp, err := os.MkdirTemp(r.opt.TempDir, "agent-eval-")
	if err != nil {
		res.fail("make a temporary directory: %v", err)
		return res
	}
	defer os.RemoveAll(tmp)
	x := &taskRun{r: r, t: t, ws: filepath.Join(tmp, "ws"), home: filepath.Join(tmp, "home"), res: &res}
	if err := x.setup(tmp); err != nil {
		res.fail("%v", err)
		return res
	}
	if x.srv != nil {
		defer x.srv.close()
	}
	tctx, cancel := context.WithTimeout(ctx, t.Timeout)
	defer cancel()
	x.play(tctx)
	switch {
	case ctx.Err() != nil:
		res.fail("interrupted")
	case tctx.Err() != nil:
		res.fail("timed out after %s (the task's timeout; raise it with timeout = \"...\" in task.toml)", t.Timeout)
	}
	x.evaluate(ctx)
	return res
}

// setup makes the workspace, state and config directories, the environment
// and the local server.
func (x *taskRun) setup(tmp string) error {
	if err := makeWorkspace(filepath.Join(x.t.Dir, "fixture"), x.ws); err != nil {
		return err
	}
	cfgHome := filepath.Join(tmp, "config")
	for _, d := range []string{x.home, filepath.Join(cfgHome, "agent")} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			return fmt.Errorf("make %s: %w", d, err)
		}
	}
	var body string
	if x.t.Config.Window > 0 {
		body += fmt.Sprintf("[context]\nwindow = %d\n", x.t.Config.Window)
	}
	if x.t.Config.MaxParallel > 0 {
		body += fmt.Sprintf("[subagents]\nmax_parallel = %d\n", x.t.Config.MaxParallel)
	}
	if body != "" {
		if err := os.WriteFile(filepath.Join(cfgHome, "agent", "config.toml"), []byte(body), 0o600); err != nil {
			return fmt.Errorf("write the task's config: %w", err)
		}
	}
	for _, kv := range x.r.opt.Env {
		if !hasAnyPrefix(kv, scrubbed) {
			x.env = append(x.env, kv)
		}
	}
	x.env = append(x.env, "AGENT_HOME="+x.home, "XDG_CONFIG_HOME="+cfgHome)
	for _, f := range x.t.Faults {
		x.faults = append(x.faults, faultState{Fault: f})
	}
	if x.r.opt.Live {
		x.env = append(x.env, x.r.opt.LiveEnv...)
		for i := range x.faults {
			if x.faults[i].At == AtStream {
				x.faults[i].fired = true // nothing to stall: no local server
				x.res.Notes = append(x.res.Notes, fmt.Sprintf("live: the stream fault at turn %d was not applied (no local server)", x.faults[i].Turn))
			}
		}
		return nil
	}
	script, stalled := prepareScript(x.t)
	for fi, turn := range stalled {
		x.faults[fi].stalledTurn = turn
	}
	for _, a := range x.t.Expect.Trace {
		if a.Assert == AssertSubagentsParallel {
			x.par = newBarrier(a.N)
		}
	}
	srv, err := startServer(x.t, script, x.par)
	if err != nil {
		return err
	}
	x.srv = srv
	x.env = append(x.env, "OPENAI_BASE_URL="+srv.url, "OPENAI_API_KEY="+dummyKey)
	srv.setOnTurn(x.onTurn)
	return nil
}

func hasAnyPrefix(s string, prefixes []string) bool {
	for _, p := range prefixes {
		if strings.HasPrefix(s, p) {
			return true
		}
	}
	return false
}

// play runs the task: the run, its faults and decisions, then the actions.
func (x *taskRun) play(ctx context.Context) {
	args := []string{"run", "-C", x.ws, "--json", "--approval", x.t.Policy.Mode, "--max-steps", strconv.Itoa(x.t.MaxSteps)}
	for _, a := range x.t.Policy.Allow {
		args = append(args, "--allow", a)
	}
	for _, d := range x.t.Policy.Deny {
		args = append(args, "--deny", d)
	}
	if x.r.opt.Live && x.r.opt.BudgetUSD > 0 {
		args = append(args, "--budget-usd", strconv.FormatFloat(x.r.opt.BudgetUSD, 'f', -1, 64))
	}
	args = append(args, "--", x.t.Prompt)
	decisions := x.t.Policy.Decisions
	if !x.drive(ctx, args, &decisions) {
		return
	}
	var lastBefore string
	for i, a := range x.t.Actions {
		at := fmt.Sprintf("actions[%d] (%s)", i+1, a.Kind)
		switch a.Kind {
		case ActionRollback:
			id, err := x.checkpointOf(ctx, a.Call, a.Checkpoint)
			if err != nil {
				x.res.fail("%s: %v", at, err)
				return
			}
			if lastBefore, err = x.rollback(ctx, id, a.Conversation); err != nil {
				x.res.fail("%s: %v", at, err)
				return
			}
		case ActionUndo:
			if lastBefore == "" {
				x.res.fail("%s: no rollback before it to undo", at)
				return
			}
			before, err := x.rollback(ctx, lastBefore, false)
			if err != nil {
				x.res.fail("%s: %v", at, err)
				return
			}
			lastBefore = before
		case ActionMessage:
			if !x.drive(ctx, []string{"resume", x.runID, "--headless", "--json", "--message", a.Text}, &decisions) {
				return
			}
		}
	}
	if len(decisions) > 0 {
		x.res.fail("%d decision(s) left unused: the run never paused for %s", len(decisions), decisions[0].Call)
	}
}

// drive runs one agent command, then resumes the run after each fault and
// answers each pause from decisions, until the run ends. It reports whether
// the task can go on.
func (x *taskRun) drive(ctx context.Context, args []string, decisions *[]Decision) bool {
	for {
		code, killed, stderr, err := x.stretch(ctx, args)
		switch {
		case err != nil:
			x.res.fail("%v", err)
			return false
		case ctx.Err() != nil:
			return false
		case killed:
			args = []string{"resume", x.runID, "--headless", "--json"}
			continue
		case code == 4:
			why := lastLine(stderr)
			for _, l := range strings.Split(stderr, "\n") {
				if strings.Contains(l, "budget reached") || strings.Contains(l, "cannot be kept") {
					why = strings.TrimSpace(l)
				}
			}
			x.res.fail("the run reached its budget (exit 4, budget_exhausted): %s", why)
			return false
		case code == 3:
			if len(*decisions) == 0 {
				x.res.fail("the run paused for approval (exit 3) but the task has no decision left ([[policy.decisions]])")
				return false
			}
			d := (*decisions)[0]
			*decisions = (*decisions)[1:]
			if x.r.opt.Live && x.pending != "" && x.pending != d.Call {
				// A live model names its calls itself: decisions apply in order.
				x.res.Notes = append(x.res.Notes, fmt.Sprintf("live: the decision for %s applied to the model's %s", d.Call, x.pending))
				d.Call = x.pending
			}
			args = []string{"resume", x.runID, "--headless", "--json"}
			if d.Decision == event.Allow {
				args = append(args, "--approve", d.Call, "--scope", string(d.Scope))
			} else {
				args = append(args, "--deny", d.Call)
				if d.Note != "" {
					args = append(args, "--note", d.Note)
				}
			}
			continue
		case code == 2:
			x.res.fail("agent %s exited 2: %s", args[0], lastLine(stderr))
			return false
		}
		return true
	}
}

// stretch runs the agent once with args, reading its --json stream to fire
// the event faults. killed says a fault killed it.
func (x *taskRun) stretch(ctx context.Context, args []string) (code int, killed bool, stderr string, err error) {
	cmd := exec.Command(x.r.opt.Bin, args...)
	cmd.Env, cmd.Dir = x.env, x.ws
	var errb bytes.Buffer
	cmd.Stderr = &limitedWriter{w: &errb, n: 1 << 20}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return 0, false, "", fmt.Errorf("start agent %s: %w", args[0], err)
	}
	if err := cmd.Start(); err != nil {
		return 0, false, "", fmt.Errorf("start agent %s: %w", args[0], err)
	}
	x.mu.Lock()
	x.proc, x.killed = cmd.Process, false
	x.mu.Unlock()
	stop := context.AfterFunc(ctx, func() { _ = cmd.Process.Signal(syscall.SIGKILL) })
	defer stop()
	sc := bufio.NewScanner(out)
	sc.Buffer(make([]byte, 0, 64<<10), 64<<20)
	for sc.Scan() {
		var ev struct {
			Type   event.Type `json:"type"`
			RunID  string     `json:"run_id"`
			CallID string     `json:"call_id"`
		}
		if json.Unmarshal(sc.Bytes(), &ev) != nil {
			continue
		}
		if x.runID == "" && ev.RunID != "" {
			x.runID = ev.RunID
		}
		switch ev.Type {
		case event.ToolCall:
			x.pending = ev.CallID
		case event.Approval, event.ToolResult:
			if ev.CallID == x.pending {
				x.pending = ""
			}
		}
		x.onEvent(ev.Type)
	}
	_, _ = io.Copy(io.Discard, out)
	werr := cmd.Wait()
	x.mu.Lock()
	killed, x.proc = x.killed, nil
	x.mu.Unlock()
	if x.runID == "" {
		x.runID = runIDFrom(errb.String())
	}
	var ee *exec.ExitError
	switch {
	case werr == nil:
	case errors.As(werr, &ee):
		code = ee.ExitCode()
	default:
		return 0, false, errb.String(), fmt.Errorf("agent %s: %w", args[0], werr)
	}
	if killed && x.runID == "" {
		return code, false, errb.String(), errors.New("the fault killed the agent before it printed its run id")
	}
	return code, killed, errb.String(), nil
}

// armed is the next fault not fired yet (nil: none).
func (x *taskRun) armed() *faultState {
	for i := range x.faults {
		if !x.faults[i].fired {
			return &x.faults[i]
		}
	}
	return nil
}

// onEvent counts an event of the stream and fires an event fault.
func (x *taskRun) onEvent(t event.Type) {
	x.mu.Lock()
	defer x.mu.Unlock()
	f := x.armedLocked()
	if f == nil || f.At != string(t) {
		return
	}
	f.seen++
	if f.seen == f.N {
		x.killLocked(f)
	}
}

// onTurn fires a stream fault as the stalled turn goes out (child: the
// match of the child script that plays it, "" for the run's own turns).
func (x *taskRun) onTurn(child string, turn int) {
	x.mu.Lock()
	defer x.mu.Unlock()
	f := x.armedLocked()
	if f != nil && f.At == AtStream && child == f.Child && turn == f.stalledTurn {
		x.killLocked(f)
	}
}

func (x *taskRun) armedLocked() *faultState { return x.armed() }

// killLocked SIGKILLs the agent process alone (not its process group).
func (x *taskRun) killLocked(f *faultState) {
	if x.proc == nil {
		return
	}
	if err := x.proc.Signal(syscall.SIGKILL); err == nil {
		f.fired, x.killed = true, true
	}
}

// agent runs a one-shot agent command and returns its stdout.
func (x *taskRun) agent(ctx context.Context, args ...string) ([]byte, error) {
	cmd := exec.CommandContext(ctx, x.r.opt.Bin, args...)
	cmd.Env, cmd.Dir = x.env, x.ws
	var errb bytes.Buffer
	cmd.Stderr = &limitedWriter{w: &errb, n: 1 << 20}
	out, err := cmd.Output()
	if err != nil {
		return out, fmt.Errorf("agent %s: %w: %s", strings.Join(args, " "), err, lastLine(errb.String()))
	}
	return out, nil
}

// checkpointOf finds the checkpoint taken before or after call.
func (x *taskRun) checkpointOf(ctx context.Context, call string, kind event.CheckpointKind) (string, error) {
	out, err := x.agent(ctx, "checkpoints", x.runID, "--json")
	if err != nil {
		return "", err
	}
	var cps []struct {
		ID     string               `json:"checkpoint_id"`
		CallID string               `json:"call_id"`
		Kind   event.CheckpointKind `json:"kind"`
	}
	if err := json.Unmarshal(out, &cps); err != nil {
		return "", fmt.Errorf("agent checkpoints --json: %w", err)
	}
	for _, c := range cps {
		if c.CallID == call && c.Kind == kind {
			return c.ID, nil
		}
	}
	return "", fmt.Errorf("the run has no checkpoint %s %s (agent checkpoints lists %d)", kind, call, len(cps))
}

// rollback rolls the workspace back to id and returns the checkpoint of the
// state before (which undoes it).
func (x *taskRun) rollback(ctx context.Context, id string, conversation bool) (string, error) {
	args := []string{"rollback", id}
	if conversation {
		args = append(args, "--conversation")
	}
	out, err := x.agent(ctx, args...)
	if err != nil {
		return "", err
	}
	before := strings.TrimSpace(string(out))
	if before == "" {
		return "", errors.New("agent rollback printed no checkpoint id")
	}
	return before, nil
}

// runIDFrom reads "run: ID" from the first stderr line.
func runIDFrom(stderr string) string {
	first, _, _ := strings.Cut(stderr, "\n")
	id, _ := strings.CutPrefix(first, "run: ")
	return strings.TrimSpace(id)
}

func lastLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.LastIndexByte(s, '\n'); i >= 0 {
		s = s[i+1:]
	}
	return oneLine(s, 300)
}

// oneLine shortens s to one line of at most n runes.
func oneLine(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}

// limitedWriter keeps the first n bytes written to it.
type limitedWriter struct {
	w io.Writer
	n int
}

func (l *limitedWriter) Write(b []byte) (int, error) {
	if l.n > 0 {
		k := min(len(b), l.n)
		_, _ = l.w.Write(b[:k])
		l.n -= k
	}
	return len(b), nil
}
