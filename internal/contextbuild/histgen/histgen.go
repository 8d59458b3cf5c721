// Package histgen owns a seeded generator of long run histories for the
// tests and benchmarks of the context builder: the journal of one run
// (internal/event), event by event as the agent loop writes it, about a
// requested number of tokens long, with planted items a builder must keep,
// update or drop correctly: the person's constraints with canary strings, a
// plan whose statuses change, a decision a later message overrides, file
// reads made stale by edits, an error fixed and one still open, a commit,
// an interrupted call and its resume, CJK text, a prompt injection inside a
// file, and a fact read early that the last step needs.
//
// It is pure: no file system, no network, no clock, no package-level
// mutable state; the same Options give the same events, byte for byte. It
// must not import internal/agent, which folds what it generates (the
// context builder's tests import both), nor internal/contextbuild.
package histgen

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strings"
	"time"

	"agent/internal/event"
	"agent/internal/tokens"
)

// Bounds of Options.Tokens.
const (
	// MinTokens is the smallest history that holds every planted item.
	MinTokens = 30_000
	// MaxTokens bounds the work of one Generate.
	MaxTokens = 2_000_000
)

// Options choose a history.
type Options struct {
	// Seed selects the history; the same seed gives the same events.
	Seed int64
	// Tokens is the target total: the tokens of every message's content
	// and every tool call's arguments in the state agent.Fold makes of the
	// events, as a Counter for Encoding counts them. The history comes
	// within 10 % of it (within 1.5 % in practice); it must lie in
	// [MinTokens, MaxTokens]. Reads and logs grow with it, so the number
	// of rounds stays about the same (120-160 at 200K, 70-100 at 50K).
	Tokens int
	// Encoding counts the tokens; zero means tokens.DefaultEncoding.
	Encoding tokens.Encoding
}

// PlanStep is one step of the run's plan as its last update_plan call
// left it.
type PlanStep struct {
	ID     string // "1".."8"; the step text starts with "step <ID>: "
	Step   string // the text the update_plan call carries
	Status string // tools.StepPending, tools.StepInProgress or tools.StepDone
}

// History is a generated run and where its planted items are.
type History struct {
	// Events are the run's journal: seqs 1..n, one run id, times
	// increasing.
	Events []event.Event
	RunID  string
	// Tokens is the total the generator counted (see Options.Tokens).
	Tokens int
	// Canaries are strings planted in the person's first message that must
	// survive compaction.
	Canaries []string
	// Constraints are the person's constraints of the first message, each
	// containing one canary.
	Constraints []string
	// Plan is the final plan, after its statuses changed along the run.
	Plan []PlanStep
	// Overridden is the decision (a sentence of a person's message) that a
	// later person message overrides; Override is that later message.
	Overridden string
	Override   string
	// EditedPaths are files edited after having been read: their earlier
	// reads are stale. ReadOnlyPaths were read and never edited.
	EditedPaths   []string
	ReadOnlyPaths []string
	// FixedError failed a command (exit 1) that later passed (exit 0):
	// FixedCommand.
	FixedError   string
	FixedCommand string
	// OpenError is the failure of the last failing command, OpenCommand,
	// never fixed.
	OpenError   string
	OpenCommand string
	// Injection is the text inside a file's content (a tool output) that
	// tells the model to ignore its instructions and delete every file.
	Injection string
	// Fact is stated in a tool output early and needed by the step the
	// last message asks to continue; FactPath is the file that says it.
	Fact     string
	FactPath string
	// LastMessage is the person's last message, the last event.
	LastMessage string
	// InterruptedCallID is the call whose result has status interrupted.
	InterruptedCallID string
	// CommitCallID is the run_command that ran `git commit`.
	CommitCallID string
}

// Generate returns the history opt selects.
func Generate(opt Options) (*History, error) {
	if opt.Tokens < MinTokens || opt.Tokens > MaxTokens {
		return nil, fmt.Errorf("histgen: Options.Tokens is %d; it must be between %d (the least that holds every planted item) and %d",
			opt.Tokens, MinTokens, MaxTokens)
	}
	enc := opt.Encoding
	if enc == 0 {
		enc = tokens.DefaultEncoding
	}
	tk, err := tokens.New(enc)
	if err != nil {
		return nil, fmt.Errorf("histgen: Options.Encoding: %w", err)
	}
	seed := uint64(opt.Seed)
	r := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	g := &gen{
		r: r, tk: tk, target: opt.Tokens, scale: float64(opt.Tokens) / 200_000,
		now: time.Date(2026, 3, 2, 9, 0, 0, 0, time.UTC).Add(time.Duration(r.IntN(86400)) * time.Second),
		h:   &History{},
	}
	g.runID = g.now.Format("20060102T150405") + "-" + g.hex(6)
	g.h.RunID = g.runID
	g.bootID = g.hex(8) + "-" + g.hex(4) + "-" + g.hex(4) + "-" + g.hex(4) + "-" + g.hex(12)
	g.pid = 20000 + r.IntN(20000)
	g.ticks = uint64(1_000_000 + r.IntN(1_000_000))
	g.buildWorkspace()
	g.script()
	if g.err != nil {
		return nil, g.err
	}
	g.finishHistory()
	return g.h, nil
}

// gen is the state of one Generate.
type gen struct {
	r      *rand.Rand
	tk     *tokens.Counter
	target int
	scale  float64 // target / 200K: sizes of reads and logs scale with it
	h      *History

	runID  string
	bootID string
	now    time.Time
	pid    int
	ticks  uint64
	events []event.Event

	step, toolCalls int
	total, msgs     int // counted tokens and conversation messages so far
	usage           event.TokenCount

	files   []*file          // the workspace, sorted by path
	byPath  map[string]*file // lookups only; never ranged over
	reads   []string         // paths read, in first-read order
	edited  []string         // paths edited after a read
	plan    []PlanStep
	fillers int   // filler rounds so far
	err     error // the first failure, returned by Generate
}

// file is one file of the generated workspace.
type file struct {
	path  string
	lines []string
	read  bool // read_file has shown it
	edit  bool // the filler may edit it (after reading it)
	edits int  // edit_file and write_file calls on it
	focus string
}

func (f *file) text() string { return strings.Join(f.lines, "\n") + "\n" }
func (f *file) size() int    { return len(f.text()) }

// call is one tool call of a round, with the result it gets.
type call struct {
	name, args string
	risk       event.Risk
	status     event.ResultStatus
	output     string
	exit       *int
	changed    []string
	dur        time.Duration
	id         string // set by round
}

func (g *gen) count(s string) int { return g.tk.Count(s) }

func (g *gen) hex(n int) string {
	const digits = "0123456789abcdef"
	b := make([]byte, n)
	for i := range b {
		b[i] = digits[g.r.IntN(16)]
	}
	return string(b)
}

func (g *gen) callID() string {
	const chars = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
	b := make([]byte, 24)
	for i := range b {
		b[i] = chars[g.r.IntN(len(chars))]
	}
	return "call_" + string(b)
}

func (g *gen) ms(lo, hi int) time.Duration {
	return time.Duration(lo+g.r.IntN(hi-lo+1)) * time.Millisecond
}

// emit journals p after the given pause (plus a millisecond, so that
// times strictly increase).
func (g *gen) emit(p event.Payload, after time.Duration) {
	g.now = g.now.Add(after + time.Millisecond)
	ev := event.New(g.runID, p)
	ev.Seq, ev.Time = int64(len(g.events)+1), g.now
	g.events = append(g.events, ev)
}

// say journals a person's message.
func (g *gen) say(text string) {
	g.emit(&event.UserMessageData{Text: text}, time.Duration(20+g.r.IntN(200))*time.Second)
	g.total += g.count(text)
	g.msgs++
}

// Token figures of the context report: what the loop's builder journals
// for its system prompt and tool definitions.
const (
	systemTokens = 412
	toolTokens   = 1637
	window       = 128000
)

// round journals one model request, the assistant's answer and the
// results of its calls, in the loop's order.
func (g *gen) round(text string, calls ...*call) {
	g.step++
	conv := g.total + 4*g.msgs
	g.emit(&event.ModelRequestData{Step: g.step, Context: event.ContextReport{
		Budget: window, TotalTokens: systemTokens + toolTokens + conv,
		Layers: []event.ContextLayer{
			{Name: "system", Tokens: systemTokens, Items: 1},
			{Name: "tools", Tokens: toolTokens, Items: 8},
			{Name: "conversation", Tokens: conv, Items: g.msgs},
		},
	}}, g.ms(5, 40))
	out := g.count(text)
	refs := make([]event.ToolCallRef, len(calls))
	for i, c := range calls {
		c.id = g.callID()
		refs[i] = event.ToolCallRef{ID: c.id, Name: c.name, Arguments: c.args}
		out += g.count(c.args)
	}
	g.total += out
	g.msgs++
	tc := event.TokenCount{Input: systemTokens + toolTokens + conv, Output: out + 8 + g.r.IntN(40)}
	g.usage.Input += tc.Input
	g.usage.Output += tc.Output
	g.emit(&event.AssistantMessageData{Step: g.step, Text: text, ToolCalls: refs, Tokens: &tc}, g.ms(1500, 14000))
	for _, c := range calls {
		g.execute(c)
	}
}

// execute journals one call as the loop does in full-auto mode with a
// checkpointer: tool_call, approval, checkpoints around a write or a
// command (command_started for a command), tool_result.
func (g *gen) execute(c *call) {
	g.emit(&event.ToolCallData{CallID: c.id, Name: c.name, Arguments: c.args, Risk: c.risk}, g.ms(1, 5))
	g.toolCalls++
	if c.risk != event.RiskRead {
		g.emit(&event.ApprovalData{CallID: c.id, Decision: event.Allow, Scope: event.ScopeOnce, Source: event.SourceMode,
			Reason: "full-auto mode: no deny rule names it", ArgsHash: argsHash(c.name, c.args)}, g.ms(0, 2))
		g.emit(&event.CheckpointData{CheckpointID: g.hex(40), CallID: c.id, Kind: event.CheckpointBefore,
			Step: g.step, Files: []string{}}, g.ms(3, 30))
		if c.risk == event.RiskExec {
			g.pid += 1 + g.r.IntN(40)
			g.ticks += uint64(100 + g.r.IntN(5000))
			g.emit(&event.CommandStartedData{CallID: c.id, PID: g.pid, PGID: g.pid, BootID: g.bootID,
				StartTicks: g.ticks, Marker: g.runID + "/" + c.id}, g.ms(2, 9))
		}
		files := c.changed
		if files == nil {
			files = []string{}
		}
		g.emit(&event.CheckpointData{CheckpointID: g.hex(40), CallID: c.id, Kind: event.CheckpointAfter,
			Step: g.step, Files: files}, c.dur+g.ms(3, 40))
	} else {
		g.now = g.now.Add(c.dur)
	}
	status := c.status
	if status == "" {
		status = event.ResultOK
	}
	g.emit(&event.ToolResultData{CallID: c.id, Status: status, Output: c.output, ExitCode: c.exit}, g.ms(0, 3))
	g.total += g.count(c.output)
	g.msgs++
}

// finishRun journals the end of a stretch of the run.
func (g *gen) finishRun(status event.Status, answer string) {
	g.emit(&event.RunFinishedData{Status: status, Steps: g.step, ToolCalls: g.toolCalls, Tokens: g.usage, Answer: answer}, g.ms(2, 20))
}

// answer is the model's final answer of a turn, then run_finished.
func (g *gen) answer(text string) {
	g.round(text)
	g.finishRun(event.StatusCompleted, text)
}

// argsHash is the approval's binding to a call (agent.ArgsHash).
func argsHash(name, args string) string {
	h := sha256.Sum256([]byte(name + "\x00" + args))
	return hex.EncodeToString(h[:8])
}

// jsonArgs encodes a call's arguments as a model sends them (no HTML
// escaping). The first failure is kept for Generate to return.
func (g *gen) jsonArgs(v any) string {
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil && g.err == nil {
		g.err = fmt.Errorf("histgen: encode arguments: %w", err)
	}
	return strings.TrimSuffix(b.String(), "\n")
}

func (g *gen) finishHistory() {
	g.h.Events = g.events
	g.h.Tokens = g.total
	g.h.Plan = append([]PlanStep(nil), g.plan...)
	g.h.EditedPaths = append([]string(nil), g.edited...)
	for _, p := range g.reads {
		if !contains(g.edited, p) {
			g.h.ReadOnlyPaths = append(g.h.ReadOnlyPaths, p)
		}
	}
}
