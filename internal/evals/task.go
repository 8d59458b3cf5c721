// Package evals owns the eval suite engine behind `agent eval`: it parses a
// task folder (task.toml, fixture/, turns.json) strictly, runs each task
// through the real agent binary against a local chat-completions server (or
// the configured model with Live), answers approvals from the task's
// decisions, applies faults, checks the expectations and trace assertions,
// and computes the metrics, the JSON and markdown reports and the chart
// against a baseline.
//
// It drives the agent only from outside, as a user's script would: the
// binary as a subprocess, its --json stream, `agent trace --json` and the
// shadow repository read-only. It must not import the loop
// (internal/agent), the TUI or the context builder, and it writes nothing
// outside the temporary directories it makes, except the report a caller
// asks for.
package evals

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/BurntSushi/toml"

	"agent/internal/event"
	"agent/internal/policy"
	"agent/internal/replay"
)

// Defaults of task.toml.
const (
	DefaultMaxSteps = 30
	DefaultTimeout  = 120 * time.Second
	DefaultMode     = "full-auto"
)

// Task is one parsed, validated task folder.
type Task struct {
	Name        string // path relative to the suite root, with slashes: "edit/fix-greeting"
	Category    string // the first element of Name when it has several ("edit"), else ""
	Dir         string // the task folder
	Prompt      string
	Description string
	MaxSteps    int
	Timeout     time.Duration
	Policy      Policy
	Config      Config
	Server      Server
	Faults      []Fault
	Actions     []Action
	Expect      Expect
	// Script is turns.json, parsed (nil when the folder has none: a task
	// only a live run can play).
	Script *replay.Script
}

// Policy is the [policy] table.
type Policy struct {
	Mode      string
	Allow     []string
	Deny      []string
	Decisions []Decision
}

// Decision is what a person decides when the run pauses for approval.
type Decision struct {
	Call     string
	Decision event.Decision
	Note     string
	Scope    event.Scope
}

// Config is the [config] table, written to the task's user config file.
type Config struct {
	Window int // [context] window; 0: not set
	// MaxParallel is [subagents] max_parallel; 0: not set.
	MaxParallel int
}

// Quirk is a dialect of the local model server.
type Quirk string

const (
	QuirkFinishStop Quirk = "finish-stop" // finish_reason "stop" on turns with tool calls
	QuirkNoID       Quirk = "no-id"       // tool-call chunks without ids
	QuirkNoIndex    Quirk = "no-index"    // tool-call chunks without indexes
	QuirkOneChunk   Quirk = "one-chunk"   // text and each tool call in one chunk
	QuirkArgsObject Quirk = "args-object" // arguments as a JSON value, whole
)

var quirks = []Quirk{QuirkFinishStop, QuirkNoID, QuirkNoIndex, QuirkOneChunk, QuirkArgsObject}

// Server is the [server] table.
type Server struct {
	Quirks []Quirk
}

// FaultKind is what a fault does.
type FaultKind string

// FaultSIGKILL kills the agent process alone, then resumes the run headless.
const FaultSIGKILL FaultKind = "sigkill"

// AtStream is the fault point "while the server streams a turn".
const AtStream = "stream"

// Fault is one [[faults]] entry.
type Fault struct {
	Kind FaultKind
	At   string // an event type of the --json stream, or AtStream
	N    int    // the Nth event of that type (from 1)
	Turn int    // with AtStream: the turn (from 1) during which to kill
	// Child, with AtStream, is the match of a child script (turns.json
	// "children"): Turn then counts that subagent's turns.
	Child string
}

// ActionKind is something a person does after the run.
type ActionKind string

const (
	ActionRollback ActionKind = "rollback" // agent rollback CHECKPOINT
	ActionUndo     ActionKind = "undo"     // roll back the last rollback
	ActionMessage  ActionKind = "message"  // agent resume RUN --message TEXT
)

// Action is one [[actions]] entry, done in order after the run has ended.
type Action struct {
	Kind         ActionKind
	Call         string               // rollback: the call whose checkpoint to restore
	Checkpoint   event.CheckpointKind // rollback: before (default) or after the call
	Conversation bool                 // rollback: --conversation
	Text         string               // message
}

// Expect is the [expect] table.
type Expect struct {
	Status event.Status
	Class  event.Class
	Check  string
	Files  []FileExpect
	Trace  []Assertion
}

// FileExpect is one expected file; exactly one of Contains, Exact, Absent.
type FileExpect struct {
	Path     string
	Contains *string
	Exact    *string
	Absent   bool
}

// AssertKind names a trace assertion.
type AssertKind string

const (
	AssertDeniedNeverRan     AssertKind = "denied_call_never_ran"
	AssertStoppedAfterDenial AssertKind = "stopped_after_denial"
	AssertRanAtMostOnce      AssertKind = "command_ran_at_most_once"
	AssertRollbackRestored   AssertKind = "rollback_restored"
	AssertNoSecret           AssertKind = "no_secret_in_requests"
	AssertCompacted          AssertKind = "compacted"
	AssertMaxIdenticalErrors AssertKind = "max_identical_errors"
	AssertCites              AssertKind = "cites"
	AssertSubagentsCompleted AssertKind = "subagents_completed"
	AssertSubagentsParallel  AssertKind = "subagents_parallel"
)

// assertParams lists, per assertion, the parameters it takes (all required).
var assertParams = map[AssertKind][]string{
	AssertDeniedNeverRan:     {"call"},
	AssertStoppedAfterDenial: nil,
	AssertRanAtMostOnce:      {"call"},
	AssertRollbackRestored:   nil,
	AssertNoSecret:           {"secrets"},
	AssertCompacted:          nil,
	AssertMaxIdenticalErrors: {"n"},
	AssertCites:              {"paths"},
	AssertSubagentsCompleted: {"n"},
	AssertSubagentsParallel:  {"n"},
}

// Assertion is one entry of expect.trace.
type Assertion struct {
	Assert  AssertKind
	Call    string
	Secrets []string
	N       int
	Paths   []string
}

// TaskError is a bad task folder: the file and what to fix. The CLI exits 2.
type TaskError struct {
	File string
	Msg  string
	Err  error
}

func (e *TaskError) Error() string { return e.File + ": " + e.Msg }
func (e *TaskError) Unwrap() error { return e.Err }

// The raw shape of task.toml; pointers tell "absent" from zero.
type rawTask struct {
	Prompt      string      `toml:"prompt"`
	Description string      `toml:"description"`
	MaxSteps    *int        `toml:"max_steps"`
	Timeout     *string     `toml:"timeout"`
	Policy      rawPolicy   `toml:"policy"`
	Config      rawConfig   `toml:"config"`
	Server      rawServer   `toml:"server"`
	Faults      []rawFault  `toml:"faults"`
	Actions     []rawAction `toml:"actions"`
	Expect      rawExpect   `toml:"expect"`
}

type rawPolicy struct {
	Mode      string        `toml:"mode"`
	Allow     []string      `toml:"allow"`
	Deny      []string      `toml:"deny"`
	Decisions []rawDecision `toml:"decisions"`
}

type rawDecision struct {
	Call     string  `toml:"call"`
	Decision string  `toml:"decision"`
	Note     *string `toml:"note"`
	Scope    *string `toml:"scope"`
}

type rawConfig struct {
	Window      *int `toml:"window"`
	MaxParallel *int `toml:"max_parallel"`
}

type rawServer struct {
	Quirks []string `toml:"quirks"`
}

type rawFault struct {
	Kind  string `toml:"kind"`
	At    string `toml:"at"`
	N     *int   `toml:"n"`
	Turn  *int   `toml:"turn"`
	Child string `toml:"child"`
}

type rawAction struct {
	Kind         string  `toml:"kind"`
	Call         string  `toml:"call"`
	Checkpoint   string  `toml:"checkpoint"`
	Conversation bool    `toml:"conversation"`
	Text         *string `toml:"text"`
}

type rawExpect struct {
	Status string         `toml:"status"`
	Class  string         `toml:"class"`
	Check  string         `toml:"check"`
	Files  []rawFile      `toml:"files"`
	Trace  []rawAssertion `toml:"trace"`
}

type rawFile struct {
	Path     string  `toml:"path"`
	Contains *string `toml:"contains"`
	Exact    *string `toml:"exact"`
	Absent   *bool   `toml:"absent"`
}

type rawAssertion struct {
	Assert  string   `toml:"assert"`
	Call    *string  `toml:"call"`
	Secrets []string `toml:"secrets"`
	N       *int     `toml:"n"`
	Paths   []string `toml:"paths"`
}

// knownKeys are the keys of each table of task.toml.
var knownKeys = map[string]string{
	"":                 "prompt, description, max_steps, timeout, [policy], [config], [server], [[faults]], [[actions]], [expect]",
	"policy":           "mode, allow, deny, [[policy.decisions]]",
	"policy.decisions": "call, decision, note, scope",
	"config":           "window, max_parallel",
	"server":           "quirks",
	"faults":           "kind, at, n, turn, child",
	"actions":          "kind, call, checkpoint, conversation, text",
	"expect":           "status, class, check, files, trace",
	"expect.files":     "path, contains, exact, absent",
	"expect.trace":     "assert, call, secrets, n, paths",
}

// unknownKey says which key is unknown and which keys its table knows.
func unknownKey(k toml.Key) string {
	parent := strings.Join(k[:len(k)-1], ".")
	if known, ok := knownKeys[parent]; ok {
		where := "at the top level"
		if parent != "" {
			where = "of [" + parent + "]"
		}
		return fmt.Sprintf("unknown key %q (the keys %s are: %s; see evals/README.md)", k.String(), where, known)
	}
	return fmt.Sprintf("unknown key %q (see evals/README.md for the task format)", k.String())
}

// LoadTask reads and validates the task folder dir, named name in its suite.
// Every problem is a *TaskError naming the file and the fix.
func LoadTask(dir, name string) (*Task, error) {
	file := filepath.Join(dir, "task.toml")
	bad := func(format string, a ...any) error { return &TaskError{File: file, Msg: fmt.Sprintf(format, a...)} }
	if err := checkLayout(dir); err != nil {
		return nil, err
	}
	b, err := os.ReadFile(file)
	if err != nil {
		return nil, &TaskError{File: file, Msg: "cannot read it", Err: err}
	}
	var raw rawTask
	md, err := toml.Decode(string(b), &raw)
	if err != nil {
		return nil, &TaskError{File: file, Msg: "not valid TOML: " + err.Error() + " (fix the syntax)", Err: err}
	}
	if und := md.Undecoded(); len(und) > 0 {
		return nil, bad("%s", unknownKey(und[0]))
	}
	t := &Task{Name: name, Dir: dir, Prompt: strings.TrimSpace(raw.Prompt), Description: raw.Description,
		MaxSteps: DefaultMaxSteps, Timeout: DefaultTimeout}
	if first, _, ok := strings.Cut(name, "/"); ok {
		t.Category = first
	}
	if t.Prompt == "" {
		return nil, bad(`prompt is required, e.g. prompt = "make the greeting test pass"`)
	}
	if raw.MaxSteps != nil {
		if *raw.MaxSteps < 1 {
			return nil, bad("max_steps = %d: want a whole number >= 1", *raw.MaxSteps)
		}
		t.MaxSteps = *raw.MaxSteps
	}
	if raw.Timeout != nil {
		d, err := time.ParseDuration(*raw.Timeout)
		if err != nil || d <= 0 {
			return nil, bad("timeout = %q: want a positive Go duration, e.g. \"90s\"", *raw.Timeout)
		}
		t.Timeout = d
	}
	steps := []func(*Task, *rawTask) error{parsePolicy, parseConfig, parseServer, parseActions, parseExpect}
	for _, step := range steps {
		if err := step(t, &raw); err != nil {
			return nil, &TaskError{File: file, Msg: err.Error(), Err: err}
		}
	}
	if err := loadFolder(t); err != nil {
		return nil, err
	}
	if err := parseFaults(t, &raw); err != nil {
		return nil, &TaskError{File: file, Msg: err.Error(), Err: err}
	}
	if err := checkChildren(t); err != nil {
		return nil, &TaskError{File: file, Msg: err.Error(), Err: err}
	}
	return t, nil
}

func parsePolicy(t *Task, raw *rawTask) error {
	p := raw.Policy
	t.Policy = Policy{Mode: DefaultMode, Allow: p.Allow, Deny: p.Deny}
	if p.Mode != "" {
		m, err := policy.ParseMode(p.Mode)
		if err != nil {
			return fmt.Errorf("policy.mode: %w", err)
		}
		t.Policy.Mode = m.String()
	}
	for key, rules := range map[string][]string{"allow": p.Allow, "deny": p.Deny} {
		if _, err := policy.ParseRules(rules); err != nil {
			return fmt.Errorf("policy.%s: %w", key, err)
		}
	}
	for i, d := range p.Decisions {
		at := fmt.Sprintf("policy.decisions[%d]", i+1)
		dec := Decision{Call: d.Call, Decision: event.Decision(d.Decision), Scope: event.ScopeOnce}
		if dec.Call == "" {
			return fmt.Errorf(`%s: call is required (the tool-call id the decision answers, e.g. call = "call_2")`, at)
		}
		switch dec.Decision {
		case event.Allow, event.Deny:
		default:
			return fmt.Errorf(`%s: decision = %q: want "allow" or "deny"`, at, d.Decision)
		}
		if d.Note != nil {
			if dec.Decision != event.Deny {
				return fmt.Errorf("%s: note goes with decision = \"deny\" only", at)
			}
			dec.Note = *d.Note
		}
		if d.Scope != nil {
			if dec.Decision != event.Allow {
				return fmt.Errorf("%s: scope goes with decision = \"allow\" only", at)
			}
			switch s := event.Scope(*d.Scope); s {
			case event.ScopeOnce, event.ScopeRun:
				dec.Scope = s
			default:
				return fmt.Errorf(`%s: scope = %q: want "once" or "run"`, at, *d.Scope)
			}
		}
		t.Policy.Decisions = append(t.Policy.Decisions, dec)
	}
	return nil
}

func parseConfig(t *Task, raw *rawTask) error {
	if w := raw.Config.Window; w != nil {
		if *w < 1 {
			return fmt.Errorf("config.window = %d: want a token count >= 1", *w)
		}
		t.Config.Window = *w
	}
	if n := raw.Config.MaxParallel; n != nil {
		if *n < 1 || *n > 32 {
			return fmt.Errorf("config.max_parallel = %d: want 1-32 (subagents at once)", *n)
		}
		t.Config.MaxParallel = *n
	}
	return nil
}

func parseServer(t *Task, raw *rawTask) error {
	for _, q := range raw.Server.Quirks {
		if !slices.Contains(quirks, Quirk(q)) {
			return fmt.Errorf("server.quirks: unknown quirk %q (known: %s)", q, joinQuirks())
		}
		if !slices.Contains(t.Server.Quirks, Quirk(q)) {
			t.Server.Quirks = append(t.Server.Quirks, Quirk(q))
		}
	}
	return nil
}

func joinQuirks() string {
	s := make([]string, len(quirks))
	for i, q := range quirks {
		s[i] = string(q)
	}
	return strings.Join(s, ", ")
}
