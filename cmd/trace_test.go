package cmd

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"agent/internal/event"
	"agent/internal/store"
)

// traceHome journals one run, event by event, in a fresh AGENT_HOME.
func traceHome(t *testing.T, id string, payloads ...event.Payload) {
	t.Helper()
	ctx := context.Background()
	home := filepath.Join(t.TempDir(), "state")
	t.Setenv("AGENT_HOME", home)
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	st, err := store.Open(ctx, home)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	ws := t.TempDir()
	if err := st.CreateRun(ctx, store.Run{ID: id, Workspace: ws, Model: "m", Approval: "ask", Prompt: "clean up"}); err != nil {
		t.Fatal(err)
	}
	for i, p := range payloads {
		e := event.New(id, p)
		e.Seq = int64(i + 1)
		if err := st.Append(ctx, &e); err != nil {
			t.Fatal(err)
		}
	}
}

// traceFailure is the failure of the last run_finished of agent trace --json.
func traceFailure(t *testing.T, id string) *event.FailureInfo {
	t.Helper()
	r := cli(t, "trace", id, "--json")
	if r.code != ExitOK {
		t.Fatalf("trace --json exit %d: %s", r.code, r.stderr)
	}
	var evs []map[string]json.RawMessage
	if err := json.Unmarshal([]byte(r.stdout), &evs); err != nil {
		t.Fatalf("trace --json: %v\n%s", err, r.stdout)
	}
	var f *event.FailureInfo
	for _, ev := range evs {
		if string(ev["type"]) == `"run_finished"` {
			f = nil
			if raw, ok := ev["failure"]; ok {
				f = &event.FailureInfo{}
				if err := json.Unmarshal(raw, f); err != nil {
					t.Fatal(err)
				}
			}
		}
	}
	return f
}

var stoppedByPerson = []event.Payload{
	&event.RunStartedData{Workspace: "/ws", Model: "m", Approval: "ask"},
	&event.UserMessageData{Text: "clean up"},
	&event.ModelRequestData{Step: 1},
	&event.AssistantMessageData{Step: 1, ToolCalls: []event.ToolCallRef{{ID: "call_1", Name: "run_command", Arguments: `{"command":"rm -rf build"}`}}},
	&event.ToolCallData{CallID: "call_1", Name: "run_command", Arguments: `{"command":"rm -rf build"}`, Risk: event.RiskExec},
	&event.ApprovalData{CallID: "call_1", Decision: event.Deny, Scope: event.ScopeOnce, Source: event.SourceUser},
	&event.ToolResultData{CallID: "call_1", Status: event.ResultDenied, Output: "denied: run_command was not run (denied by the user)"},
}

// A run journaled before run_finished carried a diagnosis is diagnosed by
// agent trace from its events: in the text and in --json.
func TestTraceDiagnosesOlderRun(t *testing.T) {
	const id = "20260101T000000-0ld000"
	traceHome(t, id, append(stoppedByPerson[:len(stoppedByPerson):len(stoppedByPerson)],
		&event.RunFinishedData{Status: event.StatusStopped, Steps: 1, ToolCalls: 1})...)
	r := cli(t, "trace", id)
	if r.code != ExitOK {
		t.Fatalf("trace exit %d: %s", r.code, r.stderr)
	}
	for _, want := range []string{
		"failure class: permission (decided at seq 6)",
		"reason: the person denied run_command `rm -rf build` and stopped the turn",
		"finished: stopped after 1 steps, 1 tool calls, 0+0 tokens; permission failure at seq 6",
	} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("trace lacks %q:\n%s", want, r.stdout)
		}
	}
	f := traceFailure(t, id)
	if f == nil || f.Class != event.ClassPermission || f.Seq != 6 {
		t.Fatalf("trace --json failure = %+v, want permission at seq 6", f)
	}
}

// A journaled diagnosis is shown as the loop wrote it, not re-derived.
func TestTraceShowsJournaledFailure(t *testing.T) {
	const id = "20260101T000000-new000"
	journaled := &event.FailureInfo{Class: event.ClassTool, Seq: 7, Reason: "as journaled"}
	traceHome(t, id, append(stoppedByPerson[:len(stoppedByPerson):len(stoppedByPerson)],
		&event.RunFinishedData{Status: event.StatusStopped, Failure: journaled})...)
	if r := cli(t, "trace", id); !strings.Contains(r.stdout, "failure class: tool (decided at seq 7)\nreason: as journaled\n") {
		t.Errorf("trace:\n%s", r.stdout)
	}
	if f := traceFailure(t, id); f == nil || *f != *journaled {
		t.Errorf("trace --json failure = %+v, want %+v", f, *journaled)
	}
}

// A completed or interrupted run shows no failure.
func TestTraceNoFailure(t *testing.T) {
	for _, s := range []event.Status{event.StatusCompleted, event.StatusInterrupted} {
		t.Run(string(s), func(t *testing.T) {
			const id = "20260101T000000-0k0000"
			traceHome(t, id, append(stoppedByPerson[:len(stoppedByPerson):len(stoppedByPerson)], &event.RunFinishedData{Status: s})...)
			if r := cli(t, "trace", id); strings.Contains(r.stdout, "failure") {
				t.Errorf("trace of a %s run:\n%s", s, r.stdout)
			}
			if f := traceFailure(t, id); f != nil {
				t.Errorf("trace --json failure = %+v", *f)
			}
		})
	}
}
