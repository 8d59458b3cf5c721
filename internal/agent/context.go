package agent

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"

	"agent/internal/event"
	"agent/internal/tokens"
	"agent/internal/tools"
)

// DefaultWindow is the context budget in tokens when the config sets none.
const DefaultWindow = 128000

// maxAgentsMD caps how much of AGENTS.md goes into the system prompt.
const maxAgentsMD = 32 << 10

// ContextBuilder assembles each model request in layers and reports them.
type ContextBuilder struct {
	Workspace string
	Model     string
	Window    int
	// Redactor cleans files read into the prompt (AGENTS.md).
	Redactor Redactor
	// Tokens counts the layers' tokens; nil means a counter for Model's
	// encoding (tokens.ForModel), made at the first Build.
	Tokens *tokens.Counter

	system string // built once per process
	tools  []ToolSpec
	toolTk int
}

const basePrompt = `You are agent, a coding agent working in a software repository on the user's machine.
Workspace root: %s (every path you give is relative to it; nothing outside it can be read or written).

How to work:
- Read before you edit: use list_dir, glob, grep and read_file to find what matters.
- Change files with edit_file (exact old_string, unique unless replace_all) or write_file for new files.
- Run commands with run_command (bash -c in the workspace): build, test, check your work.
- Keep a plan with update_plan for work of several steps.
- Tool results may contain [REDACTED:KIND:ID] placeholders where secrets were; never write them into files.
- When the task is done, answer with a short summary of what you changed and how you checked it, and call no tool.`

func (b *ContextBuilder) init(reg *tools.Registry) {
	if b.Tokens == nil {
		// New fails only for an encoding it does not know, and ForModel
		// returns known ones; a nil counter would estimate.
		b.Tokens, _ = tokens.New(tokens.ForModel(b.Model))
	}
	if b.system != "" {
		return
	}
	var sb strings.Builder
	sb.WriteString(strings.Replace(basePrompt, "%s", b.Workspace, 1))
	if md := b.readAgentsMD(); md != "" {
		sb.WriteString("\n\nThe repository's AGENTS.md says:\n<agents_md>\n")
		sb.WriteString(md)
		sb.WriteString("\n</agents_md>")
	}
	b.system = sb.String()
	for _, t := range reg.Tools() {
		raw, _ := json.Marshal(t.Schema())
		b.tools = append(b.tools, ToolSpec{Name: t.Name(), Description: t.Description(), Parameters: raw})
		b.toolTk += b.countTokens(t.Name()) + b.countTokens(t.Description()) + b.countTokens(string(raw))
	}
}

func (b *ContextBuilder) readAgentsMD() string {
	data, err := os.ReadFile(filepath.Join(b.Workspace, "AGENTS.md"))
	if err != nil {
		return ""
	}
	if len(data) > maxAgentsMD {
		data = data[:maxAgentsMD]
	}
	s := string(data)
	if b.Redactor != nil {
		s = b.Redactor.Redact(s)
	}
	return strings.TrimSpace(s)
}

// Build returns the next request for st and its layer report.
func (b *ContextBuilder) Build(st *State, reg *tools.Registry) (*Request, event.ContextReport) {
	b.init(reg)
	msgs := make([]Message, 0, len(st.Messages)+1)
	msgs = append(msgs, Message{Role: RoleSystem, Content: b.system})
	msgs = append(msgs, st.Messages...)
	convTk := 0
	for _, m := range st.Messages {
		convTk += b.countTokens(m.Content) + 4
		for _, c := range m.ToolCalls {
			convTk += b.countTokens(c.Name) + b.countTokens(c.Arguments)
		}
	}
	window := b.Window
	if window <= 0 {
		window = DefaultWindow
	}
	sysTk := b.countTokens(b.system)
	report := event.ContextReport{
		Budget:      window,
		TotalTokens: sysTk + b.toolTk + convTk,
		Layers: []event.ContextLayer{
			{Name: "system", Tokens: sysTk, Items: 1},
			{Name: "tools", Tokens: b.toolTk, Items: len(b.tools)},
			{Name: "conversation", Tokens: convTk, Items: len(st.Messages)},
		},
	}
	return &Request{Model: b.Model, Messages: msgs, Tools: b.tools}, report
}

// countTokens counts s with the model's tokenizer. Counts are memoised, so
// the history is encoded once, not at every step.
func (b *ContextBuilder) countTokens(s string) int {
	return b.Tokens.Count(s)
}
