package anthropic

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	sdk "github.com/anthropics/anthropic-sdk-go/v2"

	"agent/internal/agent"
)

// emptyToolOutput stands in for a tool result without text: the API
// rejects an empty text block.
const emptyToolOutput = "(no output)"

// continuing opens a conversation whose first kept message is the model's:
// the API wants the first message to be the user's.
const continuing = "(the conversation so far follows)"

// wireMsg is one message being assembled: consecutive agent messages of the
// same wire role are merged into it, as the API wants roles to alternate.
type wireMsg struct {
	assistant bool
	blocks    []sdk.ContentBlockParamUnion
}

// breakpoint is a place a cache_control may go: a system block or the last
// block of a message.
type breakpoint struct {
	system int // index into the system blocks, or -1
	msg    int // index into the messages
	block  int
}

// buildParams maps an agent.Request onto the wire request.
func (p *Provider) buildParams(req *agent.Request) (sdk.MessageNewParams, error) {
	model := req.Model
	if model == "" {
		model = p.cfg.Model
	}
	if model == "" {
		return sdk.MessageNewParams{}, &ModelError{Msg: "no model configured: set --model or AGENT_MODEL (e.g. claude-sonnet-4-5)"}
	}
	maxTokens := p.cfg.MaxTokens
	if maxTokens <= 0 {
		maxTokens = maxTokensFor(model)
	}
	var system []sdk.TextBlockParam
	var msgs []wireMsg
	var marks []breakpoint
	leading := true
	for i, m := range req.Messages {
		if m.Role == agent.RoleSystem && leading {
			if strings.TrimSpace(m.Content) == "" {
				continue
			}
			system = append(system, sdk.TextBlockParam{Text: m.Content})
			if m.CacheBreak {
				marks = append(marks, breakpoint{system: len(system) - 1})
			}
			continue
		}
		leading = false
		blocks, assistant, err := wireBlocks(m)
		if err != nil {
			return sdk.MessageNewParams{}, &ModelError{Err: err, Msg: fmt.Sprintf("invalid conversation: message %d: %v", i, err)}
		}
		if len(blocks) == 0 {
			continue // an empty answer: the API rejects a message without content
		}
		if n := len(msgs); n > 0 && msgs[n-1].assistant == assistant {
			msgs[n-1].blocks = append(msgs[n-1].blocks, blocks...)
		} else {
			msgs = append(msgs, wireMsg{assistant: assistant, blocks: blocks})
		}
		if m.CacheBreak {
			last := len(msgs) - 1
			marks = append(marks, breakpoint{system: -1, msg: last, block: len(msgs[last].blocks) - 1})
		}
	}
	if len(msgs) == 0 {
		return sdk.MessageNewParams{}, &ModelError{Msg: "invalid conversation: no user or assistant message to send"}
	}
	if msgs[0].assistant {
		msgs = append([]wireMsg{{blocks: []sdk.ContentBlockParamUnion{sdk.NewTextBlock(continuing)}}}, msgs...)
		for i := range marks {
			if marks[i].system < 0 {
				marks[i].msg++
			}
		}
	}
	tools, err := wireTools(req.Tools)
	if err != nil {
		return sdk.MessageNewParams{}, err
	}
	budget := maxBreakpoints
	if len(tools) > 0 {
		tools[len(tools)-1].OfTool.CacheControl = sdk.NewCacheControlEphemeralParam()
		budget--
	}
	for _, b := range pick(marks, budget) {
		if b.system >= 0 {
			system[b.system].CacheControl = sdk.NewCacheControlEphemeralParam()
			continue
		}
		setCache(&msgs[b.msg].blocks[b.block])
	}
	wire := make([]sdk.MessageParam, len(msgs))
	for i, m := range msgs {
		if m.assistant {
			wire[i] = sdk.NewAssistantMessage(m.blocks...)
		} else {
			wire[i] = sdk.NewUserMessage(m.blocks...)
		}
	}
	return sdk.MessageNewParams{
		Model:     sdk.Model(model),
		MaxTokens: int64(maxTokens),
		System:    system,
		Messages:  wire,
		Tools:     tools,
	}, nil
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

// setCache puts a cache_control breakpoint on a block.
func setCache(b *sdk.ContentBlockParamUnion) {
	cc := sdk.NewCacheControlEphemeralParam()
	switch {
	case b.OfText != nil:
		b.OfText.CacheControl = cc
	case b.OfToolUse != nil:
		b.OfToolUse.CacheControl = cc
	case b.OfToolResult != nil:
		b.OfToolResult.CacheControl = cc
	}
}

// wireBlocks turns one agent message into content blocks and says whether
// they belong to the assistant's side.
func wireBlocks(m agent.Message) ([]sdk.ContentBlockParamUnion, bool, error) {
	switch m.Role {
	case agent.RoleSystem, agent.RoleUser:
		// a system message after the conversation has begun keeps its place, as the user's
		if strings.TrimSpace(m.Content) == "" {
			return nil, false, nil
		}
		return []sdk.ContentBlockParamUnion{sdk.NewTextBlock(m.Content)}, false, nil
	case agent.RoleAssistant:
		var out []sdk.ContentBlockParamUnion
		if strings.TrimSpace(m.Content) != "" {
			out = append(out, sdk.NewTextBlock(m.Content))
		}
		for _, tc := range m.ToolCalls {
			if tc.ID == "" {
				return nil, true, fmt.Errorf("tool call %q without an id", tc.Name)
			}
			out = append(out, sdk.NewToolUseBlock(tc.ID, toolInput(tc.Arguments), tc.Name))
		}
		return out, true, nil
	case agent.RoleTool:
		if m.ToolCallID == "" {
			return nil, false, fmt.Errorf("tool message without a tool call id")
		}
		content := m.Content
		if strings.TrimSpace(content) == "" {
			content = emptyToolOutput
		}
		b := sdk.ContentBlockParamUnion{OfToolResult: &sdk.ToolResultBlockParam{
			ToolUseID: m.ToolCallID,
			Content:   []sdk.ToolResultBlockParamContentUnion{{OfText: &sdk.TextBlockParam{Text: content}}},
		}}
		return []sdk.ContentBlockParamUnion{b}, false, nil
	}
	return nil, false, fmt.Errorf("unknown role %q", m.Role)
}

// toolInput is a call's arguments as the JSON object the API wants. The
// model's arguments are untrusted: ones that are not a JSON object (the loop
// answered the call with a tool error) are sent as {}.
func toolInput(args string) json.RawMessage {
	b := bytes.TrimSpace([]byte(args))
	if len(b) == 0 || b[0] != '{' || !json.Valid(b) {
		return json.RawMessage(`{}`)
	}
	var compact bytes.Buffer
	if json.Compact(&compact, b) != nil {
		return json.RawMessage(`{}`)
	}
	return json.RawMessage(compact.Bytes())
}

// wireTools maps the tool specs; a schema's properties and required list
// go to their fields, any other keyword along with them.
func wireTools(specs []agent.ToolSpec) ([]sdk.ToolUnionParam, error) {
	out := make([]sdk.ToolUnionParam, 0, len(specs))
	for _, t := range specs {
		schema := sdk.ToolInputSchemaParam{Properties: map[string]any{}}
		if raw := bytes.TrimSpace(t.Parameters); len(raw) > 0 {
			var m map[string]json.RawMessage
			if err := json.Unmarshal(raw, &m); err != nil {
				return nil, &ModelError{Err: err, Msg: fmt.Sprintf("invalid tool %q: its parameters are not a JSON object", t.Name)}
			}
			for k, v := range m {
				switch k {
				case "type":
				case "properties":
					schema.Properties = v
				case "required":
					if err := json.Unmarshal(v, &schema.Required); err != nil {
						return nil, &ModelError{Err: err, Msg: fmt.Sprintf("invalid tool %q: its required list is not a list of names", t.Name)}
					}
				default:
					if schema.ExtraFields == nil {
						schema.ExtraFields = map[string]any{}
					}
					schema.ExtraFields[k] = v
				}
			}
		}
		tp := &sdk.ToolParam{Name: t.Name, InputSchema: schema}
		if t.Description != "" {
			tp.Description = sdk.String(t.Description)
		}
		out = append(out, sdk.ToolUnionParam{OfTool: tp})
	}
	return out, nil
}
