package agent_test

import (
	"context"
	"encoding/json"
	"fmt"
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

// benchRun drives one run of b.N steps, each a turn with one call made by
// mk, through the scripted provider and a real SQLite journal.
func benchRun(b *testing.B, checkpoints bool, mk func(i int) (string, string)) {
	ws := b.TempDir()
	for i := 0; i < 50; i++ {
		os.WriteFile(filepath.Join(ws, fmt.Sprintf("f%d.go", i)), []byte("package x\n\nfunc F() {}\n"), 0o644)
	}
	st, err := store.Open(context.Background(), filepath.Join(b.TempDir(), "home"))
	if err != nil {
		b.Fatal(err)
	}
	defer st.Close()
	type tc struct {
		ID        string `json:"id"`
		Name      string `json:"name"`
		Arguments string `json:"arguments"`
	}
	var turns []map[string]any
	for i := 0; i < b.N; i++ {
		name, args := mk(i)
		turns = append(turns, map[string]any{"tool_calls": []tc{{fmt.Sprintf("c%d", i), name, args}}})
	}
	turns = append(turns, map[string]any{"text": "done"})
	raw, _ := json.Marshal(map[string]any{"turns": turns})
	sc, err := replay.Parse(raw)
	if err != nil {
		b.Fatal(err)
	}
	r := &agent.Runner{
		Provider: replay.NewScripted(sc),
		Tools:    tools.Default(),
		Journal:  st,
		Context:  contextbuild.MustNew(ws, "m", 0, tools.Default()),
		MaxSteps: b.N + 1,
		ToolEnv:  &tools.Env{Workspace: ws},
	}
	if checkpoints {
		cps, err := checkpoint.Open(st.Home(), ws)
		if err != nil {
			b.Fatal(err)
		}
		defer cps.Close()
		r.Checkpointer = checkpoint.Checkpointer{Store: cps}
	}
	pol, err := policy.New(policy.ModeFullAuto, nil, nil, ws)
	if err != nil {
		b.Fatal(err)
	}
	runID := store.NewRunID()
	r.Approver = &approval.Approver{Policy: pol, Grants: st, Tools: r.Tools, ToolEnv: r.ToolEnv}
	if err := st.CreateRun(context.Background(), store.Run{ID: runID, Workspace: ws}); err != nil {
		b.Fatal(err)
	}
	s := agent.NewState(runID, ws, "m", "full-auto")
	if err := r.Start(context.Background(), s, "bench"); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	out := r.Run(context.Background(), s)
	b.StopTimer()
	if out.Status != event.StatusCompleted {
		b.Fatalf("run ended %s: %v", out.Status, out.Err)
	}
}

// BenchmarkLoopReadStep: the loop's own overhead per read step (model request
// journaled, scripted turn streamed, call validated and journaled, read_file,
// result journaled). Goal: ≤ 5 ms on 2 cores.
func BenchmarkLoopReadStep(b *testing.B) {
	benchRun(b, false, func(i int) (string, string) {
		return "read_file", fmt.Sprintf(`{"path":"f%d.go"}`, i%50)
	})
}

// BenchmarkLoopWriteStep: the same for a write step (approval journaled,
// before and after checkpoints in the shadow repository, atomic write).
// Goal: ≤ 25 ms on 2 cores.
func BenchmarkLoopWriteStep(b *testing.B) {
	benchRun(b, true, func(i int) (string, string) {
		return "write_file", fmt.Sprintf(`{"path":"out/w%d.txt","content":"line %d\n"}`, i%50, i)
	})
}
