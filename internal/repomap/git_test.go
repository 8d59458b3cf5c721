package repomap

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	git "github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing/object"
)

// TestBuilderKeepsHistoryPerHead: a Builder reads the git history once per
// root and HEAD, gives the same map as a fresh Build, reads it again when
// HEAD moves, and shares nothing with another Builder (no package state).
func TestBuilderKeepsHistoryPerHead(t *testing.T) {
	ctx := context.Background()
	dir := writeDemo(t)
	repo, err := git.PlainInit(dir, false)
	if err != nil {
		t.Fatal(err)
	}
	wt, err := repo.Worktree()
	if err != nil {
		t.Fatal(err)
	}
	sig := &object.Signature{Name: "t", Email: "t@example.com", When: time.Unix(1700000000, 0)}
	commit := func(paths ...string) {
		t.Helper()
		for _, p := range paths {
			if _, err := wt.Add(p); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := wt.Commit("c", &git.CommitOptions{Author: sig}); err != nil {
			t.Fatal(err)
		}
		sig.When = sig.When.Add(time.Hour)
	}
	commit("server/server.go", "server/util.go")
	commit("py/tool.py")

	var b Builder
	build := func(b *Builder) *Map {
		t.Helper()
		m, err := b.Build(ctx, Options{Root: dir})
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
	first := build(&b)
	if !strings.Contains(first.Text, "recent: py/tool.py") {
		t.Fatalf("no recent line for the newest commit:\n%s", first.Text)
	}
	again := build(&b)
	if b.history.reads != 1 {
		t.Errorf("two builds at one HEAD read the history %d times, want 1", b.history.reads)
	}
	fresh, err := Build(ctx, Options{Root: dir})
	if err != nil {
		t.Fatal(err)
	}
	if again.Text != first.Text || fresh.Text != first.Text {
		t.Errorf("the kept history changed the map:\nfirst:\n%s\nagain:\n%s\nfresh:\n%s", first.Text, again.Text, fresh.Text)
	}

	util := filepath.Join(dir, "server", "util.go")
	if err := os.WriteFile(util, []byte(demoFiles["server/util.go"]+"\nfunc Later() {}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	commit("server/util.go")
	moved := build(&b)
	if b.history.reads != 2 {
		t.Errorf("a build after HEAD moved: %d history reads, want 2", b.history.reads)
	}
	if !strings.Contains(moved.Text, "recent: server/util.go") {
		t.Errorf("the map after a new commit does not lead with it:\n%s", moved.Text)
	}

	var other Builder
	build(&other)
	if other.history.reads != 1 || b.history.reads != 2 {
		t.Errorf("builders share history: %d and %d reads", other.history.reads, b.history.reads)
	}

	// One Builder used by several goroutines at once (run with -race).
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			if m, err := b.Build(ctx, Options{Root: dir}); err != nil || m.Text != moved.Text {
				t.Errorf("concurrent build: %v", err)
			}
		})
	}
	wg.Wait()
}

// TestBuilderDoesNotKeepHistoryCutShort: a build whose context is cancelled
// while the history is read leaves nothing behind; the next build at the
// same HEAD reads the history in full.
func TestBuilderDoesNotKeepHistoryCutShort(t *testing.T) {
	dir := writeDemo(t)
	repo, err := git.PlainInit(dir, false)
	if err != nil {
		t.Fatal(err)
	}
	wt, err := repo.Worktree()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := wt.Add("py/tool.py"); err != nil {
		t.Fatal(err)
	}
	sig := &object.Signature{Name: "t", Email: "t@example.com", When: time.Unix(1700000000, 0)}
	if _, err := wt.Commit("c", &git.CommitOptions{Author: sig}); err != nil {
		t.Fatal(err)
	}
	var b Builder
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	if rec := b.history.recent(cancelled, dir); len(rec) != 0 {
		t.Errorf("a cancelled read gave %v", rec)
	}
	m, err := b.Build(context.Background(), Options{Root: dir})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(m.Text, "recent: py/tool.py") {
		t.Errorf("the build after a cancelled one has no recent line:\n%s", m.Text)
	}
}
