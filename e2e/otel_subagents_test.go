package e2e

import (
	"bytes"
	"context"
	"encoding/hex"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
)

// TestOTLPSubagentSpansNested: a child run's spans are in its parent's
// trace, its run span a child of the parent's "execute_tool task" span, its
// chat and tool spans under its run span; they reach the receiver while the
// parent still runs (the parent's next command waits until the test saw
// them).
func TestOTLPSubagentSpansNested(t *testing.T) {
	rcv := newOTLPReceiver(t)
	parent := &treeScript{key: "PARENT-66", steps: []treeStep{
		{calls: []map[string]any{taskCall("call_o1", "peek", "EXPLORE-66: what does README.md say?", "explore")}},
		{calls: []map[string]any{toolCall("call_o2", "run_command", map[string]string{
			"command": "i=0; while [ ! -f go.flag ] && [ $i -lt 600 ]; do sleep 0.1; i=$((i+1)); done; test -f go.flag"})}},
		{text: "PARENT-66-DONE"}}}
	ex := &treeScript{key: "EXPLORE-66", steps: []treeStep{
		{calls: []map[string]any{toolCall("eo_1", "read_file", map[string]string{"path": "README.md"})}},
		{text: "EXPLORE-66-ANSWER"}}}
	s := newTreeServer(t, parent, ex)
	e := newEnv(t, "")
	e.url = s.url
	xdg := t.TempDir()
	os.MkdirAll(filepath.Join(xdg, "agent"), 0o755)
	if err := os.WriteFile(filepath.Join(xdg, "agent", "config.toml"), []byte("[otel]\nendpoint = \""+rcv.url+"\"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, agentBin, "run", "--model", "fake-model", "--approval", "full-auto", "PARENT-66: delegate")
	cmd.Env = e.environ("XDG_CONFIG_HOME="+xdg, "OPENAI_API_KEY=sk-test")
	cmd.Dir = e.ws
	var errb bytes.Buffer
	cmd.Stderr = &errb
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var spans []*tracepb.Span
	live := false
	for deadline := time.Now().Add(30 * time.Second); !live && time.Now().Before(deadline); {
		got, _ := rcv.take()
		spans = append(spans, got...)
		live = nestedChild(spans) != nil
		if !live {
			time.Sleep(100 * time.Millisecond)
		}
	}
	if !live {
		os.WriteFile(filepath.Join(e.ws, "go.flag"), nil, 0o644)
		cmd.Wait()
		t.Fatalf("no child run span under an execute_tool task span arrived while the parent ran (%d spans)\n%s", len(spans), errb.String())
	}
	if err := os.WriteFile(filepath.Join(e.ws, "go.flag"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := cmd.Wait(); err != nil {
		t.Fatalf("agent run: %v\n%s", err, errb.String())
	}
	got, _ := rcv.take()
	spans = append(spans, got...)

	child := nestedChild(spans)
	byID := map[string]*tracepb.Span{}
	traces := map[string]bool{}
	for _, s := range spans {
		byID[hex.EncodeToString(s.SpanId)] = s
		traces[hex.EncodeToString(s.TraceId)] = true
	}
	if len(traces) != 1 {
		t.Fatalf("%d traces, want the parent's one", len(traces))
	}
	task := byID[hex.EncodeToString(child.ParentSpanId)]
	if task == nil || task.Name != "execute_tool task" {
		t.Fatalf("the child's run span's parent is %v, want the execute_tool task span", task)
	}
	if root := byID[hex.EncodeToString(task.ParentSpanId)]; root == nil || len(root.ParentSpanId) != 0 || root.Name != "invoke_agent agent" {
		t.Fatalf("the task span's parent is not the parent run's span: %v", root)
	}
	under := map[string]int{}
	for _, s := range spans {
		if bytes.Equal(s.ParentSpanId, child.SpanId) {
			under[s.Name]++
		}
	}
	if under["chat fake-model"] != 2 || under["execute_tool read_file"] != 1 {
		t.Errorf("the child's spans under its run span: %v", under)
	}
	if child.StartTimeUnixNano < task.StartTimeUnixNano || child.EndTimeUnixNano > task.EndTimeUnixNano {
		t.Error("the child's span is not within its task call's")
	}
}

// nestedChild is a run span ("invoke_agent") whose parent is an
// "execute_tool task" span among spans, if any.
func nestedChild(spans []*tracepb.Span) *tracepb.Span {
	tasks := map[string]bool{}
	for _, s := range spans {
		if s.Name == "execute_tool task" {
			tasks[hex.EncodeToString(s.SpanId)] = true
		}
	}
	for _, s := range spans {
		if s.Name == "invoke_agent agent" && len(s.ParentSpanId) > 0 {
			// the task span ends with the parent's call: until then only
			// the child's span names it
			if tasks[hex.EncodeToString(s.ParentSpanId)] || len(tasks) == 0 {
				return s
			}
		}
	}
	return nil
}
