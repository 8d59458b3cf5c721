package diagnose_test

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"agent/internal/diagnose"
	"agent/internal/event"
)

// journal builds a run's events one by one, as the loop journals them.
type journal struct {
	evs []event.Event
}

// add appends an event and returns its seq.
func (j *journal) add(p event.Payload) int64 {
	ev := event.New("run1", p)
	ev.Seq, ev.Time = int64(len(j.evs)+1), time.Unix(1700000000, 0).Add(time.Duration(len(j.evs))*time.Second)
	j.evs = append(j.evs, ev)
	return ev.Seq
}

func (j *journal) start(approval event.ApprovalMode) {
	j.add(&event.RunStartedData{Workspace: "/ws", Model: "m", Approval: approval})
	j.add(&event.UserMessageData{Text: "fix the build"})
}

// turn journals a model request and its answer calling one tool.
func (j *journal) turn(step int, id, name string, args map[string]any) {
	b, _ := json.Marshal(args)
	j.add(&event.ModelRequestData{Step: step})
	j.add(&event.AssistantMessageData{Step: step, ToolCalls: []event.ToolCallRef{{ID: id, Name: name, Arguments: string(b)}}})
	j.add(&event.ToolCallData{CallID: id, Name: name, Arguments: string(b), Risk: event.RiskExec})
}

// failingEdit is one edit_file call that fails the same way each time.
func (j *journal) failingEdit(step int, id string) int64 {
	j.turn(step, id, "edit_file", map[string]any{"path": "a.txt", "old_string": "nope", "new_string": "x"})
	j.add(&event.CheckpointData{CheckpointID: "cp" + id, CallID: id, Kind: event.CheckpointBefore})
	return j.add(&event.ToolResultData{CallID: id, Status: event.ResultError, Output: "old_string not found in a.txt\nread the file first"})
}

func (j *journal) ruleDenied(step int, id string) int64 {
	j.turn(step, id, "run_command", map[string]any{"command": "rm -rf build"})
	seq := j.add(&event.ApprovalData{CallID: id, Decision: event.Deny, Scope: event.ScopeOnce, Source: event.SourceRule, Rule: "run_command(rm *)"})
	j.add(&event.ToolResultData{CallID: id, Status: event.ResultDenied, Output: "denied: run_command was not run (denied by rule run_command(rm *))"})
	return seq
}

func (j *journal) fail(class event.Class, msg string) int64 {
	return j.add(&event.ErrorData{Class: class, Message: string(class) + " error: " + msg})
}

func (j *journal) finish(s event.Status) {
	j.add(&event.RunFinishedData{Status: s})
}

func TestClassifyRules(t *testing.T) {
	tests := []struct {
		name   string
		build  func(j *journal) int64 // returns the deciding seq (0: no diagnosis)
		status event.Status
		class  event.Class
		reason string // a part of the reason
	}{
		{
			name:   "a person's denial without a note stops the turn: permission at that approval",
			status: event.StatusStopped, class: event.ClassPermission,
			reason: "the person denied run_command `rm -rf build` and stopped the turn",
			build: func(j *journal) int64 {
				j.start("ask")
				j.turn(1, "call_1", "run_command", map[string]any{"command": "rm -rf build"})
				seq := j.add(&event.ApprovalData{CallID: "call_1", Decision: event.Deny, Scope: event.ScopeOnce, Source: event.SourceUser})
				j.add(&event.ToolResultData{CallID: "call_1", Status: event.ResultDenied, Output: "denied: run_command was not run (denied by the user)"})
				return seq
			},
		},
		{
			name:   "the calls a person's denial cancelled do not decide: the denial does",
			status: event.StatusStopped, class: event.ClassPermission,
			reason: "the person denied write_file `notes.md`",
			build: func(j *journal) int64 {
				j.start("ask")
				j.add(&event.ModelRequestData{Step: 1})
				j.add(&event.AssistantMessageData{Step: 1, ToolCalls: []event.ToolCallRef{
					{ID: "c1", Name: "write_file", Arguments: `{"path":"notes.md","content":"x"}`},
					{ID: "c2", Name: "run_command", Arguments: `{"command":"make"}`}}})
				j.add(&event.ToolCallData{CallID: "c1", Name: "write_file", Arguments: `{"path":"notes.md","content":"x"}`, Risk: event.RiskWrite})
				seq := j.add(&event.ApprovalData{CallID: "c1", Decision: event.Deny, Source: event.SourceUser})
				j.add(&event.ToolResultData{CallID: "c1", Status: event.ResultDenied})
				j.add(&event.ToolCallData{CallID: "c2", Name: "run_command", Arguments: `{"command":"make"}`, Risk: event.RiskExec})
				j.add(&event.ApprovalData{CallID: "c2", Decision: event.Deny, Source: event.SourceUser, Reason: "not run: the person denied c1, which ends the turn"})
				j.add(&event.ToolResultData{CallID: "c2", Status: event.ResultDenied})
				return seq
			},
		},
		{
			name:   "a stop with no person's denial on record is runtime",
			status: event.StatusStopped, class: event.ClassRuntime, reason: "no person's denial",
			build: func(j *journal) int64 {
				j.start("ask")
				return j.add(&event.ModelRequestData{Step: 1})
			},
		},
		{
			name:   "a model or transport error is model, at the error",
			status: event.StatusFailed, class: event.ClassModel,
			reason: "the model request failed: model request: HTTP 500 after 5 attempts",
			build: func(j *journal) int64 {
				j.start("full-auto")
				j.add(&event.ModelRequestData{Step: 1})
				return j.fail(event.ClassModel, "model request: HTTP 500 after 5 attempts")
			},
		},
		{
			name:   "the same failing call three times is tool, at its third result",
			status: event.StatusFailed, class: event.ClassTool,
			reason: "the model repeated the same failing edit_file `a.txt` 3 times: old_string not found in a.txt",
			build: func(j *journal) int64 {
				j.start("full-auto")
				j.failingEdit(1, "call_1")
				j.failingEdit(2, "call_2")
				seq := j.failingEdit(3, "call_3")
				j.fail(event.ClassTool, "the model repeated the same failing edit_file call 3 times: old_string not found in a.txt")
				return seq
			},
		},
		{
			name:   "identical failures across a resume count together",
			status: event.StatusFailed, class: event.ClassTool, reason: "3 times",
			build: func(j *journal) int64 {
				j.start("full-auto")
				j.failingEdit(1, "call_1")
				j.finish(event.StatusInterrupted)
				j.add(&event.ResumeData{FromSeq: 9})
				j.failingEdit(2, "call_2")
				seq := j.failingEdit(3, "call_3")
				j.fail(event.ClassTool, "the model repeated the same failing edit_file call 3 times: old_string not found")
				return seq
			},
		},
		{
			name:   "a tool error without the repeats on record is tool, at the error",
			status: event.StatusFailed, class: event.ClassTool, reason: "a tool failed: boom",
			build: func(j *journal) int64 {
				j.start("full-auto")
				j.failingEdit(1, "call_1")
				return j.fail(event.ClassTool, "boom")
			},
		},
		{
			name:   "--max-steps is runtime, at the error",
			status: event.StatusFailed, class: event.ClassRuntime, reason: "ran out of steps: reached --max-steps 2",
			build: func(j *journal) int64 {
				j.start("full-auto")
				j.turn(1, "c1", "read_file", map[string]any{"path": "a.txt"})
				j.add(&event.ToolResultData{CallID: "c1", Status: event.ResultOK, Output: "v1"})
				j.turn(2, "c2", "read_file", map[string]any{"path": "a.txt"})
				j.add(&event.ToolResultData{CallID: "c2", Status: event.ResultOK, Output: "v1"})
				return j.fail(event.ClassRuntime, "reached --max-steps 2 without a final answer; raise --max-steps or narrow the request")
			},
		},
		{
			name:   "a policy that denied the same call three times ended the run: permission, at the last denial",
			status: event.StatusFailed, class: event.ClassPermission,
			reason: "rule run_command(rm *) denied run_command `rm -rf build` 3 times",
			build: func(j *journal) int64 {
				j.start("full-auto")
				j.ruleDenied(1, "c1")
				j.ruleDenied(2, "c2")
				seq := j.ruleDenied(3, "c3")
				j.fail(event.ClassRuntime, "reached --max-steps 3 without a final answer")
				return seq
			},
		},
		{
			name:   "two policy denials do not outweigh the step budget",
			status: event.StatusFailed, class: event.ClassRuntime, reason: "--max-steps 2",
			build: func(j *journal) int64 {
				j.start("full-auto")
				j.ruleDenied(1, "c1")
				j.ruleDenied(2, "c2")
				return j.fail(event.ClassRuntime, "reached --max-steps 2 without a final answer")
			},
		},
		{
			name:   "a person's denials with a note are not a policy",
			status: event.StatusFailed, class: event.ClassRuntime, reason: "--max-steps 3",
			build: func(j *journal) int64 {
				j.start("ask")
				for i, id := range []string{"c1", "c2", "c3"} {
					j.turn(i+1, id, "run_command", map[string]any{"command": "rm -rf build"})
					j.add(&event.ApprovalData{CallID: id, Decision: event.Deny, Source: event.SourceUser, Note: "use make clean"})
					j.add(&event.ToolResultData{CallID: id, Status: event.ResultDenied, Output: "denied: run_command was not run. The user said: use make clean"})
				}
				return j.fail(event.ClassRuntime, "reached --max-steps 3 without a final answer")
			},
		},
		{
			name:   "the budget failure is context",
			status: event.StatusFailed, class: event.ClassContext, reason: "within its budget: the pinned layers need 9000 tokens",
			build: func(j *journal) int64 {
				j.start("full-auto")
				return j.fail(event.ClassContext, "the pinned layers need 9000 tokens")
			},
		},
		{
			name:   "an approver that cannot decide is permission",
			status: event.StatusFailed, class: event.ClassPermission, reason: "could not be decided: no terminal",
			build: func(j *journal) int64 {
				j.start("ask")
				j.turn(1, "c1", "run_command", map[string]any{"command": "make"})
				return j.fail(event.ClassPermission, "no terminal")
			},
		},
		{
			name:   "any other runtime error is runtime",
			status: event.StatusFailed, class: event.ClassRuntime, reason: "journal: disk full",
			build: func(j *journal) int64 {
				j.start("full-auto")
				return j.fail(event.ClassRuntime, "journal: disk full")
			},
		},
		{
			name:   "a failure without an error event is runtime, at the last event",
			status: event.StatusFailed, class: event.ClassRuntime, reason: "without an error on record",
			build: func(j *journal) int64 {
				j.start("full-auto")
				return j.add(&event.ModelRequestData{Step: 1})
			},
		},
		{
			name:   "only the stretch that ends decides: an earlier stop does not make a later max-steps permission",
			status: event.StatusFailed, class: event.ClassRuntime, reason: "--max-steps 1",
			build: func(j *journal) int64 {
				j.start("ask")
				j.turn(1, "c1", "run_command", map[string]any{"command": "rm -rf build"})
				j.add(&event.ApprovalData{CallID: "c1", Decision: event.Deny, Source: event.SourceUser})
				j.add(&event.ToolResultData{CallID: "c1", Status: event.ResultDenied})
				j.finish(event.StatusStopped)
				j.add(&event.UserMessageData{Text: "try again"})
				j.add(&event.ModelRequestData{Step: 2})
				return j.fail(event.ClassRuntime, "reached --max-steps 1 without a final answer")
			},
		},
		{
			name: "an interrupted run is not failed", status: event.StatusInterrupted,
			build: func(j *journal) int64 {
				j.start("full-auto")
				j.failingEdit(1, "c1")
				return 0
			},
		},
		{
			name: "a completed run has no diagnosis", status: event.StatusCompleted,
			build: func(j *journal) int64 {
				j.start("full-auto")
				j.fail(event.ClassModel, "an earlier error that a retry got past")
				return 0
			},
		},
		{
			name: "a paused run has no diagnosis", status: event.StatusAwaitingApproval,
			build: func(j *journal) int64 { j.start("ask"); return 0 },
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			j := &journal{}
			want := tc.build(j)
			got := diagnose.Classify(tc.status, j.evs)
			if want == 0 {
				if got != nil {
					t.Fatalf("Classify(%s) = %+v, want no diagnosis", tc.status, *got)
				}
				return
			}
			if got == nil {
				t.Fatalf("Classify(%s) = nil, want class %s at seq %d", tc.status, tc.class, want)
			}
			if got.Class != tc.class || got.Seq != want || !strings.Contains(got.Reason, tc.reason) {
				t.Errorf("Classify(%s) = %+v,\nwant class %s, seq %d, reason containing %q", tc.status, *got, tc.class, want, tc.reason)
			}
			if strings.ContainsAny(got.Reason, "\n\r") || len([]rune(got.Reason)) > 240 {
				t.Errorf("reason is not one short line: %q", got.Reason)
			}
			// Diagnose, the path of agent trace for older runs, agrees.
			j.finish(tc.status)
			if d := diagnose.Diagnose(j.evs); d == nil || *d != *got {
				t.Errorf("Diagnose = %v, want %+v", d, *got)
			}
		})
	}
}

// A journaled diagnosis is kept as it is; a run that has not finished has none.
func TestDiagnoseJournaled(t *testing.T) {
	j := &journal{}
	j.start("full-auto")
	if d := diagnose.Diagnose(j.evs); d != nil {
		t.Fatalf("a run without run_finished got %+v", *d)
	}
	j.fail(event.ClassModel, "x")
	kept := &event.FailureInfo{Class: event.ClassTool, Seq: 2, Reason: "as the loop saw it"}
	j.add(&event.RunFinishedData{Status: event.StatusFailed, Failure: kept})
	if d := diagnose.Diagnose(j.evs); d != kept {
		t.Fatalf("Diagnose = %+v, want the journaled %+v", d, *kept)
	}
	if d := diagnose.Diagnose(nil); d != nil {
		t.Fatalf("Diagnose(nil) = %+v", *d)
	}
}

// A reason is one line even when the error is long and multi-line.
func TestReasonIsOneLine(t *testing.T) {
	j := &journal{}
	j.start("full-auto")
	seq := j.fail(event.ClassModel, strings.Repeat("line one\n", 100))
	got := diagnose.Classify(event.StatusFailed, j.evs)
	if got == nil || got.Seq != seq || strings.Contains(got.Reason, "\n") || len([]rune(got.Reason)) > 240 || !strings.HasSuffix(got.Reason, "…") {
		t.Fatalf("got %+v", got)
	}
}

// The cost of a diagnosis at the end of a long failed run (1000 tool calls).
func BenchmarkClassifyLongRun(b *testing.B) {
	j := &journal{}
	j.start("full-auto")
	for i := range 1000 {
		id := "c" + string(rune('a'+i%26)) + string(rune('a'+i/26%26))
		j.turn(i+1, id, "run_command", map[string]any{"command": "go test ./..."})
		j.add(&event.ToolResultData{CallID: id, Status: event.ResultOK, Output: strings.Repeat("ok\n", 50)})
	}
	j.fail(event.ClassRuntime, "reached --max-steps 1000 without a final answer")
	b.ReportAllocs()
	for b.Loop() {
		if diagnose.Classify(event.StatusFailed, j.evs) == nil {
			b.Fatal("no diagnosis")
		}
	}
}
