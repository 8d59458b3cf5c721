package agent_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"agent/internal/agent"
	"agent/internal/approval"
	"agent/internal/checkpoint"
	"agent/internal/contextbuild"
	"agent/internal/event"
	"agent/internal/policy"
	"agent/internal/replay"
	"agent/internal/store"
	"agent/internal/tools"
)

// syncJournal is the real store, counting the appends that are fsynced and
// checking, at each, that the call's effect has not started yet.
type syncJournal struct {
	*store.Store
	t      *testing.T
	ws     string
	synced []string // "type:call_id" of each AppendSync
	before map[string]string
}

func (j *syncJournal) AppendSync(ctx context.Context, evs ...*event.Event) error {
	ev := evs[len(evs)-1] // the last event of the batch is the one that must be durable
	var call string
	switch d := ev.Data.(type) {
	case *event.CheckpointData:
		call = d.CallID
	case *event.CommandStartedData:
		call = d.CallID
	}
	if f, ok := j.before[call]; ok {
		if _, err := os.Stat(filepath.Join(j.ws, f)); err == nil {
			j.t.Errorf("%s of %s is fsynced after the call's effect (%s exists)", ev.Type, call, f)
		}
	}
	j.synced = append(j.synced, string(ev.Type)+":"+call)
	return j.Store.AppendSync(ctx, evs...)
}

// The intent of every write or exec call is on stable storage before its
// effect starts: the last event before a file write (its before-checkpoint)
// and before a command runs (command_started) go through AppendSync, and
// nothing else does.
func TestIntentFsyncedBeforeEffect(t *testing.T) {
	ws := t.TempDir()
	st, err := store.Open(context.Background(), filepath.Join(t.TempDir(), "home"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	sc, err := replay.Parse([]byte(`{"turns": [
		{"tool_calls": [{"id": "w1", "name": "write_file", "arguments": "{\"path\":\"w.txt\",\"content\":\"x\"}"}]},
		{"tool_calls": [{"id": "x1", "name": "run_command", "arguments": "{\"command\":\"echo y > x.txt\"}"}]},
		{"tool_calls": [{"id": "r1", "name": "read_file", "arguments": "{\"path\":\"w.txt\"}"}]},
		{"text": "done"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	cps, err := checkpoint.Open(st.Home(), ws)
	if err != nil {
		t.Fatal(err)
	}
	defer cps.Close()
	j := &syncJournal{Store: st, t: t, ws: ws, before: map[string]string{"w1": "w.txt", "x1": "x.txt"}}
	pol, _ := policy.New(policy.ModeFullAuto, nil, nil, ws)
	r := &agent.Runner{
		Provider: replay.NewScripted(sc), Tools: tools.Default(), Journal: j,
		Checkpointer: checkpoint.Checkpointer{Store: cps}, Approver: &approval.Approver{Policy: pol},
		Context: contextbuild.MustNew(ws, "m", 0, tools.Default()), ToolEnv: &tools.Env{Workspace: ws},
	}
	runID := store.NewRunID()
	if err := st.CreateRun(context.Background(), store.Run{ID: runID, Workspace: ws}); err != nil {
		t.Fatal(err)
	}
	s := agent.NewState(runID, ws, "m", "full-auto")
	if err := r.Start(context.Background(), s, "go"); err != nil {
		t.Fatal(err)
	}
	if out := r.Run(context.Background(), s); out.Status != event.StatusCompleted {
		t.Fatalf("run: %+v", out)
	}
	want := []string{"checkpoint:w1", "command_started:x1"}
	if b, _ := json.Marshal(j.synced); string(b) != `["checkpoint:w1","command_started:x1"]` {
		t.Errorf("fsynced appends %s, want %v", b, want)
	}
}

// AppendSync commits on a connection that fsyncs the WAL at each commit.
func TestAppendSyncIsFull(t *testing.T) {
	st, err := store.Open(context.Background(), filepath.Join(t.TempDir(), "home"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if got := st.SyncMode(context.Background()); got != 2 {
		t.Fatalf("PRAGMA synchronous of the AppendSync connection = %d, want 2 (FULL)", got)
	}
}
