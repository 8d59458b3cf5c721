package contextbuild_test

import (
	"encoding/json"
	"fmt"
	"testing"

	"agent/internal/agent"
	"agent/internal/contextbuild"
	"agent/internal/event"
	"agent/internal/tokens"
	"agent/internal/tools"
)

// BenchmarkCompact200KTo32K: a 200,000-token history built into a 32K
// window, deterministic summary: the builder decides the compaction, the
// loop folds it, the request is built (goal <= 50 ms). The fold of the
// journal into a State is outside the timing (resume does it once).
func BenchmarkCompact200KTo32K(b *testing.B) {
	h := generate(b, 1, 200_000)
	ws := b.TempDir()
	cb := contextbuild.MustNew(ws, "gpt-4.1", 32_000, tools.Default())
	// warm the tokenizer's tables and memo as a running process has them
	buildLikeTheLoop(b, cb, agent.Fold(h.RunID, h.Events))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		st := agent.Fold(h.RunID, h.Events)
		b.StartTimer()
		got := buildLikeTheLoop(b, cb, st)
		if len(got.events) == 0 {
			b.Fatal("no compaction")
		}
	}
}

// BenchmarkBuild300Steps: the next request of a 300-step run that fits its
// window, so nothing is compacted (goal <= 5 ms).
func BenchmarkBuild300Steps(b *testing.B) {
	st := smallSteps(300)
	cb := contextbuild.MustNew(b.TempDir(), "gpt-4.1", 128_000, tools.Default())
	first := buildLikeTheLoop(b, cb, st) // the start's refresh
	if c := compactions(first.events); len(c) > 0 {
		b.Fatal("the 300-step run compacted")
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		got := buildLikeTheLoop(b, cb, st)
		if len(got.events) > 0 {
			b.Fatal("a build decided something")
		}
	}
	b.ReportMetric(float64(first.rep.TotalTokens), "tokens")
}

// smallSteps is a run of n rounds with short outputs (about 100 tokens
// each): a greps and reads of a working session.
func smallSteps(n int) *agent.State {
	st := agent.NewState("bench", "/ws", "gpt-4.1", "full-auto")
	seq := int64(0)
	add := func(p event.Payload) {
		seq++
		ev := event.New("bench", p)
		ev.Seq = seq
		st.Apply(ev)
	}
	add(&event.RunStartedData{Workspace: "/ws", Model: "gpt-4.1", Approval: "full-auto"})
	add(&event.UserMessageData{Text: "Find where the retry budget is computed and make it configurable."})
	for i := 0; i < n; i++ {
		id := fmt.Sprintf("c%d", i)
		add(&event.ModelRequestData{Step: i + 1})
		add(&event.AssistantMessageData{Step: i + 1, Text: fmt.Sprintf("Looking at part %d.", i),
			ToolCalls: []event.ToolCallRef{{ID: id, Name: "grep", Arguments: fmt.Sprintf(`{"pattern":"retryBudget%d","path":"internal"}`, i)}}})
		add(&event.ToolCallData{CallID: id, Name: "grep", Arguments: fmt.Sprintf(`{"pattern":"retryBudget%d"}`, i), Risk: event.RiskRead})
		out := ""
		for k := 0; k < 6; k++ {
			out += fmt.Sprintf("internal/net/retry%d.go:%d:\tbudget := retryBudget%d(cfg.Attempts, %d)\n", i, 10+k, i, k)
		}
		add(&event.ToolResultData{CallID: id, Status: event.ResultOK, Output: out})
	}
	return st
}

// BenchmarkBaselineMarshal300Steps is the baseline of BenchmarkBuild300Steps:
// encoding the same request as JSON, which every request pays anyway on
// its way to the provider.
func BenchmarkBaselineMarshal300Steps(b *testing.B) {
	st := smallSteps(300)
	cb := contextbuild.MustNew(b.TempDir(), "gpt-4.1", 128_000, tools.Default())
	req := buildLikeTheLoop(b, cb, st).req
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := json.Marshal(req); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkBaselineCount200K is the baseline of BenchmarkCompact200KTo32K:
// counting the 200,000-token history once with a cold tokenizer, the least
// a builder that knows nothing of it yet must do to know its size.
func BenchmarkBaselineCount200K(b *testing.B) {
	h := generate(b, 1, 200_000)
	st := agent.Fold(h.RunID, h.Events)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		ctr, err := tokens.New(tokens.O200kBase)
		if err != nil {
			b.Fatal(err)
		}
		n := 0
		for _, m := range st.Messages {
			n += ctr.Count(m.Content)
		}
		if n < 150_000 {
			b.Fatalf("counted %d", n)
		}
	}
}
