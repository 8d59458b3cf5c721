package app

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"agent/internal/event"
	"agent/internal/protocol"
)

// A person's own rule for "allow for this run" (touch *) is refused while
// it does not cover the call (the call still waits), then granted: the
// turn's second command, which the exact rule would not cover, runs under
// it without asking.
func TestAllowForRunWithOwnRule(t *testing.T) {
	svc := decideEnv(t, true)
	ctx := context.Background()
	var mu sync.Mutex
	var run *Run
	var asked []string
	var refused error
	var approvals []*event.ApprovalData
	svc.Subscribe(func(u protocol.Update) {
		switch u.Kind {
		case protocol.UpdateApproval:
			mu.Lock()
			asked = append(asked, u.Approval.CallID)
			r := run
			mu.Unlock()
			bad := protocol.AllowRun()
			bad.Rule = "run_command(rm *)"
			refused = r.Decide(ctx, u.Approval.CallID, bad)
			good := protocol.AllowRun()
			good.Rule = "run_command(touch *)"
			if err := r.Decide(ctx, u.Approval.CallID, good); err != nil {
				t.Errorf("Decide with a covering rule: %v", err)
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
	if out := r.Drive(ctx); out.Status != event.StatusCompleted {
		t.Fatalf("status %s (%v)", out.Status, out.Err)
	}
	if refused == nil || !strings.Contains(refused.Error(), "does not cover this call") {
		t.Errorf("a rule that does not cover the call: %v, want refused", refused)
	}
	if len(asked) != 1 {
		t.Errorf("asked about %v, want c1 only: c2 falls under the person's rule", asked)
	}
	if len(approvals) != 2 || approvals[0].Grant != "run_command(touch *)" || approvals[1].Rule != "run_command(touch *)" {
		t.Errorf("approvals %+v, want the grant run_command(touch *) and c2 allowed by it", approvals)
	}
	for _, f := range []string{"one", "two"} {
		if _, err := os.Stat(filepath.Join(svc.Settings().Workspace, f)); err != nil {
			t.Errorf("%s was not made: %v", f, err)
		}
	}
	if err := (protocol.Decision{Verdict: protocol.Deny, Rule: "x"}).Check(); err == nil {
		t.Error("a denial with a rule passed Check")
	}
}
