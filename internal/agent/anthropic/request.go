package anthropic

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"agent/internal/agent"
)

// emptyToolOutput stands in for a tool result without text: the API
// rejects an empty text block.
const emptyToolOutput = "(no output)"

// continuing opens a conversation whose first kept message is the model's:
// the API wants the first message to be the user's.
const continuing = "(the conversation so far follows)"

// breakpoint is a place a cache_control may go: a system block (system >= 0)
// or a block of a message.
type breakpoint struct {
	system int
	msg    int
	block  int
}

// buildRequest maps an agent.Request onto the wire request.
func (p *Provider) buildRequest(req *agent.Request) (*wireRequest, error) {
	model := req.Model
	if model == "" {
		model = p.cfg.Model
	}
	if model == "" {
		return nil, &ModelError{Msg: "no model configured: set --model or AGENT_MODEL (e.g. claude-sonnet-4-5)"}
	}
	maxTokens := p.cfg.MaxTokens
	if maxTokens <= 0 {
		maxTokens = maxTokensFor(model)
	}
	w := &wireRequest{Model: model, MaxTokens: maxTokens, Stream: true}
	var marks []breakpoint
	leading := true
	for i, m := range req.Messages {
		if m.Role == agent.RoleSystem && leading {
			if strings.TrimSpace(m.Content) == "" {
				continue
			}
			w.System = append(w.System, textBlock{Type: "text", Text: m.Content})
			if m.CacheBreak {
				marks = append(marks, breakpoint{system: len(w.System) - 1})
			}
			continue
		}
		leading = false
		blocks, role, err := wireBlocks(m)
		if err != nil {
			return nil, &ModelError{Err: err, Msg: fmt.Sprintf("invalid conversation: message %d: %v", i, err)}
		}
		if len(blocks) == 0 {
			continue // an empty answer: the API rejects a message without content
		}
		if n := len(w.Messages); n > 0 && w.Messages[n-1].Role == role {
			w.Messages[n-1].Content = append(w.Messages[n-1].Content, blocks...)
		} else {
			w.Messages = append(w.Messages, wireMessage{Role: role, Content: blocks})
		}
		if m.CacheBreak {
			last := len(w.Messages) - 1
			marks = append(marks, breakpoint{system: -1, msg: last, block: len(w.Messages[last].Content) - 1})
		}
	}
	if len(w.Messages) == 0 {
		return nil, &ModelError{Msg: "invalid conversation: no user or assistant message to send"}
	}
	if w.Messages[0].Role == "assistant" {
		w.Messages = append([]wireMessage{{Role: "user", Content: []block{{Type: "text", Text: continuing}}}}, w.Messages...)
		for i := range marks {
			if marks[i].system < 0 {
				marks[i].msg++
			}
		}
	}
	tools, err := wireTools(req.Tools)
	if err != nil {
		return nil, err
	}
	w.Tools = tools
	budget := maxBreakpoints
	if len(tools) > 0 {
		tools[len(tools)-1].CacheControl = ephemeral
		budget--
	}
	for _, b := range pick(marks, budget) {
		if b.system >= 0 {
			w.System[b.system].CacheControl = ephemeral
		} else {
			w.Messages[b.msg].Content[b.block].CacheControl = ephemeral
		}
	}
	return w, nil
}

// pick keeps at most n breakpoints: the first (the instructions, the most
// stable prefix) and the last ones (each covers everything before it).
func pick(marks []breakpoint, n int) []breakpoint {
	if len(marks) <= n {
		return marks
	}
	if n <= 0 {
		return nil
	}
	return append([]breakpoint{marks[0]}, marks[len(marks)-(n-1):]...)
}

// wireBlocks turns one agent message into content blocks and names the
// wire role they belong to.
func wireBlocks(m agent.Message) ([]block, string, error) {
	switch m.Role {
	case agent.RoleSystem, agent.RoleUser:
		// a system message after the conversation has begun keeps its place, as the user's
		if strings.TrimSpace(m.Content) == "" {
			return nil, "user", nil
		}
		return []block{{Type: "text", Text: m.Content}}, "user", nil
	case agent.RoleAssistant:
		var out []block
		if strings.TrimSpace(m.Content) != "" {
			out = append(out, block{Type: "text", Text: m.Content})
		}
		for _, tc := range m.ToolCalls {
			if tc.ID == "" {
				return nil, "assistant", fmt.Errorf("tool call %q without an id", tc.Name)
			}
			out = append(out, block{Type: "tool_use", ID: tc.ID, Name: tc.Name, Input: toolInput(tc.Arguments)})
		}
		return out, "assistant", nil
	case agent.RoleTool:
		if m.ToolCallID == "" {
			return nil, "user", fmt.Errorf("tool message without a tool call id")
		}
		content := m.Content
		if strings.TrimSpace(content) == "" {
			content = emptyToolOutput
		}
		return []block{{Type: "tool_result", ToolUseID: m.ToolCallID, Content: []textBlock{{Type: "text", Text: content}}}}, "user", nil
	}
	return nil, "", fmt.Errorf("unknown role %q", m.Role)
}

// toolInput is a call's arguments as the JSON object the API wants. The
// model's arguments are untrusted: ones that are not a JSON object (the loop
// answered the call with a tool error) are sent as {}.
func toolInput(args string) json.RawMessage {
	b := bytes.TrimSpace([]byte(args))
	var compact bytes.Buffer
	if len(b) == 0 || b[0] != '{' || json.Compact(&compact, b) != nil {
		return json.RawMessage(`{}`)
	}
	return json.RawMessage(compact.Bytes())
}

// wireTools maps the tool specs; a schema must be a JSON object (an empty one
// stands for "no arguments").
func wireTools(specs []agent.ToolSpec) ([]wireTool, error) {
	out := make([]wireTool, 0, len(specs))
	for _, t := range specs {
		schema := bytes.TrimSpace(t.Parameters)
		if len(schema) == 0 {
			schema = []byte(`{"type":"object","properties":{}}`)
		}
		var m map[string]json.RawMessage
		if err := json.Unmarshal(schema, &m); err != nil {
			return nil, &ModelError{Err: err, Msg: fmt.Sprintf("invalid tool %q: its parameters are not a JSON object", t.Name)}
		}
		if _, ok := m["type"]; !ok {
			m["type"] = json.RawMessage(`"object"`)
			schema, _ = json.Marshal(m)
		}
		out = append(out, wireTool{Name: t.Name, Description: t.Description, InputSchema: json.RawMessage(schema)})
	}
	return out, nil
}
