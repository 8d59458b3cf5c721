package checkpoint

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"agent/internal/event"
)

// The agent loop's interface (internal/agent.Checkpointer), restated so the
// test does not depend on that package.
type agentCheckpointer interface {
	Checkpoint(ctx context.Context, runID, callID string, kind event.CheckpointKind, step int, seq int64, changed []string) (id string, files []string, err error)
	RestorePaths(ctx context.Context, checkpointID string, paths []string) error
}

var _ agentCheckpointer = Checkpointer{}

func TestCheckpointerAndRestorePaths(t *testing.T) {
	ws := newWorkspace(t)
	s := openStore(t, t.TempDir(), ws)
	var c agentCheckpointer = Checkpointer{Store: s}
	before, files, err := c.Checkpoint(bg, "run", "call1", "before", 1, 10, nil)
	if err != nil || len(files) != 0 {
		t.Fatalf("first checkpoint: %v %v", files, err)
	}
	write(t, ws, "a.txt", "half-written")
	write(t, ws, "new/file.txt", "created")
	write(t, ws, "x.log", "ignored, created by the call")
	after, files, err := c.Checkpoint(bg, "run", "call1", "after", 1, 12, []string{"a.txt", "new/file.txt", "x.log"})
	if err != nil || !reflect.DeepEqual(files, []string{"a.txt", "new/file.txt"}) {
		t.Fatalf("after: %v %v", files, err)
	}
	snap, _ := s.Get(after)
	if snap.Parent != before || snap.Event != 12 || snap.Step != 1 || snap.Kind != KindAfter {
		t.Fatalf("after snapshot = %+v", snap)
	}
	if err := c.RestorePaths(bg, before, []string{"a.txt", filepath.Join(ws, "new/file.txt"), "x.log", "dir"}); err != nil {
		t.Fatal(err)
	}
	if read(t, ws, "a.txt") != "alpha\n" || exists(ws, "new/file.txt") || !exists(ws, "x.log") {
		t.Fatal("paths not restored")
	}
	changes, err := s.RestorePaths(bg, before, []string{"a.txt", "dir"})
	if err != nil || len(changes) != 0 {
		t.Fatalf("restoring what already matches changed %v (%v)", changes, err)
	}
	_ = os.Remove(filepath.Join(ws, "dir/sub/c.txt"))
	changes, err = s.RestorePaths(bg, before, []string{"dir"})
	if err != nil || !reflect.DeepEqual(changes, []Change{{Path: "dir/sub/c.txt", Action: ActionAdded}}) {
		t.Fatalf("directory restore: %v %v", changes, err)
	}
	_, files, err = c.Checkpoint(bg, "run", "call2", "before", 2, 20, nil)
	if err != nil || !reflect.DeepEqual(files, []string{"a.txt", "new/file.txt"}) {
		t.Fatalf("full checkpoint after restore: %v %v", files, err)
	}
}
