package cmd

import (
	"agent/internal/app"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"agent/internal/checkpoint"
	"agent/internal/store"
)

// snapshotRun writes content to a file of ws and takes one snapshot for run.
func snapshotRun(t *testing.T, home, ws, run, file, content string) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(ws, file), []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	repo, err := checkpoint.Open(home, ws)
	if err != nil {
		t.Fatal(err)
	}
	defer repo.Close()
	if _, err := repo.Snapshot(context.Background(), checkpoint.Meta{RunID: run, Kind: checkpoint.KindAfter, CallID: "c1", Step: 1}); err != nil {
		t.Fatal(err)
	}
}

func runRefs(t *testing.T, gitDir string) []string {
	t.Helper()
	ents, err := os.ReadDir(filepath.Join(gitDir, "refs", "agent", "runs"))
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	var out []string
	for _, e := range ents {
		out = append(out, e.Name())
	}
	return out
}

// A run whose workspace was deleted still loses its snapshots: while other
// runs keep snapshots in the shadow repository, only its refs go (and the
// workspace path is not left behind); the last run takes the repository.
func TestDeleteCheckpointsWorkspaceGone(t *testing.T) {
	home := filepath.Join(t.TempDir(), "state")
	parent := t.TempDir()
	ws := filepath.Join(parent, "gone", "ws")
	if err := os.MkdirAll(ws, 0o700); err != nil {
		t.Fatal(err)
	}
	ws, _ = filepath.EvalSymlinks(ws)
	snapshotRun(t, home, ws, "run-a", "a.txt", "alpha")
	snapshotRun(t, home, ws, "run-b", "b.txt", "beta")
	gitDir, err := findShadowRepo(home, ws)
	if err != nil || gitDir == "" {
		t.Fatalf("findShadowRepo = %q, %v", gitDir, err)
	}
	if got := strings.Join(runRefs(t, gitDir), ","); got != "run-a,run-b" {
		t.Fatalf("refs before = %s", got)
	}
	if err := os.RemoveAll(filepath.Join(parent, "gone")); err != nil {
		t.Fatal(err)
	}

	if err := deleteCheckpoints(home, ws, "run-a"); err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(runRefs(t, gitDir), ","); got != "run-b" {
		t.Errorf("refs after deleting run-a = %s, want run-b", got)
	}
	if _, err := os.Stat(filepath.Join(parent, "gone")); !os.IsNotExist(err) {
		t.Errorf("the deleted workspace's path was left behind: %v", err)
	}
	if err := deleteCheckpoints(home, ws, "run-a"); err != nil {
		t.Errorf("deleting again: %v", err)
	}

	if err := deleteCheckpoints(home, ws, "run-b"); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(gitDir); !os.IsNotExist(err) {
		t.Errorf("the shadow repository of a gone workspace with no runs left still exists: %v", err)
	}
}

// A run that never took a checkpoint does not create a shadow repository
// when it is deleted.
func TestDeleteCheckpointsNoRepository(t *testing.T) {
	home, ws := filepath.Join(t.TempDir(), "state"), t.TempDir()
	if err := deleteCheckpoints(home, ws, "run-a"); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(home, "checkpoints")); !os.IsNotExist(err) {
		t.Errorf("deleting a run without checkpoints created %s/checkpoints: %v", home, err)
	}
}

func TestSampledFull(t *testing.T) {
	key := []byte("0123456789abcdef0123456789abcdef")
	full := 0
	for i := range 4000 {
		id := fmt.Sprintf("20260101T000000-%06x", i)
		if sampledFull(key, id, 0) || !sampledFull(key, id, 1) {
			t.Fatalf("sample 0 must never and 1 must always export in full (%s)", id)
		}
		v := sampledFull(key, id, 0.25)
		if v != sampledFull(key, id, 0.25) {
			t.Fatalf("not deterministic for %s", id)
		}
		if v {
			full++
			if !sampledFull(key, id, 0.5) {
				t.Fatalf("%s is full at 0.25 but not at 0.5: a higher sample must keep every run a lower one keeps", id)
			}
		}
	}
	if full < 880 || full > 1120 { // 1000 expected, ±5 sigma is about ±137
		t.Errorf("sample 0.25 chose %d of 4000 runs", full)
	}
	other := []byte("another install's key..........!")
	same := 0
	for i := range 400 {
		id := fmt.Sprintf("r%d", i)
		if sampledFull(key, id, 0.5) == sampledFull(other, id, 0.5) {
			same++
		}
	}
	if same > 280 {
		t.Errorf("two keys agree on %d of 400 runs: the choice does not depend on the key", same)
	}
}

func TestShrinkArguments(t *testing.T) {
	big := strings.Repeat("x", bigArgument+1)
	in := `{"path":"a/b.go","content":"` + big + `","note":"a && b"}`
	out := shrinkArguments(in)
	var m map[string]string
	if err := json.Unmarshal([]byte(out), &m); err != nil {
		t.Fatalf("not JSON: %v: %s", err, out)
	}
	if m["path"] != "a/b.go" || m["note"] != "a && b" || m["content"] != fmt.Sprintf("[omitted by trace sampling: %d bytes]", len(big)) {
		t.Errorf("shrinkArguments = %s", out)
	}
	if strings.Contains(out, `\u0026`) {
		t.Errorf("arguments were HTML-escaped: %s", out)
	}
	small := `{"path":"z","command":"go test ./..."}`
	if got := shrinkArguments(small); got != small {
		t.Errorf("small arguments changed: %s", got)
	}
	if got := shrinkArguments("not json " + big); !strings.HasPrefix(got, "[omitted") {
		t.Errorf("big non-JSON arguments kept: %.40s", got)
	}
}

// pruneRetention deletes the runs idle longer than the retention, skips one a
// live process holds, keeps the rest, and does nothing at retention 0.
func TestPruneRetention(t *testing.T) {
	ctx := context.Background()
	home := filepath.Join(t.TempDir(), "state")
	st, err := store.Open(ctx, home)
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{"old-free", "old-held", "new"} {
		if err := st.CreateRun(ctx, store.Run{ID: id, Workspace: t.TempDir(), Prompt: "p"}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := st.DB().Exec(`UPDATE runs SET updated = ? WHERE id LIKE 'old-%'`, time.Now().Add(-48*time.Hour).UTC().Format(time.RFC3339Nano)); err != nil {
		t.Fatal(err)
	}
	st.Close()
	held, err := app.TryLockRun(home, "old-held")
	if err != nil {
		t.Fatal(err)
	}
	defer held.Unlock()

	if n, err := pruneRetention(ctx, home, 0); n != 0 || err != nil {
		t.Errorf("retention 0: deleted %d, %v", n, err)
	}
	n, err := pruneRetention(ctx, home, 24*time.Hour)
	if n != 1 || err != nil {
		t.Errorf("pruneRetention = %d, %v; want 1 run deleted", n, err)
	}
	st, err = store.Open(ctx, home)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	runs, _ := st.ListRuns(ctx)
	var ids []string
	for _, r := range runs {
		ids = append(ids, r.ID)
	}
	if got := strings.Join(ids, ","); got != "new,old-held" {
		t.Errorf("runs left (newest first) = %s, want new,old-held", got)
	}
	log, _ := st.AuditLog(ctx, "old-free")
	if len(log) != 1 || log[0].Action != "delete" || !strings.Contains(log[0].Detail, "retention") {
		t.Errorf("audit of the pruned run = %+v", log)
	}
}
