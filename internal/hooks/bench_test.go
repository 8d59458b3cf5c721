package hooks

import (
	"context"
	"testing"
)

// BenchmarkNoopBeforeToolCall is the cost a no-op before_tool_call hook
// adds to a call: a bash process started, given its JSON input, waited for
// (goal: ≤ 3 ms).
func BenchmarkNoopBeforeToolCall(b *testing.B) {
	r := New(Options{Hooks: []Hook{{Event: BeforeToolCall, Command: "exit 0"}}, Env: []string{"PATH=/usr/bin:/bin"}})
	in := Input{RunID: "r", Workspace: b.TempDir(), Tool: "run_command", CallID: "c", Arguments: []byte(`{"command":"ls"}`)}
	for b.Loop() {
		if d := r.BeforeToolCall(context.Background(), in); d.Verdict != NoObjection {
			b.Fatal(d)
		}
	}
}
