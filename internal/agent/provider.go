package agent

import (
	"context"
	"encoding/json"
)

// Provider streams one model turn. Every model source (an OpenAI-compatible
// HTTP endpoint, a scripted replay) implements it and goes through the same loop.
type Provider interface {
	Stream(ctx context.Context, req *Request) (Stream, error)
}

// Stream yields the events of one turn. Recv returns io.EOF after the last one.
type Stream interface {
	Recv() (StreamEvent, error)
	Close() error
}

// Request is what the loop asks of a provider.
type Request struct {
	Model    string
	Messages []Message
	Tools    []ToolSpec
}

// Role of a message.
type Role string

const (
	RoleSystem    Role = "system"
	RoleUser      Role = "user"
	RoleAssistant Role = "assistant"
	RoleTool      Role = "tool"
)

// Message is one conversation entry.
type Message struct {
	Role       Role
	Content    string
	ToolCalls  []ToolCall // assistant only
	ToolCallID string     // tool only
	Name       string     // tool only: the tool's name
	// CacheBreak marks the end of a stable prefix: a provider with prompt
	// caching may put a cache breakpoint after this message (the context
	// builder sets it after L1, after the repo map and after the last
	// round before the volatile layers). Others ignore it.
	CacheBreak bool
}

// ToolCall is a call the model asked for. Arguments are raw, untrusted JSON text.
type ToolCall struct {
	ID        string
	Name      string
	Arguments string
}

// ToolSpec describes a tool to the model.
type ToolSpec struct {
	Name        string
	Description string
	Parameters  json.RawMessage // JSON schema
}

// StreamEventKind is the kind of a StreamEvent.
type StreamEventKind int

const (
	EvTextDelta     StreamEventKind = iota + 1 // Text
	EvToolCallStart                            // Index, ID, Name
	EvToolCallDelta                            // Index, Text (an argument fragment)
	EvToolCallEnd                              // Index
	EvUsage                                    // Usage
	EvFinish                                   // FinishReason
	EvError                                    // Err
)

// StreamEvent is the one internal stream-event type every provider adapter emits.
type StreamEvent struct {
	Kind         StreamEventKind
	Index        int
	ID           string
	Name         string
	Text         string
	Usage        Usage
	FinishReason string
	Err          error
}

// Usage counts tokens of one turn. Input is every prompt token, cached or
// not; CacheRead and CacheWrite are the parts of it read from and written
// to the provider's prompt cache (0 where a provider does not say).
type Usage struct {
	Input      int
	Output     int
	CacheRead  int
	CacheWrite int
}
