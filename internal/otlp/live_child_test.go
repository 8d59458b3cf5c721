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

// TestLiveKeepsAResumedChildInItsParentsTrace: after a restart, a child's
// events start with its resume and do not name the parent; Lineage does,
// and the child's new stretch goes into the parent's trace, under the
// child's first run span.
func TestLiveKeepsAResumedChildInItsParentsTrace(t *testing.T) {
	rcv := newReceiver(t)
	rec := &recorder{}
	opt := liveOptions(t, rcv.srv.URL, rec)
	asked := 0
	opt.Lineage = func(run string) (string, string, bool) {
		asked++
		if run == "run-c" {
			return "run-p", "t1", true
		}
		return "", "", false
	}
	l := otlp.NewLive(opt)
	par := journal("run-p",
		&event.ResumeData{FromSeq: 5, Interrupted: []event.InterruptedCall{{CallID: "t1", Name: "task"}}},
		&event.ToolResultData{CallID: "t1", Status: event.ResultOK, Output: "answer"},
		&event.RunFinishedData{Status: event.StatusCompleted})
	kid := journal("run-c",
		&event.ResumeData{FromSeq: 3},
		&event.ModelRequestData{Step: 2},
		&event.AssistantMessageData{Step: 2, Text: "answer"},
		&event.RunFinishedData{Status: event.StatusCompleted})
	l.Observe(par[0])
	for _, ev := range kid {
		l.Observe(ev)
	}
	l.Observe(par[1])
	l.Observe(par[2])
	l.Close()
	want := otlp.TraceIDOf("run-p")
	n := 0
	for _, s := range rcv.got() {
		n++
		if !bytes.Equal(s.TraceId, want[:]) {
			t.Errorf("%s (%x) is not in the parent's trace", s.Name, s.SpanId)
		}
	}
	if n != 4 || asked != 2 { // 2 stretches, a chat, a tool; each run's lineage asked once
		t.Errorf("%d spans, lineage asked %d times", n, asked)
	}
}
