package agent_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"agent/internal/agent"
	"agent/internal/approval"
	"agent/internal/checkpoint"
	"agent/internal/contextbuild"
	"agent/internal/event"
	"agent/internal/policy"
	"agent/internal/protocol"
	"agent/internal/replay"
	"agent/internal/store"
	"agent/internal/tools"
)

// personDenies is the person at the prompt: every call that asks is denied,
// without a note.
type personDenies struct{}

func (personDenies) Approve(context.Context, protocol.ApprovalRequest) (agent.ApprovalDecision, error) {
	return agent.ApprovalDecision{Decision: protocol.DenyCall(""), Source: event.SourceUser}, nil
}

// runScript runs script through the real loop, store and checkpoints and
// returns the run's journal as the store has it.
func runScript(t *testing.T, script string, approver agent.Approver, maxSteps int) (protocol.Outcome, []event.Event) {
	t.Helper()
	return runScriptEnv(t, script, approver, maxSteps, nil)
}

// runScriptEnv is runScript with the tools' environment made by env from
// the workspace (nil: the workspace alone, no sandbox).
func runScriptEnv(t *testing.T, script string, approver agent.Approver, maxSteps int, env func(ws string) *tools.Env) (protocol.Outcome, []event.Event) {
	t.Helper()
	ws := t.TempDir()
	if err := os.WriteFile(filepath.Join(ws, "a.txt"), []byte("v1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	st, err := store.Open(context.Background(), filepath.Join(t.TempDir(), "home"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	sc, err := replay.Parse([]byte(script))
	if err != nil {
		t.Fatal(err)
	}
	cps, err := checkpoint.Open(st.Home(), ws)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cps.Close() })
	if approver == nil {
		pol, _ := policy.New(policy.ModeFullAuto, nil, nil, ws)
		approver = &approval.Approver{Policy: pol}
	}
	toolEnv := &tools.Env{Workspace: ws}
	if env != nil {
		toolEnv = env(ws)
	}
	r := &agent.Runner{
		Provider: replay.NewScripted(sc), Tools: tools.Default(), Journal: st, MaxSteps: maxSteps,
		Checkpointer: checkpoint.Checkpointer{Store: cps}, Approver: approver,
		Context: contextbuild.MustNew(ws, "m", 0, tools.Default()), ToolEnv: toolEnv,
	}
	runID := store.NewRunID()
	if err := st.CreateRun(context.Background(), store.Run{ID: runID, Workspace: ws}); err != nil {
		t.Fatal(err)
	}
	s := agent.NewState(runID, ws, "m", "full-auto")
	if err := r.Start(context.Background(), s, "edit a.txt"); err != nil {
		t.Fatal(err)
	}
	out := r.Run(context.Background(), s)
	evs, err := st.Events(context.Background(), runID, 0)
	if err != nil {
		t.Fatal(err)
	}
	return out, evs
}

// finished returns the journal's run_finished and the event at seq.
func finished(t *testing.T, evs []event.Event, seq int64) (*event.RunFinishedData, *event.Event) {
	t.Helper()
	var fin *event.RunFinishedData
	var at *event.Event
	for i := range evs {
		if d, ok := evs[i].Data.(*event.RunFinishedData); ok {
			fin = d
		}
		if evs[i].Seq == seq {
			at = &evs[i]
		}
	}
	if fin == nil {
		t.Fatal("no run_finished journaled")
	}
	return fin, at
}

const failingEdit = `{"id": "%s", "name": "edit_file", "arguments": "{\"path\":\"a.txt\",\"old_string\":\"nope\",\"new_string\":\"x\"}"}`

// The loop journals the diagnosis with run_finished: the class, the seq of
// the deciding event (as the store numbered it) and a reason.
func TestRunFinishedCarriesFailure(t *testing.T) {
	edit := func(id string) string { return `{"tool_calls": [` + strings.Replace(failingEdit, "%s", id, 1) + `]}` }
	tests := []struct {
		name     string
		script   string
		approver agent.Approver
		maxSteps int
		status   event.Status
		class    event.Class
		at       func(*event.Event) bool // the deciding event
		reason   string
	}{
		{
			name:   "the same failing edit three times",
			script: `{"turns": [` + edit("c1") + `,` + edit("c2") + `,` + edit("c3") + `,` + edit("c4") + `, {"text": "gave up"}]}`,
			status: event.StatusFailed, class: event.ClassTool, reason: "the model repeated the same failing edit_file `a.txt` 3 times",
			at: func(ev *event.Event) bool {
				r, ok := ev.Data.(*event.ToolResultData)
				return ok && r.CallID == "c3" && r.Status == event.ResultError
			},
		},
		{
			name:     "a person's denial without a note",
			script:   `{"turns": [{"tool_calls": [{"id": "c1", "name": "run_command", "arguments": "{\"command\":\"rm -rf build\"}"}]}, {"text": "ok"}]}`,
			approver: personDenies{}, status: event.StatusStopped, class: event.ClassPermission,
			reason: "the person denied run_command `rm -rf build` and stopped the turn",
			at: func(ev *event.Event) bool {
				a, ok := ev.Data.(*event.ApprovalData)
				return ok && a.CallID == "c1" && a.Source == event.SourceUser
			},
		},
		{
			name:     "--max-steps",
			script:   `{"turns": [{"tool_calls": [{"id": "c1", "name": "read_file", "arguments": "{\"path\":\"a.txt\"}"}]}, {"text": "done"}]}`,
			maxSteps: 1, status: event.StatusFailed, class: event.ClassRuntime, reason: "--max-steps 1",
			at: func(ev *event.Event) bool { return ev.Type == event.Error },
		},
		{
			name:   "a model error",
			script: `{"turns": [{"http_status": 400, "error": "bad request: unsupported parameter"}]}`,
			status: event.StatusFailed, class: event.ClassModel, reason: "the model request failed",
			at: func(ev *event.Event) bool { return ev.Type == event.Error },
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			out, evs := runScript(t, tc.script, tc.approver, tc.maxSteps)
			if out.Status != tc.status {
				t.Fatalf("status %s (%v), want %s", out.Status, out.Err, tc.status)
			}
			fin, _ := finished(t, evs, 0)
			f := fin.Failure
			if f == nil {
				t.Fatalf("run_finished %+v carries no failure", *fin)
			}
			_, at := finished(t, evs, f.Seq)
			if f.Class != tc.class || at == nil || !tc.at(at) || !strings.Contains(f.Reason, tc.reason) {
				t.Errorf("failure %+v (seq %d is %+v), want class %s, reason containing %q", *f, f.Seq, at, tc.class, tc.reason)
			}
		})
	}
}

// A run that completes journals no failure.
func TestCompletedRunHasNoFailure(t *testing.T) {
	out, evs := runScript(t, `{"turns": [{"text": "nothing to do"}]}`, nil, 0)
	if out.Status != event.StatusCompleted {
		t.Fatalf("status %s", out.Status)
	}
	if fin, _ := finished(t, evs, 0); fin.Failure != nil {
		t.Fatalf("a completed run carries failure %+v", *fin.Failure)
	}
}
