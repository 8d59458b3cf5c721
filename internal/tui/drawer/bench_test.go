package drawer

import (
	"agent/internal/tui/tuitest"
	"fmt"
	"testing"
)

func BenchmarkContextView(b *testing.B) {
	c := sampleContext()
	d := openContext(nil, 120, 40, &c)
	for range b.N {
		_ = d.View()
	}
}

// BenchmarkCheckpointsMove is one frame of moving through 200 checkpoints.
func BenchmarkCheckpointsMove(b *testing.B) {
	var list []Checkpoint
	for i := range 200 {
		list = append(list, Checkpoint{ID: fmt.Sprintf("%040d", i), Step: i, CallID: "call", Tool: "edit_file", Kind: KindAfter, Files: []string{"a.go", "b.go"}, Added: i, Removed: 1})
	}
	d := openCheckpoints(nil, 120, 40, list)
	down, up := tuitest.Key("down"), tuitest.Key("up")
	b.ResetTimer()
	for i := range b.N {
		if i%400 < 200 {
			d.Update(down)
		} else {
			d.Update(up)
		}
		_ = d.View()
	}
}
