package policy

import (
	"strings"
	"testing"

	"agent/internal/event"
)

// An MCP tool is named whole in a rule: mcp__SERVER__TOOL, no pattern.
func TestMCPToolRules(t *testing.T) {
	for _, bad := range []string{"mcp__t__touch(x)", "mcp__t", "mcp____x", "mcp__t__bad name"} {
		if _, err := ParseRule(bad); err == nil {
			t.Errorf("ParseRule(%q) accepted it", bad)
		}
	}
	if _, err := ParseRule("mcp__t__touch(made.txt)"); err == nil || !strings.Contains(err.Error(), `write "mcp__t__touch" alone`) {
		t.Errorf("a pattern: %v", err)
	}
	p, err := New(ModeAsk, []string{"mcp__t__touch"}, []string{"mcp__t__delete"}, "/ws")
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		tool   string
		action Action
		source string
	}{
		{"mcp__t__touch", Allow, SourceRule},
		{"mcp__t__delete", Deny, SourceRule},
		{"mcp__t__other", Ask, SourceMode},
		{"run_command", Ask, SourceMode}, // an MCP rule allows no command
	}
	for _, tc := range tests {
		c := Call{Tool: tc.tool, Risk: event.RiskExec, InsideWorkspace: true}
		if tc.tool == "run_command" {
			c.Command = "mcp__t__touch"
		}
		d := p.Decide(c)
		if d.Action != tc.action || d.Source != tc.source {
			t.Errorf("%s: %s by %s (%s), want %s by %s", tc.tool, d.Action, d.Source, d.Reason, tc.action, tc.source)
		}
	}
	full, _ := New(ModeFullAuto, nil, []string{"mcp__t__delete"}, "/ws")
	if d := full.Decide(Call{Tool: "mcp__t__delete", Risk: event.RiskExec, InsideWorkspace: true}); d.Action != Deny {
		t.Errorf("full-auto with a deny rule: %s", d.Action)
	}
	ro, _ := New(ModeReadOnly, []string{"mcp__t__touch"}, nil, "/ws")
	if d := ro.Decide(Call{Tool: "mcp__t__touch", Risk: event.RiskExec, InsideWorkspace: true}); d.Action != Deny {
		t.Errorf("read-only lifted by an allow rule: %s", d.Action)
	}
}
