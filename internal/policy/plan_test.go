package policy

import (
	"strings"
	"testing"
)

// Plan mode runs reads and update_plan only: a write or a command is denied
// by the mode (the model is told plan mode is on), and no allow rule lifts
// that, not even a rule naming the exact call.
func TestPlanModeDeniesWritesAndCommands(t *testing.T) {
	p := mustPolicy(t, ModePlan, []string{"run_command(ls *)", "write_file(*)", "*"}, nil)
	for _, c := range []Call{
		{Tool: "write_file", Path: "a.txt", InsideWorkspace: true},
		{Tool: "edit_file", Path: "docs/a.md", InsideWorkspace: true},
		cmdCall("ls -la"),
		cmdCall("ls; ("), // does not parse
		{Tool: "mcp__srv__touch"},
	} {
		d := p.Decide(c)
		if d.Action != Deny || d.Source != SourceMode || !strings.Contains(d.Reason, "plan mode is on") {
			t.Errorf("%+v under plan: %+v, want a denial by the mode saying plan mode is on", c, d)
		}
	}
	for _, c := range []Call{
		{Tool: "read_file", Path: "main.go", InsideWorkspace: true},
		{Tool: "grep", Path: "*.go", InsideWorkspace: true},
		{Tool: "update_plan"},
	} {
		if d := p.Decide(c); d.Action != Allow {
			t.Errorf("%+v under plan: %+v, want allowed", c, d)
		}
	}
	// a deny rule still wins over a read
	dp := mustPolicy(t, ModePlan, nil, []string{"read_file(.env)"})
	if d := dp.Decide(Call{Tool: "read_file", Path: ".env", InsideWorkspace: true}); d.Action != Deny || d.Source != SourceRule {
		t.Errorf("read of .env under plan with a deny rule: %+v", d)
	}
}

func TestPlanModeOrder(t *testing.T) {
	m, err := ParseMode("PLAN")
	if err != nil || m != ModePlan || m.String() != "plan" {
		t.Fatalf("ParseMode(PLAN) = %v, %v", m, err)
	}
	if !ModePlan.LooserThan(ModeReadOnly) || ModePlan.LooserThan(ModeAsk) || !ModeAsk.LooserThan(ModePlan) {
		t.Error("plan must sit between read-only and ask")
	}
	if _, err := ParseMode("planning"); err == nil || !strings.Contains(err.Error(), "read-only, plan, ask") {
		t.Errorf("unknown mode error %v does not list plan", err)
	}
}
