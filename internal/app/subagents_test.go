package app

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"

	"agent/internal/config"
	"agent/internal/event"
	"agent/internal/protocol"
)

// A worker's call that needs a person asks through the session that
// drives its parent: the question is the parent's (RunID), labelled with
// the task, and the parent's Decide answers it.
func TestChildApprovalAsksThroughTheParent(t *testing.T) {
	ws := t.TempDir()
	ws, _ = filepath.EvalSymlinks(ws)
	os.WriteFile(filepath.Join(ws, "README.md"), []byte("hi\n"), 0o644)
	for _, a := range [][]string{{"init", "-q"}, {"add", "-A"}, {"-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "init"}} {
		if out, err := exec.Command("git", append([]string{"-C", ws}, a...)...).CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v %s", a, err, out)
		}
	}
	args := func(v any) string { b, _ := json.Marshal(v); return string(b) }
	script := map[string]any{"turns": []map[string]any{
		{"tool_calls": []map[string]any{{"id": "p1", "name": "task", "arguments": args(map[string]string{"description": "log it", "prompt": "CHILD: log", "kind": "worker"})}}},
		{"tool_calls": []map[string]any{{"id": "c1", "name": "run_command", "arguments": args(map[string]string{"command": "echo x >> log.txt"})}}},
		{"text": "child done"},
		{"text": "parent done"},
	}}
	b, _ := json.Marshal(script)
	sp := filepath.Join(t.TempDir(), "script.json")
	if err := os.WriteFile(sp, b, 0o644); err != nil {
		t.Fatal(err)
	}
	set := &Settings{Workspace: ws, Home: filepath.Join(t.TempDir(), "home"), Model: "m", Approval: event.ApprovalAsk, Replay: sp, MaxSteps: 5,
		Subagents: config.DefaultSubagentsConfig()}
	svc, err := Open(context.Background(), Options{Settings: set, Decides: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(svc.Close)
	ctx := context.Background()
	var mu sync.Mutex
	var run *Run
	var asked []protocol.ApprovalRequest
	var childEvents int
	svc.Subscribe(func(u protocol.Update) {
		switch u.Kind {
		case protocol.UpdateApproval:
			mu.Lock()
			asked = append(asked, *u.Approval)
			r := run
			mu.Unlock()
			if err := r.Decide(ctx, u.Approval.CallID, protocol.Decision{Verdict: protocol.Allow, Scope: event.ScopeOnce}); err != nil {
				t.Errorf("Decide: %v", err)
			}
		case protocol.UpdateChild:
			mu.Lock()
			childEvents++
			mu.Unlock()
		}
	})
	r, err := svc.NewRun(ctx, "PARENT: delegate", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	mu.Lock()
	run = r
	mu.Unlock()
	out := r.Drive(ctx)
	if out.Status != event.StatusCompleted {
		t.Fatalf("parent ended %s: %v", out.Status, out.Err)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(asked) != 1 || asked[0].CallID != "c1" || asked[0].RunID != r.ID() || asked[0].Subagent != "log it" || asked[0].ChildRun == "" {
		t.Fatalf("asked %+v, want c1 asked on the parent %s labelled \"log it\"", asked, r.ID())
	}
	if childEvents == 0 {
		t.Fatal("no UpdateChild reached the subscriber")
	}
	if _, err := os.Stat(filepath.Join(worktreeDir(set.Home, asked[0].ChildRun), "log.txt")); err != nil {
		t.Fatalf("the approved command did not run in the worker's worktree: %v", err)
	}
}
