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
)

// Event is one journaled fact about a run. Data holds the type's payload (one of
// the *Payload structs below); on the wire its fields sit beside the header.
type Event struct {
	Type  Type      `json:"type"`
	RunID string    `json:"run_id"`
	Seq   int64     `json:"seq"`
	Time  time.Time `json:"time"`
	Data  any       `json:"-"`
}

// Risk classifies what a tool call can do.
type Risk string

const (
	RiskRead  Risk = "read"
	RiskWrite Risk = "write"
	RiskExec  Risk = "exec"
)

// Run statuses (run_finished.status and the runs table).
const (
	StatusRunning          = "running"
	StatusCompleted        = "completed"
	StatusStopped          = "stopped"
	StatusFailed           = "failed"
	StatusAwaitingApproval = "awaiting_approval"
	StatusInterrupted      = "interrupted"
)

// Tool result statuses.
const (
	ResultOK          = "ok"
	ResultError       = "error"
	ResultDenied      = "denied"
	ResultInterrupted = "interrupted"
)

type RunStartedData struct {
	Workspace string   `json:"workspace"`
	Model     string   `json:"model"`
	Approval  string   `json:"approval"`
	BaseURL   string   `json:"base_url,omitempty"`
	MaxSteps  int      `json:"max_steps,omitempty"`
	Allow     []string `json:"allow,omitempty"` // the run's allow rules, kept for resume
	Deny      []string `json:"deny,omitempty"`  // the run's deny rules, kept for resume
}

type UserMessageData struct {
	Text string `json:"text"`
}

type ContextLayer struct {
	Name   string `json:"name"`
	Tokens int    `json:"tokens"`
	Items  int    `json:"items"`
}

type ContextReport struct {
	Budget      int            `json:"budget"`
	TotalTokens int            `json:"total_tokens"`
	Layers      []ContextLayer `json:"layers"`
}

type ModelRequestData struct {
	Step    int           `json:"step"`
	Context ContextReport `json:"context"`
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
	Tokens    *TokenCount   `json:"tokens,omitempty"`
}

type ToolCallData struct {
	CallID    string `json:"call_id"`
	Name      string `json:"name"`
	Arguments string `json:"arguments"`
	Risk      Risk   `json:"risk"`
}

type ApprovalData struct {
	CallID   string `json:"call_id"`
	Decision string `json:"decision"` // allow, deny
	Scope    string `json:"scope"`    // once, run
	Source   string `json:"source"`   // user, rule, mode
	Rule     string `json:"rule,omitempty"`
	Note     string `json:"note,omitempty"`
	Reason   string `json:"reason,omitempty"`
	ArgsHash string `json:"args_hash,omitempty"`
	// Pending is never journaled: State marks the call a paused run waits on.
	Pending bool `json:"-"`
}

type CheckpointData struct {
	CheckpointID string   `json:"checkpoint_id"`
	CallID       string   `json:"call_id"`
	Kind         string   `json:"kind,omitempty"` // before, after, rollback
	Step         int      `json:"step"`
	Files        []string `json:"files"`
}

type ToolResultData struct {
	CallID string `json:"call_id"`
	Status string `json:"status"`
	Output string `json:"output"`
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
	CallID string `json:"call_id"`
	Name   string `json:"name"`
	Action string `json:"action"` // rerun, not_rerun, awaiting_approval
}

type ResumeData struct {
	FromSeq     int64             `json:"from_seq"`
	Interrupted []InterruptedCall `json:"interrupted"`
}

type ErrorData struct {
	Class   string `json:"class"`
	Message string `json:"message"`
}

type TokenCount struct {
	Input  int `json:"input"`
	Output int `json:"output"`
}

type RunFinishedData struct {
	Status    string     `json:"status"`
	Steps     int        `json:"steps"`
	ToolCalls int        `json:"tool_calls"`
	Tokens    TokenCount `json:"tokens"`
	Answer    string     `json:"answer,omitempty"`
}

// NewPayload returns a pointer to the zero payload of t, or an error for an
// unknown type.
func NewPayload(t Type) (any, error) {
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
	}
	return nil, fmt.Errorf("unknown event type %q", t)
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
func DecodePayload(t Type, raw []byte) (any, error) {
	p, err := NewPayload(t)
	if err != nil {
		return nil, err
	}
	if err := json.Unmarshal(raw, p); err != nil {
		return nil, fmt.Errorf("decode %s payload: %w", t, err)
	}
	return p, nil
}
