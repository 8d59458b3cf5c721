package app

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"agent/internal/event"
)

// homeEnv runs, in full-auto, a scripted run that writes greet.txt, edits
// it, and answers: two calls, each with a before and an after checkpoint.
func homeEnv(t *testing.T) (*Service, *Run) {
	t.Helper()
	ws := t.TempDir()
	if out, err := exec.Command("git", "-C", ws, "init", "-q").CombinedOutput(); err != nil {
		t.Fatalf("git init: %v %s", err, out)
	}
	call := func(id, name string, args map[string]string) map[string]any {
		a, _ := json.Marshal(args)
		return map[string]any{"id": id, "name": name, "arguments": string(a)}
	}
	script := map[string]any{"turns": []map[string]any{
		{"tool_calls": []map[string]any{call("w1", "write_file", map[string]string{"path": "greet.txt", "content": "hello\n"})}},
		{"tool_calls": []map[string]any{call("e1", "edit_file", map[string]string{"path": "greet.txt", "old_string": "hello", "new_string": "hello, world"})}},
		{"text": "done"},
	}}
	b, _ := json.Marshal(script)
	sp := filepath.Join(t.TempDir(), "script.json")
	if err := os.WriteFile(sp, b, 0o644); err != nil {
		t.Fatal(err)
	}
	set := &Settings{Workspace: ws, Home: filepath.Join(t.TempDir(), "home"), Model: "m", Approval: event.ApprovalFullAuto, Replay: sp, MaxSteps: 5}
	svc, err := Open(context.Background(), Options{Settings: set})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(svc.Close)
	r, err := svc.NewRun(context.Background(), "greet", nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(r.Close)
	if out := r.Drive(context.Background()); out.Status != event.StatusCompleted {
		t.Fatalf("run ended %s (%v), want completed", out.Status, out.Err)
	}
	return svc, r
}

// Home answers what the frontends ask: the model request at a step, the
// checkpoints paired and counted, the run's changes, a checkpoint's
// preview (also the one that undoes a rollback), the audit log by a
// prefix, and the same from a Home opened read-only without a session.
func TestHomeAnswersTheFrontends(t *testing.T) {
	svc, run := homeEnv(t)
	id := run.ID()
	ctx := context.Background()
	h := svc.Home()

	req, err := h.Request(ctx, id[:len(id)-2], 0)
	if err != nil || req.RunID != id || req.Request == nil || req.Request.Step != 3 {
		t.Fatalf("Request(prefix, last) = %+v, %v; want step 3 of run %s", req, err, id)
	}
	if req, err := h.Request(ctx, id, 2); err != nil || req.Request.Step != 2 {
		t.Errorf("Request(step 2) = %+v, %v", req, err)
	}
	var ue *UsageError
	if _, err := h.Request(ctx, id, 9); !errors.As(err, &ue) || !strings.Contains(err.Error(), "has no step 9 (steps 1..3)") {
		t.Errorf("Request(step 9) = %v, want a usage error naming the steps", err)
	}
	if _, err := h.Request(ctx, "19990101T000000-zzzzzz", 0); !IsNotFound(err) {
		t.Errorf("Request(unknown run) = %v, want not found", err)
	}

	cps, err := h.Checkpoints(ctx, id, CheckpointOptions{Counts: true})
	if err != nil || len(cps) != 4 {
		t.Fatalf("Checkpoints = %d, %v; want 4 (before and after of two calls)", len(cps), err)
	}
	for _, c := range cps {
		if c.Kind == event.CheckpointAfter && (!c.Paired() || c.Before == "" || c.Added != 1) {
			t.Errorf("after-checkpoint of %s (%s): paired %v, +%d -%d; want paired with its before, +1", c.CallID, c.Tool, c.Paired(), c.Added, c.Removed)
		}
	}
	if cps[3].Removed != 1 || cps[3].Tool != "edit_file" {
		t.Errorf("the edit's after-checkpoint: %s -%d, want edit_file -1", cps[3].Tool, cps[3].Removed)
	}

	patch, changed, err := h.Changes(ctx, id)
	if err != nil || !changed || !strings.Contains(patch, "+hello, world") {
		t.Errorf("Changes = %q, %v, %v; want the new file", patch, changed, err)
	}
	head, err := h.Head(ctx, id)
	if err != nil || head != cps[3].ID {
		t.Errorf("Head = %s, %v; want the edit's after-checkpoint %s", head, err, cps[3].ID)
	}
	if pv, err := h.Preview(ctx, id, head); err != nil || !pv.Newest || pv.UndoesRollback || pv.Patch != "" {
		t.Errorf("Preview(head) = %+v, %v; want the newest, nothing changed since", pv, err)
	}
	pv, err := h.Preview(ctx, id, cps[2].ID) // before the edit
	if err != nil || pv.Newest || !strings.Contains(pv.Patch, "-hello, world") || !strings.Contains(pv.Patch, "+hello\n") {
		t.Fatalf("Preview(before the edit) = %+v, %v; want what the rollback does: the edit undone", pv, err)
	}

	res, err := svc.Rollback(ctx, cps[2].ID, RollbackOptions{Files: true}, run)
	if err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(filepath.Join(svc.Settings().Workspace, "greet.txt")); string(b) != "hello\n" {
		t.Fatalf("after the rollback greet.txt = %q", b)
	}
	pv, err = h.Preview(ctx, id, res.Before)
	if err != nil || !pv.Newest || !pv.UndoesRollback || !strings.Contains(pv.Patch, "+hello, world") {
		t.Errorf("Preview(the rollback's own checkpoint) = %+v, %v; want what undoing the rollback brings back", pv, err)
	}
	after, err := h.Checkpoints(ctx, id, CheckpointOptions{Counts: true})
	if err != nil || len(after) != 5 || after[4].Kind != event.CheckpointRollback || after[4].Added != 1 || after[4].Removed != 1 {
		t.Errorf("after the rollback, Checkpoints = %+v, %v; want its own checkpoint last, counted +1 -1 (what undoing brings back)", after, err)
	}

	rows, err := h.Audit(ctx, id[:len(id)-2])
	if err != nil || len(rows) == 0 || rows[len(rows)-1].RunID != id || rows[len(rows)-1].Action != "rollback" {
		t.Errorf("Audit(prefix) = %+v, %v; want the run's rows ending with its rollback", rows, err)
	}

	ro, err := OpenHomeRead(ctx, svc.Settings().Home)
	if err != nil {
		t.Fatal(err)
	}
	defer ro.Close()
	if p, err := ro.Peek(ctx, id); err != nil || p.Status != event.StatusCompleted || p.Answer != "done" || len(p.Open) != 0 {
		t.Errorf("Peek = %+v, %v; want the completed run's answer", p, err)
	}
	if pv, err := ro.Preview(ctx, id, cps[0].ID); err != nil || !strings.Contains(pv.Patch, "-hello, world") {
		t.Errorf("Preview from OpenHomeRead = %+v, %v; want the workspace's repository opened on demand", pv, err)
	}
}
