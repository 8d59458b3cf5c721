package app

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"agent/internal/agent"
	"agent/internal/event"
)

// rewindEnv drives two messages of one run in full-auto: the first writes
// greet.txt, the second edits it.
func rewindEnv(t *testing.T) (*Service, *Run, string) {
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
		{"text": "wrote it"},
		{"tool_calls": []map[string]any{call("e1", "edit_file", map[string]string{"path": "greet.txt", "old_string": "hello", "new_string": "hello, world"})}},
		{"text": "edited it"},
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
	ctx := context.Background()
	r, err := svc.NewRun(ctx, "FIRST write greet.txt", nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(r.Close)
	if out := r.Drive(ctx); out.Status != event.StatusCompleted {
		t.Fatalf("first message ended %s (%v)", out.Status, out.Err)
	}
	if err := r.Message(ctx, "SECOND edit it"); err != nil {
		t.Fatal(err)
	}
	if out := r.Drive(ctx); out.Status != event.StatusCompleted {
		t.Fatalf("second message ended %s (%v)", out.Status, out.Err)
	}
	return svc, r, ws
}

func userTexts(st *agent.State) []string {
	var out []string
	for _, m := range st.Messages {
		if m.Role == agent.RoleUser {
			out = append(out, m.Content)
		}
	}
	return out
}

// Rewinding to the person's first message puts back the files and the
// conversation of that moment, and the rewind can itself be undone.
func TestRewindToFirstMessage(t *testing.T) {
	svc, run, ws := rewindEnv(t)
	ctx := context.Background()
	ps, err := svc.Home().Prompts(ctx, run.ID())
	if err != nil {
		t.Fatal(err)
	}
	if len(ps) != 2 || ps[0].Text != "FIRST write greet.txt" || ps[1].Text != "SECOND edit it" {
		t.Fatalf("Prompts = %+v, want the two messages in order", ps)
	}
	for i, p := range ps {
		if p.Checkpoint == "" || strings.Join(p.Files, ",") != "greet.txt" {
			t.Errorf("prompt %d: checkpoint %q files %v, want a checkpoint and greet.txt changed since", i, p.Checkpoint, p.Files)
		}
	}
	res, err := svc.Rewind(ctx, run, ps[0].Seq, RollbackOptions{Files: true, Conversation: true})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(ws, "greet.txt")); !os.IsNotExist(err) {
		t.Errorf("after the rewind greet.txt still exists (%v); it did not before the first message", err)
	}
	for _, u := range userTexts(run.State()) {
		if strings.Contains(u, "FIRST") || strings.Contains(u, "SECOND") {
			t.Errorf("after the rewind the conversation still holds %q", u)
		}
	}
	if res.Before == "" {
		t.Fatal("the rewind took no checkpoint of the state before it: it cannot be undone")
	}
	if after, err := svc.Home().Prompts(ctx, run.ID()); err != nil || len(after) != 0 {
		t.Errorf("after the rewind Prompts = %+v, %v; want none: both messages were rewound out of the conversation", after, err)
	}
	if _, err := svc.Rollback(ctx, res.Before, RollbackOptions{Files: true}, run); err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(filepath.Join(ws, "greet.txt")); err != nil || string(b) != "hello, world\n" {
		t.Errorf("after undoing the rewind greet.txt = %q, %v; want the edited text back", b, err)
	}
}

// Rewinding the conversation alone to the second message keeps the files
// and the first exchange, and drops the second message.
func TestRewindConversationOnly(t *testing.T) {
	svc, run, ws := rewindEnv(t)
	ctx := context.Background()
	ps, err := svc.Home().Prompts(ctx, run.ID())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := svc.Rewind(ctx, run, ps[1].Seq, RollbackOptions{Conversation: true}); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(filepath.Join(ws, "greet.txt")); string(b) != "hello, world\n" {
		t.Errorf("a conversation-only rewind changed greet.txt to %q", b)
	}
	if after, _ := svc.Home().Prompts(ctx, run.ID()); len(after) != 1 || after[0].Text != "FIRST write greet.txt" {
		t.Errorf("after the rewind Prompts = %+v, want the first message only", after)
	}
	u := strings.Join(userTexts(run.State()), "\n")
	if !strings.Contains(u, "FIRST") || strings.Contains(u, "SECOND") {
		t.Errorf("user messages after the rewind:\n%s\nwant FIRST kept and SECOND dropped", u)
	}
	if _, err := svc.Rewind(ctx, run, 99999, RollbackOptions{Files: true}); err == nil || !strings.Contains(err.Error(), "no message of yours") {
		t.Errorf("rewind to an unknown seq = %v, want a clear error", err)
	}
}

// After a rewind of the code alone, the files changed since each message
// are counted to the files now (the rewind's target), not to the state the
// rewind left: nothing changed since the second message any more.
func TestPromptsFilesAfterCodeRewind(t *testing.T) {
	svc, run, ws := rewindEnv(t)
	ctx := context.Background()
	ps, err := svc.Home().Prompts(ctx, run.ID())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := svc.Rewind(ctx, run, ps[1].Seq, RollbackOptions{Files: true}); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(filepath.Join(ws, "greet.txt")); string(b) != "hello\n" {
		t.Fatalf("greet.txt = %q after the code rewind", b)
	}
	ps, err = svc.Home().Prompts(ctx, run.ID())
	if err != nil || len(ps) != 2 {
		t.Fatalf("Prompts = %+v, %v; want both messages (the conversation was kept)", ps, err)
	}
	if len(ps[1].Files) != 0 || strings.Join(ps[0].Files, ",") != "greet.txt" {
		t.Errorf("files since: first %v, second %v; want greet.txt and none", ps[0].Files, ps[1].Files)
	}
}
