package app

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"

	"agent/internal/event"
	"agent/internal/protocol"
)

// decideEnv is a session over a git workspace and a scripted model whose
// first turn asks for two commands, then answers.
func decideEnv(t *testing.T, decides bool) *Service {
	t.Helper()
	ws := t.TempDir()
	if out, err := exec.Command("git", "-C", ws, "init", "-q").CombinedOutput(); err != nil {
		t.Fatalf("git init: %v %s", err, out)
	}
	cmd := func(id, c string) map[string]any {
		a, _ := json.Marshal(map[string]string{"command": c})
		return map[string]any{"id": id, "name": "run_command", "arguments": string(a)}
	}
	script := map[string]any{"turns": []map[string]any{
		{"text": "", "tool_calls": []map[string]any{cmd("c1", "touch one"), cmd("c2", "touch two")}},
		{"text": "done"},
	}}
	b, _ := json.Marshal(script)
	sp := filepath.Join(t.TempDir(), "script.json")
	if err := os.WriteFile(sp, b, 0o644); err != nil {
		t.Fatal(err)
	}
	set := &Settings{Workspace: ws, Home: filepath.Join(t.TempDir(), "home"), Model: "m", Approval: event.ApprovalAsk, Replay: sp, MaxSteps: 5}
	svc, err := Open(context.Background(), Options{Settings: set, Decides: decides})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(svc.Close)
	return svc
}

// A frontend answers an UpdateApproval with Run.Decide; a denial with a
// note denies the turn's other call without asking anyone.
func TestDecideLiveDenyWithNoteCancelsTheTurn(t *testing.T) {
	svc := decideEnv(t, true)
	ctx := context.Background()
	var mu sync.Mutex
	var run *Run
	var asked []string
	var approvals []*event.ApprovalData
	svc.Subscribe(func(u protocol.Update) {
		switch u.Kind {
		case protocol.UpdateApproval:
			mu.Lock()
			asked = append(asked, u.Approval.CallID)
			r := run
			mu.Unlock()
			if err := r.Decide(ctx, u.Approval.CallID, protocol.DenyCall("use make")); err != nil {
				t.Errorf("Decide: %v", err)
			}
		case protocol.UpdateEvent:
			if d, ok := u.Event.Data.(*event.ApprovalData); ok {
				approvals = append(approvals, d)
			}
		}
	})
	r, err := svc.NewRun(ctx, "make two files", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	mu.Lock()
	run = r
	mu.Unlock()
	out := r.Drive(ctx)
	if out.Status != event.StatusCompleted {
		t.Fatalf("status %s (%v), want completed: a denial with a note lets the run go on", out.Status, out.Err)
	}
	if len(asked) != 1 || asked[0] != "c1" {
		t.Fatalf("asked about %v, want only c1", asked)
	}
	if len(approvals) != 2 || approvals[0].Note != "use make" || approvals[1].CallID != "c2" ||
		approvals[1].Decision != event.Deny || approvals[1].Source != event.SourceUser || approvals[1].Reason == "" {
		t.Fatalf("approvals %+v", approvals)
	}
	if _, err := os.Stat(filepath.Join(svc.Settings().Workspace, "one")); err == nil {
		t.Fatal("a denied command ran")
	}
}

// Headless (no decider), the run pauses; Decide on the paused run is
// journaled by Resume, and a call that is not pending is refused.
func TestDecidePausedRun(t *testing.T) {
	svc := decideEnv(t, false)
	ctx := context.Background()
	r, err := svc.NewRun(ctx, "make two files", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	out := r.Drive(ctx)
	if out.Status != event.StatusAwaitingApproval || out.Pending == nil || out.Pending.CallID != "c1" {
		t.Fatalf("outcome %+v, want a pause on c1", out)
	}
	var ue *UsageError
	if err := r.Decide(ctx, "c2", protocol.AllowOnce()); !errors.As(err, &ue) {
		t.Fatalf("Decide on a call that is not pending: %v, want a usage error", err)
	}
	if err := r.Decide(ctx, "c1", protocol.Decision{Verdict: protocol.Pending}); err == nil {
		t.Fatal("pending accepted as a decision")
	}
	if err := r.Decide(ctx, "c1", protocol.AllowOnce()); err != nil {
		t.Fatal(err)
	}
	if err := r.Resume(ctx); err != nil {
		t.Fatal(err)
	}
	out = r.Drive(ctx)
	if out.Status != event.StatusAwaitingApproval || out.Pending == nil || out.Pending.CallID != "c2" {
		t.Fatalf("outcome %+v, want a pause on c2 once c1 ran", out)
	}
	if _, err := os.Stat(filepath.Join(svc.Settings().Workspace, "one")); err != nil {
		t.Fatalf("the allowed command did not run: %v", err)
	}
}
