package store

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"agent/internal/event"
)

// An append numbered from the seq this connection last committed must end
// exactly as one that reads it first: after another process appended to
// the run, an event without a seq follows the other's and one numbered
// from the stale seq is refused with nothing kept; after the run was
// deleted, ErrNotFound. The journal stays gapless and the runs row agrees.
func TestAppendAfterAnotherWriter(t *testing.T) {
	ctx := context.Background()
	home := filepath.Join(t.TempDir(), "state")
	a, err := Open(ctx, home)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	b, err := Open(ctx, home)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	const id = "20260101T000000-abcdef"
	if err := a.CreateRun(ctx, Run{ID: id, Workspace: "/tmp/ws", Model: "m", Approval: "ask", Prompt: "p"}); err != nil {
		t.Fatal(err)
	}
	ev := func(seq int64, text string) *event.Event {
		e := event.New(id, &event.UserMessageData{Text: text})
		e.Seq = seq
		return &e
	}
	for i, e := range []*event.Event{ev(0, "a1"), ev(2, "a2"), ev(0, "a3")} {
		if err := a.Append(ctx, e); err != nil {
			t.Fatalf("append %d: %v", i, err)
		}
		if e.Seq != int64(i+1) {
			t.Fatalf("append %d got seq %d", i, e.Seq)
		}
	}
	if n, ok := a.app.last[id]; !ok || n != 3 {
		t.Fatalf("the append connection remembers seq %d (%v) for the run, want 3", n, ok)
	}
	// another process appends two events
	if err := b.AppendSync(ctx, ev(0, "b1"), ev(0, "b2")); err != nil {
		t.Fatal(err)
	}
	// a numbers from its own last commit (3): refused, nothing kept
	stale := ev(4, "a-stale")
	if err := a.AppendSync(ctx, stale, ev(0, "a-stale-2")); err == nil || !strings.Contains(err.Error(), "another process wrote") {
		t.Fatalf("append numbered from a stale seq: %v, want the other-writer error", err)
	}
	if stale.Seq != 4 {
		t.Fatalf("the refused event's seq became %d", stale.Seq)
	}
	if n := count(t, a, `SELECT count(*) FROM events WHERE run_id = ? AND data LIKE '%a-stale%'`, id); n != 0 {
		t.Fatalf("%d events of a refused append were kept", n)
	}
	if _, ok := a.app.last[id]; ok {
		t.Fatal("a refused append left the run's seq remembered")
	}
	// an event without a seq follows the other's
	e := ev(0, "a4")
	if err := a.Append(ctx, e); err != nil {
		t.Fatal(err)
	}
	if e.Seq != 6 {
		t.Fatalf("after another writer's two events the next seq is %d, want 6", e.Seq)
	}
	// and again, with the other writer in between once more
	if err := b.Append(ctx, ev(0, "b3")); err != nil {
		t.Fatal(err)
	}
	e = ev(0, "a5")
	if err := a.Append(ctx, e); err != nil || e.Seq != 8 {
		t.Fatalf("append after the other writer: seq %d, %v; want 8", e.Seq, err)
	}
	if n := count(t, a, `SELECT count(*) FROM events WHERE run_id = ?`, id); n != 8 {
		t.Fatalf("%d events, want 8", n)
	}
	if n := count(t, a, `SELECT max(seq) FROM events WHERE run_id = ?`, id); n != 8 {
		t.Fatalf("last event seq %d, want 8", n)
	}
	if n := count(t, a, `SELECT last_seq FROM runs WHERE id = ?`, id); n != 8 {
		t.Fatalf("runs.last_seq %d, want 8", n)
	}
	// the run deleted by the other process
	if _, err := b.DeleteRun(ctx, id, "test"); err != nil {
		t.Fatal(err)
	}
	if err := a.Append(ctx, ev(0, "after delete")); !errors.Is(err, ErrNotFound) {
		t.Fatalf("append to a deleted run: %v, want ErrNotFound", err)
	}
}
