package replay

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
)

// ChatRequest is a decoded chat-completions request body. Its types are the
// server's own (not go-openai's), so the replay checks the adapter's wire
// format independently.
type ChatRequest struct {
	Model         string         `json:"model"`
	Messages      []ChatMessage  `json:"messages"`
	Tools         []ChatTool     `json:"tools,omitempty"`
	Stream        bool           `json:"stream"`
	StreamOptions *StreamOptions `json:"stream_options,omitempty"`
}

// StreamOptions of a request.
type StreamOptions struct {
	IncludeUsage bool `json:"include_usage"`
}

// ChatMessage is one request message.
type ChatMessage struct {
	Role       string         `json:"role"`
	Content    Content        `json:"content"`
	Name       string         `json:"name,omitempty"`
	ToolCalls  []WireToolCall `json:"tool_calls,omitempty"`
	ToolCallID string         `json:"tool_call_id,omitempty"`
}

// Content is a message content: a string, null, or a list of parts whose
// text parts are joined.
type Content string

// UnmarshalJSON accepts a string, null or [{"type":"text","text":...}].
func (c *Content) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	switch {
	case bytes.Equal(b, []byte("null")):
		*c = ""
		return nil
	case len(b) > 0 && b[0] == '[':
		var parts []struct {
			Type string `json:"type"`
			Text string `json:"text"`
		}
		if err := json.Unmarshal(b, &parts); err != nil {
			return fmt.Errorf("content parts: %w", err)
		}
		var sb strings.Builder
		for _, p := range parts {
			sb.WriteString(p.Text)
		}
		*c = Content(sb.String())
		return nil
	}
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return fmt.Errorf("content: %w", err)
	}
	*c = Content(s)
	return nil
}

// WireToolCall is a tool call in a request's assistant message or in a
// response.
type WireToolCall struct {
	Index    *int         `json:"index,omitempty"`
	ID       string       `json:"id,omitempty"`
	Type     string       `json:"type,omitempty"`
	Function WireFunction `json:"function"`
}

// WireFunction is the function of a WireToolCall.
type WireFunction struct {
	Name      string `json:"name,omitempty"`
	Arguments string `json:"arguments"`
}

// ChatTool is a tool definition of a request.
type ChatTool struct {
	Type     string `json:"type"`
	Function struct {
		Name        string          `json:"name"`
		Description string          `json:"description,omitempty"`
		Parameters  json.RawMessage `json:"parameters,omitempty"`
	} `json:"function"`
}

func (r *ChatRequest) view() (msgs []convMsg, toolNames []string) {
	for _, m := range r.Messages {
		cm := convMsg{Role: m.Role, Content: string(m.Content), ToolCallID: m.ToolCallID}
		for _, tc := range m.ToolCalls {
			cm.ToolCallIDs = append(cm.ToolCallIDs, tc.ID)
			cm.ToolArgs = append(cm.ToolArgs, tc.Function.Arguments)
		}
		msgs = append(msgs, cm)
	}
	for _, t := range r.Tools {
		toolNames = append(toolNames, t.Function.Name)
	}
	return msgs, toolNames
}

// Response shapes, with the fields OpenAI sends.

type chunkJSON struct {
	ID                string        `json:"id"`
	Object            string        `json:"object"`
	Created           int64         `json:"created"`
	Model             string        `json:"model"`
	SystemFingerprint *string       `json:"system_fingerprint"`
	Choices           []choiceChunk `json:"choices"`
	Usage             *usageJSON    `json:"usage,omitempty"`
	usageNull         bool
}

type choiceChunk struct {
	Index        int       `json:"index"`
	Delta        deltaJSON `json:"delta"`
	Logprobs     *struct{} `json:"logprobs"`
	FinishReason *string   `json:"finish_reason"`
}

type deltaJSON struct {
	Role      string         `json:"role,omitempty"`
	Content   *string        `json:"content,omitempty"`
	Refusal   *string        `json:"refusal,omitempty"`
	ToolCalls []WireToolCall `json:"tool_calls,omitempty"`
}

type usageJSON struct {
	PromptTokens     int `json:"prompt_tokens"`
	CompletionTokens int `json:"completion_tokens"`
	TotalTokens      int `json:"total_tokens"`
}

// MarshalJSON writes "usage": null on the chunks before the usage chunk when
// the client asked for usage, as OpenAI does.
func (c chunkJSON) MarshalJSON() ([]byte, error) {
	type plain chunkJSON
	b, err := json.Marshal(plain(c))
	if err != nil || !c.usageNull || c.Usage != nil {
		return b, err
	}
	return append(b[:len(b)-1], []byte(`,"usage":null}`)...), nil
}

func usageOf(u Usage) *usageJSON {
	return &usageJSON{PromptTokens: u.Input, CompletionTokens: u.Output, TotalTokens: u.Input + u.Output}
}

// chunkFor renders one planned part as an OpenAI chunk.
func chunkFor(p part, id, model string, created int64, includeUsage bool) chunkJSON {
	c := chunkJSON{ID: id, Object: "chat.completion.chunk", Created: created, Model: model, usageNull: includeUsage}
	ch := choiceChunk{}
	switch p.kind {
	case partRole:
		ch.Delta.Role = "assistant"
		if !p.noText {
			empty := ""
			ch.Delta.Content = &empty
		}
	case partText:
		t := p.text
		ch.Delta.Content = &t
	case partToolHead:
		i := p.index
		ch.Delta.ToolCalls = []WireToolCall{{Index: &i, ID: p.id, Type: "function",
			Function: WireFunction{Name: p.name, Arguments: ""}}}
	case partToolArgs:
		i := p.index
		ch.Delta.ToolCalls = []WireToolCall{{Index: &i, Function: WireFunction{Arguments: p.text}}}
	case partFinish:
		r := p.text
		ch.FinishReason = &r
	case partUsage:
		c.Choices = []choiceChunk{}
		c.Usage = usageOf(p.usage)
		return c
	}
	c.Choices = []choiceChunk{ch}
	return c
}

type completionJSON struct {
	ID                string          `json:"id"`
	Object            string          `json:"object"`
	Created           int64           `json:"created"`
	Model             string          `json:"model"`
	SystemFingerprint *string         `json:"system_fingerprint"`
	Choices           []messageChoice `json:"choices"`
	Usage             *usageJSON      `json:"usage"`
}

type messageChoice struct {
	Index        int         `json:"index"`
	Message      messageJSON `json:"message"`
	Logprobs     *struct{}   `json:"logprobs"`
	FinishReason string      `json:"finish_reason"`
}

type messageJSON struct {
	Role      string         `json:"role"`
	Content   *string        `json:"content"`
	Refusal   *string        `json:"refusal"`
	ToolCalls []WireToolCall `json:"tool_calls,omitempty"`
}

// completionFor renders a whole turn as a non-streaming response.
func completionFor(t *Turn, id, model string, created int64) completionJSON {
	msg := messageJSON{Role: "assistant"}
	if t.Text != "" {
		txt := t.Text
		msg.Content = &txt
	}
	for _, tc := range t.ToolCalls {
		msg.ToolCalls = append(msg.ToolCalls, WireToolCall{ID: tc.ID, Type: "function",
			Function: WireFunction{Name: tc.Name, Arguments: tc.Arguments}})
	}
	return completionJSON{
		ID: id, Object: "chat.completion", Created: created, Model: model,
		Choices: []messageChoice{{Message: msg, FinishReason: t.finishReason()}},
		Usage:   usageOf(t.usage()),
	}
}

type errorJSON struct {
	Error struct {
		Message string  `json:"message"`
		Type    string  `json:"type"`
		Param   *string `json:"param"`
		Code    *string `json:"code"`
	} `json:"error"`
}

func errorBody(status int, msg string) errorJSON {
	var e errorJSON
	e.Error.Message = msg
	var code string
	switch {
	case status == 401:
		e.Error.Type, code = "invalid_request_error", "invalid_api_key"
	case status == 404:
		e.Error.Type, code = "invalid_request_error", "model_not_found"
	case status == 429:
		e.Error.Type, code = "requests", "rate_limit_exceeded"
	case status >= 500:
		e.Error.Type = "server_error"
	default:
		e.Error.Type = "invalid_request_error"
	}
	if code != "" {
		e.Error.Code = &code
	}
	return e
}
