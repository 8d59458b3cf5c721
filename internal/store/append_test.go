package store

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"agent/internal/event"
)

// An append runs its own BEGIN/COMMIT on the append connection: a batch that
// fails half-way (a seq another writer took, a run that does not exist) must
// leave nothing of itself behind and no transaction open, so the next append
// commits, and durably when it asks to.
func TestFailedAppendLeavesNothingAndNoTransaction(t *testing.T) {
	ctx := context.Background()
	home := filepath.Join(t.TempDir(), "state")
	st, err := Open(ctx, home)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	const id = "20260101T000000-abcdef"
	if err := st.CreateRun(ctx, Run{ID: id, Workspace: "/tmp/ws", Model: "m", Approval: "ask", Prompt: "p"}); err != nil {
		t.Fatal(err)
	}
	ev := func(p event.Payload) *event.Event { e := event.New(id, p); return &e }
	if err := st.Append(ctx, ev(&event.RunStartedData{Workspace: "/tmp/ws", Model: "m", Approval: "ask"})); err != nil {
		t.Fatal(err)
	}
	// The first event is fine, the second claims a seq that is not next:
	// neither may be committed, nor the checkpoint row of the first.
	good := ev(&event.CheckpointData{CheckpointID: strings.Repeat("a", 40), CallID: "c1", Kind: event.CheckpointBefore, Step: 1, Files: []string{}})
	bad := ev(&event.UserMessageData{Text: "x"})
	bad.Seq = 99
	if err := st.AppendSync(ctx, good, bad); err == nil || !strings.Contains(err.Error(), "another process wrote") {
		t.Fatalf("append with a wrong seq: %v, want the other-writer error", err)
	}
	if n := count(t, st, `SELECT count(*) FROM events WHERE run_id = ?`, id); n != 1 {
		t.Fatalf("%d events after a failed append, want 1", n)
	}
	if n := count(t, st, `SELECT count(*) FROM checkpoints WHERE run_id = ?`, id); n != 0 {
		t.Fatalf("%d checkpoint rows after a failed append, want 0", n)
	}
	other := event.New("20260101T000000-nonexi", &event.UserMessageData{Text: "y"})
	if err := st.Append(ctx, &other); !errors.Is(err, ErrNotFound) {
		t.Fatalf("append to a missing run: %v, want ErrNotFound", err)
	}
	// No transaction was left open: these commit, and are seen by another
	// connection of the pool.
	for i := 0; i < 3; i++ {
		e := ev(&event.UserMessageData{Text: "ok"})
		e.Seq = 0
		if err := st.AppendSync(ctx, e); err != nil {
			t.Fatalf("append %d after the failures: %v", i, err)
		}
	}
	if n := count(t, st, `SELECT count(*) FROM events WHERE run_id = ?`, id); n != 4 {
		t.Fatalf("%d events, want 4", n)
	}
	if n := count(t, st, `SELECT last_seq FROM runs WHERE id = ?`, id); n != 4 {
		t.Fatalf("last_seq %d, want 4", n)
	}
	if m := st.SyncMode(ctx); m != 2 {
		t.Fatalf("AppendSync commits at synchronous %d, want 2 (FULL)", m)
	}
}
