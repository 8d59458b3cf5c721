package app

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	git "github.com/go-git/go-git/v5"

	"agent/internal/checkpoint"
	"agent/internal/event"
)

// TestMeasureWorkerWorktree times a worker's worktree on a repository of
// AGENT_MEASURE_FILES files (docs/benchmarks.md): skipped unless that is
// set, as it writes tens of thousands of files. The repository is made
// once under AGENT_MEASURE_DIR (default a temporary directory) and reused.
func TestMeasureWorkerWorktree(t *testing.T) {
	n := 0
	fmt.Sscan(os.Getenv("AGENT_MEASURE_FILES"), &n)
	if n == 0 {
		t.Skip("set AGENT_MEASURE_FILES=20000 to measure")
	}
	ws := os.Getenv("AGENT_MEASURE_DIR")
	if ws == "" {
		ws = t.TempDir()
	}
	ws, _ = filepath.Abs(ws)
	if _, err := os.Stat(filepath.Join(ws, ".git")); err != nil {
		for i := 0; i < n; i++ {
			writeT(t, filepath.Join(ws, fmt.Sprintf("d%03d/f%05d.txt", i/100, i)), fmt.Sprintf("file %d\n%s\n", i, "some text of a source file"))
		}
		gitT(t, ws, "init", "-q")
		gitT(t, ws, "add", "-A")
		gitT(t, ws, "commit", "-qm", "init")
	}
	ws, _ = filepath.EvalSymlinks(ws)
	writeT(t, filepath.Join(ws, "d000/f00000.txt"), "the parent's change\n")
	ctx := context.Background()
	home := t.TempDir()
	for i := 0; i < measureRounds(); i++ {
		ts := eventTask(home, fmt.Sprintf("20260101T000000-meas%02d", i))
		start := time.Now()
		cps, err := checkpoint.Open(home, ws)
		if err != nil {
			t.Fatal(err)
		}
		repo, err := git.PlainOpen(ws)
		if err != nil {
			t.Fatal(err)
		}
		if _, _, err := cps.CopyFiles(ctx, repo.Storer); err != nil {
			t.Fatal(err)
		}
		cps.Close()
		based := time.Since(start)
		start = time.Now()
		if _, err := ensureWorktree(ctx, home, ws, ts); err != nil {
			t.Fatal(err)
		}
		made := time.Since(start)
		start = time.Now()
		files, _, err := worktreeChanges(ctx, home, ts.Worktree, readBase(t, ts), true)
		if err != nil {
			t.Fatal(err)
		}
		diffed := time.Since(start)
		start = time.Now()
		if _, _, err := worktreeChanges(ctx, home, ts.Worktree, readBase(t, ts), true); err != nil {
			t.Fatal(err)
		}
		again := time.Since(start)
		start = time.Now()
		if err := removeTaskWorktree(ts.Worktree, ts.Branch); err != nil {
			t.Fatal(err)
		}
		t.Logf("%d files: base alone (scan + copy) %v; worktree made in %v, diffed in %v (%d changed; again %v), removed in %v", n, based, made, diffed, len(files), again, time.Since(start))
	}
}

func readBase(t *testing.T, ts any) string {
	t.Helper()
	b, err := worktreeBase(ts.(event.TaskStartedData))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func measureRounds() int {
	n := 3
	fmt.Sscan(os.Getenv("AGENT_MEASURE_ROUNDS"), &n)
	return n
}
