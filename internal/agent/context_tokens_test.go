package agent_test

import (
	"testing"

	"agent/internal/agent"
	"agent/internal/tokens"
	"agent/internal/tools"
)

// TestContextReportCountsTokens: the layers of a request's report carry the
// model's tokenizer counts (o200k_base for gpt-4o, cl100k_base for gpt-4),
// not a bytes-per-token estimate; CJK text, four bytes a token by the old
// estimate, shows the difference.
func TestContextReportCountsTokens(t *testing.T) {
	const cjk = "我们需要修改这个函数以便处理空的输入，测试失败了因为缓存没有被清除。"
	for _, tt := range []struct {
		model string
		enc   tokens.Encoding
	}{{"gpt-4o", tokens.O200kBase}, {"gpt-4-turbo", tokens.Cl100kBase}} {
		ctr, err := tokens.New(tt.enc)
		if err != nil {
			t.Fatal(err)
		}
		reg := tools.Default()
		b := &agent.ContextBuilder{Workspace: t.TempDir(), Model: tt.model}
		st := &agent.State{Messages: []agent.Message{
			{Role: agent.RoleUser, Content: cjk},
			{Role: agent.RoleAssistant, ToolCalls: []agent.ToolCall{{ID: "c1", Name: "read_file", Arguments: `{"path":"main.go"}`}}},
		}}
		req, rep := b.Build(st, reg)
		if b.Tokens.Encoding() != tt.enc {
			t.Errorf("%s: counter %v, want %v", tt.model, b.Tokens.Encoding(), tt.enc)
		}
		// Each message adds 4 tokens of framing; the assistant's has no text.
		wantConv := ctr.Count(cjk) + 4 + 4 + ctr.Count("read_file") + ctr.Count(`{"path":"main.go"}`)
		wantTools := 0
		for _, s := range req.Tools {
			wantTools += ctr.Count(s.Name) + ctr.Count(s.Description) + ctr.Count(string(s.Parameters))
		}
		want := map[string]int{"system": ctr.Count(req.Messages[0].Content), "tools": wantTools, "conversation": wantConv}
		total := 0
		for _, l := range rep.Layers {
			if l.Tokens != want[l.Name] {
				t.Errorf("%s: layer %s has %d tokens, the tokenizer counts %d", tt.model, l.Name, l.Tokens, want[l.Name])
			}
			total += l.Tokens
		}
		if rep.TotalTokens != total {
			t.Errorf("%s: total %d, layers add up to %d", tt.model, rep.TotalTokens, total)
		}
		if old := (len(cjk) + 3) / 4; ctr.Count(cjk) == old {
			t.Errorf("%s: the CJK message counts %d, as the old estimate did", tt.model, old)
		}
	}
}
