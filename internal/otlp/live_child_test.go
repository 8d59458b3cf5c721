package otlp_test

import (
	"bytes"
	"strings"
	"testing"

	"agent/internal/event"
	"agent/internal/otlp"
)

// TestLiveNestsAChildRun: a child run's events, observed between its
// parent's task_started and the task's result, give spans in the parent's
// trace, the child's run span under the parent's execute_tool task span;
// each run's export is audited with its own spans.
func TestLiveNestsAChildRun(t *testing.T) {
	rcv := newReceiver(t)
	rec := &recorder{}
	l := otlp.NewLive(liveOptions(t, rcv.srv.URL, rec))
	par := journal("run-p",
		&event.RunStartedData{Workspace: "/w", Model: "gpt-x"},
		&event.ModelRequestData{Step: 1},
		&event.AssistantMessageData{Step: 1, ToolCalls: []event.ToolCallRef{{ID: "t1", Name: "task", Arguments: `{}`}}},
		&event.ToolCallData{CallID: "t1", Name: "task", Arguments: `{}`, Risk: event.RiskRead},
		&event.TaskStartedData{CallID: "t1", ChildRun: "run-c", Kind: event.TaskExplore, Description: "peek", Depth: 1},
		&event.ToolResultData{CallID: "t1", Status: event.ResultOK, Output: "answer"},
		&event.RunFinishedData{Status: event.StatusCompleted})
	kid := journal("run-c",
		&event.RunStartedData{Workspace: "/w", Model: "gpt-x", ParentRun: "run-p", ParentCall: "t1"},
		&event.ModelRequestData{Step: 1},
		&event.AssistantMessageData{Step: 1, Text: "answer"},
		&event.RunFinishedData{Status: event.StatusCompleted})
	for _, ev := range par[:5] {
		l.Observe(ev)
	}
	for _, ev := range kid {
		l.Observe(ev)
	}
	for _, ev := range par[5:] {
		l.Observe(ev)
	}
	l.Close()
	spans := rcv.got()
	var task, childRoot, parentRoot []byte
	for _, s := range spans {
		switch {
		case s.Name == "execute_tool task":
			task = s.SpanId
		case s.Name == "invoke_agent agent" && len(s.ParentSpanId) == 0:
			parentRoot = s.SpanId
		case s.Name == "invoke_agent agent":
			childRoot = s.SpanId
			if !bytes.Equal(s.ParentSpanId, task) && task != nil {
				t.Errorf("the child's run span's parent is not the task span")
			}
		}
	}
	if task == nil || childRoot == nil || parentRoot == nil || len(spans) != 5 {
		t.Fatalf("%d spans; task %x, child %x, parent %x", len(spans), task, childRoot, parentRoot)
	}
	want := otlp.TraceIDOf("run-p")
	for _, s := range spans {
		if !bytes.Equal(s.TraceId, want[:]) {
			t.Errorf("%s is not in the parent's trace", s.Name)
		}
		if bytes.Equal(s.SpanId, childRoot) && !bytes.Equal(s.ParentSpanId, task) {
			t.Errorf("the child's run span's parent %x, want the task span %x", s.ParentSpanId, task)
		}
	}
	rows := strings.Join(rec.rows, "\n")
	if !strings.Contains(rows, "run-c: to OTLP") || !strings.Contains(rows, "run-c: to OTLP "+rcv.srv.URL+"/v1/traces: live export done: 2 spans sent") {
		t.Errorf("the child's export is not audited with its 2 spans:\n%s", rows)
	}
}
