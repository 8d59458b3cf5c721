package agent_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"agent/internal/agent"
	"agent/internal/approval"
	"agent/internal/contextbuild"
	"agent/internal/event"
	"agent/internal/policy"
	"agent/internal/protocol"
	"agent/internal/redact"
	"agent/internal/replay"
	"agent/internal/store"
	"agent/internal/tools"
)

// A running command's output reaches the observer while it runs, redacted
// (a key printed by the command never shows), and nothing of it comes
// after the call's result; the journal gets no event for it.
func TestCommandOutputIsLive(t *testing.T) {
	ws := t.TempDir()
	st, err := store.Open(context.Background(), filepath.Join(t.TempDir(), "home"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	key := "sk-proj-Zq8vLm3pXr7tNw2kQ9sB4yHc6jFd1gRa5eUo0iPl2mKn7bVx"
	// the command makes the key from halves: a call holding the key itself
	// would be redacted before it runs
	cmd := `a=` + key[:30] + `; b=` + key[30:] + `; echo first; echo "OPENAI_API_KEY=$a$b"; echo; while [ ! -e release ]; do sleep 0.02; done; echo last`
	sc, err := replay.Parse([]byte(`{"turns": [
		{"tool_calls": [{"id": "x1", "name": "run_command", "arguments": ` + jsonString(t, `{"command":`+jsonString(t, cmd)+`}`) + `}]},
		{"text": "done"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var tails []string
	resulted := false
	late := 0
	seen := make(chan struct{}, 1)
	pol, _ := policy.New(policy.ModeFullAuto, nil, nil, ws)
	r := &agent.Runner{
		Provider: replay.NewScripted(sc), Tools: tools.Default(), Journal: st, Redactor: redact.New(redact.Config{}),
		Approver: &approval.Approver{Policy: pol},
		Context:  contextbuild.MustNew(ws, "m", 0, tools.Default()), ToolEnv: &tools.Env{Workspace: ws},
		Observer: agent.Observer{
			Output: func(o protocol.CommandOutput) {
				mu.Lock()
				defer mu.Unlock()
				if o.CallID != "x1" {
					t.Errorf("output of call %q", o.CallID)
				}
				if resulted {
					late++
				}
				tails = append(tails, o.Tail)
				if strings.Contains(o.Tail, "[REDACTED:") {
					select {
					case seen <- struct{}{}:
					default:
					}
				}
			},
			Event: func(ev event.Event) {
				if ev.Type == event.ToolResult {
					mu.Lock()
					resulted = true
					mu.Unlock()
				}
			},
		},
	}
	runID := store.NewRunID()
	if err := st.CreateRun(context.Background(), store.Run{ID: runID, Workspace: ws}); err != nil {
		t.Fatal(err)
	}
	s := agent.NewState(runID, ws, "m", "full-auto")
	if err := r.Start(context.Background(), s, "go"); err != nil {
		t.Fatal(err)
	}
	done := make(chan protocol.Outcome, 1)
	go func() { done <- r.Run(context.Background(), s) }()
	select {
	case <-seen:
	case out := <-done:
		evs, _ := st.Events(context.Background(), runID, 0)
		for _, ev := range evs {
			t.Logf("%s %+v", ev.Type, ev.Data)
		}
		t.Fatalf("the run ended (%+v) before any output was shown: %q", out, tails)
	case <-time.After(20 * time.Second):
		mu.Lock()
		t.Fatalf("no redacted live output while the command waits: %q", tails)
	}
	mu.Lock()
	last := tails[len(tails)-1]
	mu.Unlock()
	if !strings.Contains(last, "first\n") || strings.Contains(last, "last") {
		t.Errorf("the live tail while the command waits is %q", last)
	}
	if err := os.WriteFile(filepath.Join(ws, "release"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if out := <-done; out.Status != event.StatusCompleted {
		t.Fatalf("run: %+v", out)
	}
	mu.Lock()
	defer mu.Unlock()
	for _, tl := range tails {
		if strings.Contains(tl, key[8:24]) {
			t.Fatalf("the key was shown live: %q", tl)
		}
	}
	if late > 0 {
		t.Errorf("%d live outputs came after the call's result", late)
	}
	evs, err := st.Events(context.Background(), runID, 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, ev := range evs {
		if d, ok := ev.Data.(*event.ToolResultData); ok && !strings.Contains(d.Output, "last") {
			t.Errorf("the result lacks the end of the output: %q", d.Output)
		}
	}
}

func jsonString(t *testing.T, s string) string {
	t.Helper()
	b, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
