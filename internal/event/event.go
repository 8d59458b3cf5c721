// Package event owns the one event type that is the spine of the agent: the loop
// emits events, the store appends them, the renderers (--json, trace, export, TUI)
// print them, and resume folds them back into state.
//
// It must not depend on any other package of the agent: everything depends on it.
package event

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"time"
)

// Type names an event kind. The values are the contract's.
type Type string

const (
	RunStarted       Type = "run_started"
	UserMessage      Type = "user_message" // extension: the user's prompt or a later --message
	ModelRequest     Type = "model_request"
	AssistantMessage Type = "assistant_message"
	ToolCall         Type = "tool_call"
	Approval         Type = "approval"
	Checkpoint       Type = "checkpoint"
	ToolResult       Type = "tool_result"
	Rollback         Type = "rollback"
	Resume           Type = "resume"
	Error            Type = "error"
	RunFinished      Type = "run_finished"
	// CommandStarted is an extension: the process group of a run_command,
	// journaled (and fsynced) after the process exists and before it may do
	// anything, so that resume can end what a crash left running.
	CommandStarted Type = "command_started"
	// GrantRevoked is an extension: a person withdrew an "allow for this
	// run" grant before it expired; from then on the calls it covered ask
	// again.
	GrantRevoked Type = "grant_revoked"
	// Compaction is an extension: the context builder folded, masked or cut
	// older parts of the conversation to fit the budget; journaled before
	// the model_request it leads to, so a resumed run never redoes it.
	Compaction Type = "compaction"
	// ContextRefresh is an extension: the slow-changing layers of the
	// request (the instruction files read into L1, the repo map of L5a)
	// were read afresh; journaled so a resumed run sends the same bytes.
	ContextRefresh Type = "context_refresh"
	// ModeChanged and ModelChanged record a switch of the approval mode or
	// the model within a run (a person's shift+tab, /mode, /model, or the
	// approval of a plan); the next step obeys the new value.
	ModeChanged  Type = "mode_changed"
	ModelChanged Type = "model_changed"
	// BudgetChanged records a new budget of a run (resume --budget-*, or a
	// person raising it in the TUI); requests after it are held to it.
	BudgetChanged Type = "budget_changed"
)

// Event is one journaled fact about a run. Data holds the type's payload (one of
// the *Payload structs below); on the wire its fields sit beside the header.
type Event struct {
	Type  Type      `json:"type"`
	RunID string    `json:"run_id"`
	Seq   int64     `json:"seq"`
	Time  time.Time `json:"time"`
	Data  Payload   `json:"-"`
}

// Payload is the data of one event type; it knows its type, so an event can
// never carry the payload of another.
type Payload interface {
	EventType() Type
}

// Risk classifies what a tool call can do.
type Risk string

const (
	RiskRead  Risk = "read"
	RiskWrite Risk = "write"
	RiskExec  Risk = "exec"
)

// Status is a run's status (run_finished.status and the runs table).
type Status string

const (
	StatusRunning          Status = "running"
	StatusCompleted        Status = "completed"
	StatusStopped          Status = "stopped"
	StatusFailed           Status = "failed"
	StatusAwaitingApproval Status = "awaiting_approval"
	StatusInterrupted      Status = "interrupted"
	// StatusBudgetExhausted: the run paused before a model request that
	// would cross its budget; resume with a raised budget continues it.
	StatusBudgetExhausted Status = "budget_exhausted"
)

// ResultStatus is how a tool call ended (tool_result.status).
type ResultStatus string

const (
	ResultOK          ResultStatus = "ok"
	ResultError       ResultStatus = "error"
	ResultDenied      ResultStatus = "denied"
	ResultInterrupted ResultStatus = "interrupted"
)

// Decision is an approval's verdict.
type Decision string

const (
	Allow Decision = "allow"
	Deny  Decision = "deny"
)

// Scope is what an approval covers: this call, or calls like it for the run.
type Scope string

const (
	ScopeOnce Scope = "once"
	ScopeRun  Scope = "run"
)

// Source is who decided an approval.
type Source string

const (
	SourceUser Source = "user"
	SourceRule Source = "rule"
	SourceMode Source = "mode"
	SourceHook Source = "hook"
)

// CheckpointKind says why a checkpoint was taken.
type CheckpointKind string

const (
	CheckpointBefore   CheckpointKind = "before"
	CheckpointAfter    CheckpointKind = "after"
	CheckpointRollback CheckpointKind = "rollback"
)

// ResumeAction is what a resume does with a call that was interrupted.
type ResumeAction string

const (
	ActionRerun            ResumeAction = "rerun"
	ActionNotRerun         ResumeAction = "not_rerun"
	ActionAwaitingApproval ResumeAction = "awaiting_approval"
)

// Class is a failure class of the contract (error.class).
type Class string

const (
	ClassModel      Class = "model"
	ClassTool       Class = "tool"
	ClassPermission Class = "permission"
	ClassContext    Class = "context"
	ClassRuntime    Class = "runtime"
)

type RunStartedData struct {
	Workspace string       `json:"workspace"`
	Model     string       `json:"model"`
	Approval  ApprovalMode `json:"approval"`
	Provider  Provider     `json:"provider,omitempty"` // the model adapter (openai, anthropic), kept for resume
	BaseURL   string       `json:"base_url,omitempty"`
	MaxSteps  int          `json:"max_steps,omitempty"`
	Allow     []string     `json:"allow,omitempty"` // the run's allow rules, kept for resume
	Deny      []string     `json:"deny,omitempty"`  // the run's deny rules, kept for resume
	// Sandbox is the OS sandbox of the run's commands as it started.
	Sandbox *SandboxInfo `json:"sandbox,omitempty"`
	// Budget is the run's budget as it started (nil: none set).
	Budget *Budget `json:"budget,omitempty"`
	// ParentRun is the run this one was forked from (with ParentCheckpoint)
	// or is a child of (a task call of it: ParentCall).
	ParentRun        string `json:"parent_run,omitempty"`
	ParentCheckpoint string `json:"parent_checkpoint,omitempty"`
	ParentCall       string `json:"parent_call,omitempty"`
	// Worktree is the git worktree made for this run (a fork's): agent runs
	// rm removes it with the run unless it holds uncommitted changes.
	Worktree *WorktreeInfo `json:"worktree,omitempty"`
}

// WorktreeInfo is a linked git worktree a run was given: its directory, its
// branch and the commit it started from (the branch is deleted with the
// worktree only while it still names that commit).
type WorktreeInfo struct {
	Path   string `json:"path"`
	Branch string `json:"branch"`
	Commit string `json:"commit"`
	// Origin is the workspace whose repository the worktree belongs to.
	Origin string `json:"origin,omitempty"`
}

// Budget is what a run may spend; a zero field is no limit of that kind.
type Budget struct {
	Tokens int64   `json:"tokens,omitempty"`
	USD    float64 `json:"usd,omitempty"`
	// Time is a Go duration ("30m") of wall time.
	Time string `json:"time,omitempty"`
}

// Spent is what a run had spent before a model request: provider-reported
// input + output tokens and their cost (USD nil when the model has no price).
type Spent struct {
	Tokens int64    `json:"tokens"`
	USD    *float64 `json:"usd,omitempty"`
}

type UserMessageData struct {
	Text string `json:"text"`
}

type ModelRequestData struct {
	Step    int           `json:"step"`
	Context ContextReport `json:"context"`
	// Model is the model asked, when it differs from run_started's (after
	// a model_changed).
	Model string `json:"model,omitempty"`
	// Spent is what the run had spent before this request.
	Spent *Spent `json:"spent,omitempty"`
}

// ModeChangedData is a switch of the approval mode.
type ModeChangedData struct {
	From   ApprovalMode `json:"from"`
	To     ApprovalMode `json:"to"`
	Source Source       `json:"source"`
}

// ModelChangedData is a switch of the model.
type ModelChangedData struct {
	From   string `json:"from"`
	To     string `json:"to"`
	Source Source `json:"source"`
}

type ToolCallRef struct {
	ID        string `json:"id"`
	Name      string `json:"name"`
	Arguments string `json:"arguments"`
}

type AssistantMessageData struct {
	Step      int           `json:"step"`
	Text      string        `json:"text"`
	ToolCalls []ToolCallRef `json:"tool_calls"`
	// Tokens is the provider's usage; nil when it reported none or one
	// that cannot be true (UsageWarning says what it was).
	Tokens       *TokenCount `json:"tokens,omitempty"`
	UsageWarning string      `json:"usage_warning,omitempty"`
}

type ToolCallData struct {
	CallID    string `json:"call_id"`
	Name      string `json:"name"`
	Arguments string `json:"arguments"`
	Risk      Risk   `json:"risk"`
	// Sandbox is the OS sandbox a command runs under (run_command only).
	Sandbox *SandboxInfo `json:"sandbox,omitempty"`
}

// SandboxInfo records the OS sandbox of a command (tool_call, tool_result)
// or of a run's commands (run_started).
type SandboxInfo struct {
	// Mode is what is enforced: workspace-write, read-only or off.
	Mode SandboxMode `json:"mode"`
	// Requested is the mode asked for, when it differs from Mode (a kernel
	// without Landlock, or a call a person let run outside the sandbox).
	Requested SandboxMode `json:"requested,omitempty"`
	// Source is where the mode came from: flag, environment, user file,
	// project file, default, or escalation (a person's approval).
	Source string `json:"source,omitempty"`
	// Network: the command may reach the network.
	Network bool `json:"network"`
	// Enforced names the mechanisms in force (landlock-abi-N, netns,
	// landlock-tcp).
	Enforced []string `json:"enforced,omitempty"`
	// Note says what is not enforced here, or why the mode is off.
	Note string `json:"note,omitempty"`
	// Blocked lists what the sandbox stopped (tool_result only).
	Blocked []SandboxBlock `json:"blocked,omitempty"`
}

// SandboxBlock is one effect the sandbox stopped.
type SandboxBlock struct {
	// Kind is "write" (a path) or "network" (a connection).
	Kind   string `json:"kind"`
	Target string `json:"target"`
	// Allow says how to allow it.
	Allow string `json:"allow,omitempty"`
}

// ScopeEscalate is the scope of a person's approval to run one call outside
// the OS sandbox.
const ScopeEscalate Scope = "escalate"

type ApprovalData struct {
	CallID   string   `json:"call_id"`
	Decision Decision `json:"decision"`
	Scope    Scope    `json:"scope"`
	Source   Source   `json:"source"`
	Rule     string   `json:"rule,omitempty"`
	Note     string   `json:"note,omitempty"`
	Reason   string   `json:"reason,omitempty"`
	ArgsHash string   `json:"args_hash,omitempty"`
	// Grant is the rule an "allow for this run" decision grants (scope run),
	// valid until GrantExpires; the store records it with the event.
	Grant        string    `json:"grant,omitempty"`
	GrantExpires time.Time `json:"grant_expires,omitzero"`
	// Hook names the before_tool_call hooks that took part in the decision
	// (their commands): a resumed run does not ask them again.
	Hook string `json:"hook,omitempty"`
	// Pending is never journaled: State marks the call a paused run waits on.
	Pending bool `json:"-"`
}

type CheckpointData struct {
	CheckpointID string         `json:"checkpoint_id"`
	CallID       string         `json:"call_id"`
	Kind         CheckpointKind `json:"kind,omitempty"`
	Step         int            `json:"step"`
	Files        []string       `json:"files"`
}

type ToolResultData struct {
	CallID string       `json:"call_id"`
	Status ResultStatus `json:"status"`
	Output string       `json:"output"`
	// ExitCode is run_command's exit status (absent for other tools).
	ExitCode *int `json:"exit_code,omitempty"`
	// Background lists processes a command left running; they are ended
	// when the run ends or pauses.
	Background []ProcessInfo `json:"background,omitempty"`
	// Sandbox is what the command ran under and what it blocked.
	Sandbox *SandboxInfo `json:"sandbox,omitempty"`
	// ChildUsage is a task call's child's usage by model (its whole tree's),
	// counted in the parent's spend.
	ChildUsage map[string]TokenCount `json:"child_usage,omitempty"`
}

type RollbackData struct {
	CheckpointID string   `json:"checkpoint_id"`
	Files        []string `json:"files"`
	Conversation bool     `json:"conversation"`
	Before       string   `json:"before_checkpoint_id,omitempty"`
	// ToSeq is the journal position the checkpoint is bound to; with
	// Conversation the run's active conversation is rewound to it.
	ToSeq int64 `json:"to_seq,omitempty"`
}

type InterruptedCall struct {
	CallID string       `json:"call_id"`
	Name   string       `json:"name"`
	Action ResumeAction `json:"action"`
	// Processes is what resume found of the call's command still running,
	// and what it did about it, before it took the after-checkpoint.
	Processes *ProcessReport `json:"processes,omitempty"`
}

type ResumeData struct {
	FromSeq     int64             `json:"from_seq"`
	Interrupted []InterruptedCall `json:"interrupted"`
	// Leftovers are processes of earlier commands of the run (background
	// processes a crash left behind) that resume ended.
	Leftovers []ProcessReport `json:"leftovers,omitempty"`
}

// ProcessInfo is one process of a command, for people.
type ProcessInfo struct {
	PID     int    `json:"pid"`
	Command string `json:"command"` // its command line, shortened and redacted
}

// ProcessAction is what the agent did about a command's leftover processes.
type ProcessAction string

const (
	ProcessNoneLeft ProcessAction = "none_left" // nothing of the command was running
	ProcessKilled   ProcessAction = "killed"    // what was left was ended (SIGTERM, then SIGKILL)
)

// ProcessReport says what was left of one command's processes.
type ProcessReport struct {
	CallID    string        `json:"call_id"`
	PGID      int           `json:"pgid"`
	Action    ProcessAction `json:"action"`
	Processes []ProcessInfo `json:"processes,omitempty"`
}

// GrantRevokedData withdraws a run grant: Rule is the grant's rule text as
// the approval event recorded it.
type GrantRevokedData struct {
	Rule   string `json:"rule"`
	Source Source `json:"source"`
}

// CommandStartedData identifies a run_command's process group: enough for a
// later process to find what is left of it and to tell it from an unrelated
// group that reuses the id.
type CommandStartedData struct {
	CallID string `json:"call_id"`
	PID    int    `json:"pid"`
	PGID   int    `json:"pgid"`
	// BootID is the kernel's boot id: after a reboot nothing of it is left.
	BootID string `json:"boot_id,omitempty"`
	// StartTicks is the leader's start time in clock ticks since boot; a
	// process of the group started earlier belongs to another group.
	StartTicks uint64 `json:"start_ticks,omitempty"`
	// Marker is the value of AGENT_CALL in the command's environment, which
	// its descendants inherit even when they leave the process group.
	Marker string `json:"marker,omitempty"`
}

type ErrorData struct {
	Class   Class  `json:"class"`
	Message string `json:"message"`
}

type TokenCount struct {
	Input  int `json:"input"`
	Output int `json:"output"`
	// CacheRead and CacheWrite are the parts of Input the provider read from
	// and wrote to its prompt cache (omitted when it reported none).
	CacheRead  int `json:"cache_read,omitempty"`
	CacheWrite int `json:"cache_write,omitempty"`
}

// MaxRequestTokens bounds a plausible count of one request's tokens (any
// field of its usage): no model reads or writes a hundred million tokens in
// one request. A provider that reports more, or a negative count, is wrong,
// and its usage is recorded as unknown.
const MaxRequestTokens = 100_000_000

// Plausible reports whether every count is within 0..MaxRequestTokens.
func (t TokenCount) Plausible() bool {
	for _, v := range []int{t.Input, t.Output, t.CacheRead, t.CacheWrite} {
		if v < 0 || v > MaxRequestTokens {
			return false
		}
	}
	return true
}

// Add adds o to t, each count saturating at the largest int instead of
// overflowing (negative counts of o are taken as 0).
func (t *TokenCount) Add(o TokenCount) {
	t.Input = SatAdd(t.Input, o.Input)
	t.Output = SatAdd(t.Output, o.Output)
	t.CacheRead = SatAdd(t.CacheRead, o.CacheRead)
	t.CacheWrite = SatAdd(t.CacheWrite, o.CacheWrite)
}

// SatAdd is a + b for token counts: b < 0 adds nothing, and the sum
// saturates at math.MaxInt instead of wrapping to a negative count.
func SatAdd(a, b int) int {
	if b <= 0 {
		return a
	}
	if a > math.MaxInt-b {
		return math.MaxInt
	}
	return a + b
}

type RunFinishedData struct {
	Status    Status     `json:"status"`
	Steps     int        `json:"steps"`
	ToolCalls int        `json:"tool_calls"`
	Tokens    TokenCount `json:"tokens"`
	Answer    string     `json:"answer,omitempty"`
	// Ended lists what the run's commands left running that the end of this
	// stretch of the run stopped.
	Ended []ProcessReport `json:"ended,omitempty"`
	// Failure is the diagnosis of a failed or stopped run (internal/diagnose):
	// nil for every other status.
	Failure *FailureInfo `json:"failure,omitempty"`
}

// FailureInfo is why a run failed or stopped: its class, the seq of the
// event that decided it and one line for a person.
type FailureInfo struct {
	Class  Class  `json:"class"`
	Seq    int64  `json:"seq"`
	Reason string `json:"reason"`
}

// NewPayload returns a pointer to the zero payload of t, or an error for an
// unknown type.
func NewPayload(t Type) (Payload, error) {
	switch t {
	case RunStarted:
		return &RunStartedData{}, nil
	case UserMessage:
		return &UserMessageData{}, nil
	case ModelRequest:
		return &ModelRequestData{}, nil
	case AssistantMessage:
		return &AssistantMessageData{}, nil
	case ToolCall:
		return &ToolCallData{}, nil
	case Approval:
		return &ApprovalData{}, nil
	case Checkpoint:
		return &CheckpointData{}, nil
	case ToolResult:
		return &ToolResultData{}, nil
	case Rollback:
		return &RollbackData{}, nil
	case Resume:
		return &ResumeData{}, nil
	case Error:
		return &ErrorData{}, nil
	case RunFinished:
		return &RunFinishedData{}, nil
	case CommandStarted:
		return &CommandStartedData{}, nil
	case GrantRevoked:
		return &GrantRevokedData{}, nil
	case Compaction:
		return &CompactionData{}, nil
	case ContextRefresh:
		return &ContextRefreshData{}, nil
	case ModeChanged:
		return &ModeChangedData{}, nil
	case ModelChanged:
		return &ModelChangedData{}, nil
	case BudgetChanged:
		return &BudgetChangedData{}, nil
	case TaskStarted:
		return &TaskStartedData{}, nil
	}
	return nil, fmt.Errorf("unknown event type %q", t)
}

func (*RunStartedData) EventType() Type       { return RunStarted }
func (*UserMessageData) EventType() Type      { return UserMessage }
func (*ModelRequestData) EventType() Type     { return ModelRequest }
func (*AssistantMessageData) EventType() Type { return AssistantMessage }
func (*ToolCallData) EventType() Type         { return ToolCall }
func (*ApprovalData) EventType() Type         { return Approval }
func (*CheckpointData) EventType() Type       { return Checkpoint }
func (*ToolResultData) EventType() Type       { return ToolResult }
func (*RollbackData) EventType() Type         { return Rollback }
func (*ResumeData) EventType() Type           { return Resume }
func (*ErrorData) EventType() Type            { return Error }
func (*RunFinishedData) EventType() Type      { return RunFinished }
func (*CommandStartedData) EventType() Type   { return CommandStarted }
func (*GrantRevokedData) EventType() Type     { return GrantRevoked }
func (*CompactionData) EventType() Type       { return Compaction }
func (*ContextRefreshData) EventType() Type   { return ContextRefresh }
func (*ModeChangedData) EventType() Type      { return ModeChanged }
func (*ModelChangedData) EventType() Type     { return ModelChanged }

// New returns the event of payload p for a run; seq and time are set when
// the journal commits it.
func New(runID string, p Payload) Event {
	return Event{Type: p.EventType(), RunID: runID, Data: p}
}

// MarshalJSON writes the header fields followed by the payload's fields in one
// flat object, as the contract's event stream wants.
func (e Event) MarshalJSON() ([]byte, error) {
	type header struct {
		Type  Type   `json:"type"`
		RunID string `json:"run_id"`
		Seq   int64  `json:"seq"`
		Time  string `json:"time"`
	}
	h, err := json.Marshal(header{e.Type, e.RunID, e.Seq, e.Time.UTC().Format(time.RFC3339Nano)})
	if err != nil {
		return nil, err
	}
	if e.Data == nil {
		return h, nil
	}
	p, err := json.Marshal(e.Data)
	if err != nil {
		return nil, fmt.Errorf("marshal %s payload: %w", e.Type, err)
	}
	p = bytes.TrimSpace(p)
	if len(p) < 2 || p[0] != '{' {
		return nil, fmt.Errorf("payload of %s is not an object", e.Type)
	}
	if len(p) == 2 {
		return h, nil
	}
	out := make([]byte, 0, len(h)+len(p))
	out = append(out, h[:len(h)-1]...)
	out = append(out, ',')
	out = append(out, p[1:]...)
	return out, nil
}

// UnmarshalJSON reads a flat event object back into header and typed payload.
func (e *Event) UnmarshalJSON(b []byte) error {
	var h struct {
		Type  Type      `json:"type"`
		RunID string    `json:"run_id"`
		Seq   int64     `json:"seq"`
		Time  time.Time `json:"time"`
	}
	if err := json.Unmarshal(b, &h); err != nil {
		return err
	}
	p, err := NewPayload(h.Type)
	if err != nil {
		return err
	}
	if err := json.Unmarshal(b, p); err != nil {
		return fmt.Errorf("decode %s event: %w", h.Type, err)
	}
	e.Type, e.RunID, e.Seq, e.Time, e.Data = h.Type, h.RunID, h.Seq, h.Time, p
	return nil
}

// DecodePayload decodes a stored payload of type t.
func DecodePayload(t Type, raw []byte) (Payload, error) {
	p, err := NewPayload(t)
	if err != nil {
		return nil, err
	}
	if err := json.Unmarshal(raw, p); err != nil {
		return nil, fmt.Errorf("decode %s payload: %w", t, err)
	}
	return p, nil
}
