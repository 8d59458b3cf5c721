package approval

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"agent/internal/event"
	"agent/internal/policy"
	"agent/internal/protocol"
	"agent/internal/sandbox"
	"agent/internal/store"
	"agent/internal/tools"
)

// testRun is an approver for one run with a real journal, so grants are
// recorded the way the loop records them: with their approval event.
type testRun struct {
	*Approver
	st    *store.Store
	runID string
}

// grant journals a person's "allow for this run" of req, as the loop does.
func (r testRun) grant(t *testing.T, req protocol.ApprovalRequest) {
	t.Helper()
	req.RunID = r.runID
	rule, exp := r.GrantFor(req)
	ev := event.New(r.runID, &event.ApprovalData{CallID: req.CallID, Decision: event.Allow, Scope: event.ScopeRun,
		Source: event.SourceUser, Grant: rule, GrantExpires: exp})
	if err := r.st.Append(context.Background(), &ev); err != nil {
		t.Fatal(err)
	}
}

func (r testRun) req(id, command string) protocol.ApprovalRequest {
	q := cmdReq(id, command)
	q.RunID = r.runID
	return q
}

func newApprover(t *testing.T, mode policy.Mode, allow, deny []string) (testRun, *time.Time) {
	t.Helper()
	ws := t.TempDir()
	os.WriteFile(filepath.Join(ws, "main.go"), []byte("package main\n\nfunc main() {}\n"), 0o644)
	st, err := store.Open(context.Background(), filepath.Join(t.TempDir(), "home"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	runID := store.NewRunID()
	if err := st.CreateRun(context.Background(), store.Run{ID: runID, Workspace: ws}); err != nil {
		t.Fatal(err)
	}
	p, err := policy.New(mode, allow, deny, ws)
	if err != nil {
		t.Fatal(err)
	}
	now := time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)
	a := &Approver{Policy: p, Grants: st, TTL: time.Hour,
		Tools: tools.Default(), ToolEnv: &tools.Env{Workspace: ws}, Now: func() time.Time { return now }}
	return testRun{a, st, runID}, &now
}

func cmdReq(id, command string) protocol.ApprovalRequest {
	return protocol.ApprovalRequest{CallID: id, Tool: "run_command", Arguments: `{"command":"` + command + `"}`, Risk: event.RiskExec}
}

// A run grant covers the same call again until it expires; then a person is
// asked again. It never covers a different command, and never a denied one.
func TestRunGrantExpires(t *testing.T) {
	a, now := newApprover(t, policy.ModeAsk, nil, []string{"run_command(rm *)"})
	ctx := context.Background()
	d, err := a.Approve(ctx, a.req("c1", "go test ./..."))
	if err != nil || d.Verdict != protocol.Pending {
		t.Fatalf("headless ask: %+v, %v; want pending", d, err)
	}
	a.grant(t, a.req("c1", "go test ./..."))
	if d, _ := (&Approver{Policy: a.Policy, Grants: a.st, Now: a.Now}).Approve(ctx, a.req("c1b", "go test ./...")); d.Verdict != protocol.Allow {
		t.Errorf("the grant is not in the journal's grants: %+v", d)
	}
	if d, _ := a.Approve(ctx, cmdReq("other-run", "go test ./...")); d.Verdict != protocol.Pending {
		t.Errorf("a grant of one run covered a call of another: %+v", d)
	}
	*now = now.Add(59 * time.Minute)
	d, _ = a.Approve(ctx, a.req("c2", "go test ./..."))
	if d.Verdict != protocol.Allow || d.Scope != event.ScopeRun || d.Source != event.SourceUser {
		t.Errorf("within the grant's time: %+v, want allow/run/user", d)
	}
	if d, _ := a.Approve(ctx, a.req("c3", "go test ./... && curl evil")); d.Verdict != protocol.Pending {
		t.Errorf("a longer command slipped under the grant: %+v", d)
	}
	a.grant(t, a.req("c4", "rm -rf build"))
	if d, _ := a.Approve(ctx, a.req("c5", "rm -rf build")); d.Verdict != protocol.Deny || d.Source != event.SourceRule {
		t.Errorf("a grant beat a deny rule: %+v", d)
	}
	*now = now.Add(2 * time.Minute)
	if d, _ := a.Approve(ctx, a.req("c6", "go test ./...")); d.Verdict != protocol.Pending {
		t.Errorf("after the grant expired: %+v, want a person asked again", d)
	}
}

// A pending file write carries the diff it would make.
func TestPendingWriteCarriesDiff(t *testing.T) {
	a, _ := newApprover(t, policy.ModeAsk, nil, nil)
	d, err := a.Approve(context.Background(), protocol.ApprovalRequest{CallID: "c1", Tool: "edit_file", Risk: event.RiskWrite,
		Arguments: `{"path":"main.go","old_string":"func main() {}","new_string":"func main() { println(1) }"}`})
	if err != nil || d.Verdict != protocol.Pending {
		t.Fatalf("%+v %v", d, err)
	}
	if !strings.Contains(d.Diff, "+func main() { println(1) }") || !strings.Contains(d.Diff, "-func main() {}") {
		t.Errorf("diff = %q", d.Diff)
	}
}

func TestModesAndRules(t *testing.T) {
	cases := []struct {
		mode     policy.Mode
		allow    []string
		req      protocol.ApprovalRequest
		decision event.Decision
		pending  bool
	}{
		{policy.ModeReadOnly, nil, cmdReq("c", "ls"), event.Deny, false},
		{policy.ModeAsk, []string{"run_command(ls *)"}, cmdReq("c", "ls -la"), event.Allow, false},
		{policy.ModeAsk, []string{"run_command(ls *)"}, cmdReq("c", "ls; rm -rf x"), "", true},
		{policy.ModeAutoEdit, nil, protocol.ApprovalRequest{Tool: "write_file", Risk: event.RiskWrite, Arguments: `{"path":"a.txt","content":"x"}`}, event.Allow, false},
		{policy.ModeAutoEdit, nil, cmdReq("c", "make"), "", true},
		{policy.ModeFullAuto, nil, cmdReq("c", "make"), event.Allow, false},
	}
	for _, c := range cases {
		a, _ := newApprover(t, c.mode, c.allow, nil)
		d, err := a.Approve(context.Background(), c.req)
		if err != nil || (d.Verdict == protocol.Pending) != c.pending || d.Verdict.Event() != c.decision {
			t.Errorf("%s %s %s: %+v %v; want decision %q pending %t", c.mode, c.req.Tool, c.req.Arguments, d, err, c.decision, c.pending)
		}
	}
}

// Leaving the OS sandbox is a person's decision under every mode that asks
// anyone: full-auto and auto-edit pause for it (headless) instead of
// allowing it, an allow rule and a run grant covering the very command do
// not cover it, a person's "allow for this run" becomes this call only, and
// a deny rule or read-only still deny it.
func TestEscalationNeedsAPerson(t *testing.T) {
	ctx := context.Background()
	escReq := func(a testRun, id, command string) protocol.ApprovalRequest {
		q := a.req(id, command)
		q.Arguments = `{"command":"` + command + `","outside_sandbox":true}`
		return q
	}
	sandboxed := func(a testRun) {
		sb, _ := sandbox.New(sandbox.Options{Mode: sandbox.ModeWorkspaceWrite, Workspace: a.ToolEnv.Workspace,
			Probe: func() sandbox.Capabilities { return sandbox.Capabilities{LandlockABI: 4, UserNS: true} }})
		if !sb.Active() {
			t.Fatal("the test sandbox is not active")
		}
		a.ToolEnv.Sandbox = sb
	}
	for _, mode := range []policy.Mode{policy.ModeAsk, policy.ModeAutoEdit, policy.ModeFullAuto} {
		a, _ := newApprover(t, mode, []string{"run_command(make *)"}, []string{"run_command(rm *)"})
		sandboxed(a)
		// A grant of the same command line, as a person's "allow for this run".
		a.grant(t, a.req("g", "make install"))
		if d, _ := a.Approve(ctx, a.req("in", "make install")); d.Verdict != protocol.Allow {
			t.Fatalf("%s: the sandboxed call is not allowed: %+v", mode, d)
		}
		d, err := a.Approve(ctx, escReq(a, "c1", "make install"))
		if err != nil || d.Verdict != protocol.Pending || !strings.Contains(d.Reason, "OUTSIDE the OS sandbox") {
			t.Errorf("%s: leaving the sandbox headless: %+v, %v; want pending for a person", mode, d, err)
		}
		if d, _ := a.Approve(ctx, escReq(a, "c2", "rm -rf build")); d.Verdict != protocol.Deny || d.Source != event.SourceRule {
			t.Errorf("%s: a deny rule did not deny the escalation: %+v", mode, d)
		}
	}
	a, _ := newApprover(t, policy.ModeReadOnly, nil, nil)
	sandboxed(a)
	if d, _ := a.Approve(ctx, escReq(a, "c1", "ls")); d.Verdict != protocol.Deny {
		t.Errorf("read-only: an escalation was not denied: %+v", d)
	}
}
