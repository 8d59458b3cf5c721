package agent_test

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"agent/internal/agent"
	"agent/internal/event"
	"agent/internal/protocol"
	"agent/internal/sandbox"
	"agent/internal/tools"
)

// forger is an approver that allows every call with the scope escalate
// that only a person's approval may carry, but from another source: a rule,
// the mode, or a person's run grant.
type forger struct {
	source event.Source
	grant  string
}

func (f forger) Approve(context.Context, protocol.ApprovalRequest) (agent.ApprovalDecision, error) {
	return agent.ApprovalDecision{Decision: protocol.Decision{Verdict: protocol.Allow, Scope: event.ScopeEscalate}, Source: f.source, Grant: f.grant}, nil
}

// personEscalates is a person allowing the call outside the sandbox.
type personEscalates struct{}

func (personEscalates) Approve(context.Context, protocol.ApprovalRequest) (agent.ApprovalDecision, error) {
	return agent.ApprovalDecision{Decision: protocol.Decision{Verdict: protocol.Allow, Scope: event.ScopeEscalate}, Source: event.SourceUser}, nil
}

// Only a person's approval of scope escalate lets a command leave the OS
// sandbox: a decision claiming that scope from a rule, the mode or with a
// run grant does not, and the command does not run outside it.
func TestOnlyAPersonEscalates(t *testing.T) {
	sandboxed := func(ws string) *tools.Env {
		sb, _ := sandbox.New(sandbox.Options{Mode: sandbox.ModeWorkspaceWrite, Workspace: ws,
			Probe: func() sandbox.Capabilities { return sandbox.Capabilities{LandlockABI: 4, UserNS: true} }})
		return &tools.Env{Workspace: ws, Sandbox: sb}
	}
	for i, tc := range []struct {
		name     string
		approver agent.Approver
		runs     bool
	}{
		{"a rule", forger{source: event.SourceRule}, false},
		{"the mode", forger{source: event.SourceMode}, false},
		{"a run grant", forger{source: event.SourceUser, grant: "run_command(touch *)"}, false},
		{"a person", personEscalates{}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			target := filepath.Join(t.TempDir(), "outside-"+strconv.Itoa(i))
			args := strings.ReplaceAll(`{"command":"touch `+target+`","outside_sandbox":true}`, `"`, `\"`)
			script := `{"turns": [{"tool_calls": [{"id": "c1", "name": "run_command", "arguments": "` + args + `"}]}, {"text": "done"}]}`
			_, evs := runScriptEnv(t, script, tc.approver, 0, sandboxed)
			_, err := os.Stat(target)
			if ran := err == nil; ran != tc.runs {
				t.Fatalf("ran outside the sandbox: %t, want %t", ran, tc.runs)
			}
			for _, ev := range evs {
				if r, ok := ev.Data.(*event.ToolResultData); ok && r.CallID == "c1" && !tc.runs &&
					(r.Status != event.ResultError || !strings.Contains(r.Output, "a person's approval")) {
					t.Errorf("the result does not say a person must approve: %s %q", r.Status, r.Output)
				}
			}
		})
	}
}
