package app

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"agent/internal/checkpoint"
	"agent/internal/event"
	"agent/internal/protocol"
	"agent/internal/store"
)

func openTestStore(t *testing.T) *store.Store {
	t.Helper()
	st, err := store.Open(context.Background(), filepath.Join(t.TempDir(), "state"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

func marker(t *testing.T) string {
	t.Helper()
	b := make([]byte, 12)
	if _, err := rand.Read(b); err != nil {
		t.Fatal(err)
	}
	return "marker-" + hex.EncodeToString(b)
}

// addRun creates a run in ws whose prompt, messages and tool output carry
// text, last active age ago.
func addRun(t *testing.T, st *store.Store, id, ws, text string, age time.Duration) {
	t.Helper()
	ctx := context.Background()
	if err := st.CreateRun(ctx, store.Run{ID: id, Workspace: ws, Model: "m", Approval: "ask", Prompt: "please " + text}); err != nil {
		t.Fatal(err)
	}
	for _, d := range []event.Payload{
		&event.RunStartedData{Workspace: ws, Model: "m", Approval: "ask"},
		&event.UserMessageData{Text: "please " + text},
		&event.ToolCallData{CallID: "c1", Name: "run_command", Arguments: `{"command":"echo ` + text + `"}`, Risk: event.RiskExec},
		&event.ToolResultData{CallID: "c1", Status: "ok", Output: text + "\n"},
		&event.RunFinishedData{Status: event.StatusCompleted, Steps: 1, ToolCalls: 1, Answer: "done with " + text},
	} {
		e := event.New(id, d)
		if err := st.Append(ctx, &e); err != nil {
			t.Fatal(err)
		}
	}
	if age > 0 {
		if _, err := st.DB().Exec(`UPDATE runs SET updated = ? WHERE id = ?`, time.Now().Add(-age).UTC().Format(time.RFC3339Nano), id); err != nil {
			t.Fatal(err)
		}
	}
}

// snapshot takes one snapshot of ws for run.
func snapshot(t *testing.T, home, ws, run string) checkpoint.Snapshot {
	t.Helper()
	repo, err := checkpoint.Open(home, ws)
	if err != nil {
		t.Fatal(err)
	}
	defer repo.Close()
	snap, err := repo.Snapshot(context.Background(), checkpoint.Meta{RunID: run, Kind: checkpoint.KindAfter, CallID: "c1", Step: 1})
	if err != nil {
		t.Fatal(err)
	}
	return snap
}

func runIDs(t *testing.T, st *store.Store) []string {
	t.Helper()
	runs, err := st.ListRuns(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, r := range runs {
		ids = append(ids, r.ID)
	}
	slices.Sort(ids)
	return ids
}

func lockPath(st *store.Store, id string) string {
	return filepath.Join(st.Home(), "locks", id+".lock")
}

// deleteRuns removes a run from everywhere: the journal rows with a delete
// audit row, its snapshots in the shadow repository, its lock file, and its
// content from the database files on disk; the other run stays whole. An id
// and its prefix delete the run once.
func TestDeleteRunsDeletesEverywhere(t *testing.T) {
	ctx := context.Background()
	st := openTestStore(t)
	ws := t.TempDir()
	secret := marker(t)
	addRun(t, st, "20260101T000000-aaaaaa", ws, secret, 0)
	addRun(t, st, "20260101T000000-bbbbbb", ws, "kept", 0)
	if err := os.WriteFile(filepath.Join(ws, "f.txt"), []byte(secret), 0o600); err != nil {
		t.Fatal(err)
	}
	snapshot(t, st.Home(), ws, "20260101T000000-aaaaaa")
	if err := os.WriteFile(filepath.Join(ws, "f.txt"), []byte("kept"), 0o600); err != nil {
		t.Fatal(err)
	}
	kept := snapshot(t, st.Home(), ws, "20260101T000000-bbbbbb")
	l, err := TryLockRun(st.Home(), "20260101T000000-aaaaaa") // a finished run's lock file stays
	if err != nil {
		t.Fatal(err)
	}
	l.Unlock()

	var got []protocol.Deleted
	err = deleteRuns(ctx, st, []string{"20260101T000000-aaaaaa", "20260101T000000-a"}, DeleteOptions{
		Reason:  "test by me",
		Deleted: func(r protocol.RunInfo, d protocol.Deleted) { got = append(got, d) },
		Warn:    func(w string) { t.Errorf("warning: %s", w) },
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || got[0].RunID != "20260101T000000-aaaaaa" || got[0].Events != 5 {
		t.Errorf("reported deletions = %+v, want run aaaaaa once with 5 events", got)
	}
	if ids := runIDs(t, st); !slices.Equal(ids, []string{"20260101T000000-bbbbbb"}) {
		t.Errorf("runs left = %v", ids)
	}
	log, _ := st.AuditLog(ctx, "20260101T000000-aaaaaa")
	if len(log) == 0 || log[len(log)-1].Action != "delete" || !strings.Contains(log[len(log)-1].Detail, "test by me") {
		t.Errorf("audit of the deleted run = %+v, want a delete row with the reason last", log)
	}
	if _, err := os.Stat(lockPath(st, "20260101T000000-aaaaaa")); !os.IsNotExist(err) {
		t.Errorf("the lock file is still there: %v", err)
	}
	repo, err := checkpoint.Open(st.Home(), ws)
	if err != nil {
		t.Fatal(err)
	}
	defer repo.Close()
	if runs, _ := repo.Runs(); !slices.Equal(runs, []string{"20260101T000000-bbbbbb"}) {
		t.Errorf("runs with snapshots = %v, want only bbbbbb", runs)
	}
	if _, err := repo.Get(kept.ID); err != nil {
		t.Errorf("the other run's snapshot: %v", err)
	}
	for _, name := range []string{"agent.db", "agent.db-wal"} {
		b, err := os.ReadFile(filepath.Join(st.Home(), name))
		if err != nil && !os.IsNotExist(err) {
			t.Fatal(err)
		}
		if bytes.Contains(b, []byte(secret)) {
			t.Errorf("%s still holds the deleted run's content", name)
		}
	}
}

// Every id is checked before anything is deleted: an unknown or ambiguous
// id is a usage error naming it, and nothing is deleted.
func TestDeleteRunsUnknownIDDeletesNothing(t *testing.T) {
	ctx := context.Background()
	st := openTestStore(t)
	ws := t.TempDir()
	addRun(t, st, "20260101T000000-aaaaaa", ws, "a", 0)
	addRun(t, st, "20260101T000000-bbbbbb", ws, "b", 0)
	tests := []struct {
		name    string
		ids     []string
		want    string
		unknown bool
	}{
		{"unknown", []string{"20260101T000000-aaaaaa", "20200101T000000-ffffff"},
			"nothing deleted: run \"20200101T000000-ffffff\": not found (see `agent runs`)", true},
		{"ambiguous", []string{"20260101T000000-bbbbbb", "2026"},
			"nothing deleted: run id prefix \"2026\" is ambiguous (20260101T000000-aaaaaa, 20260101T000000-bbbbbb, ...): give more characters", false},
		{"both", []string{"nope", "2026"}, "nothing deleted: run \"nope\": not found (see `agent runs`); run id prefix \"2026\" is ambiguous", true},
		{"none", nil, "no run ids given", false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := deleteRuns(ctx, st, tc.ids, DeleteOptions{Reason: "test",
				Deleted: func(r protocol.RunInfo, _ protocol.Deleted) { t.Errorf("deleted %s", r.ID) }})
			var ue *UsageError
			if !errors.As(err, &ue) || !strings.HasPrefix(err.Error(), tc.want) {
				t.Fatalf("DeleteRuns = %v, want a usage error %q", err, tc.want)
			}
			if errors.Is(err, store.ErrNotFound) != tc.unknown {
				t.Errorf("errors.Is(err, store.ErrNotFound) = %v, want %v", !tc.unknown, tc.unknown)
			}
			if ids := runIDs(t, st); len(ids) != 2 {
				t.Errorf("runs left = %v, want both", ids)
			}
		})
	}
}

// A run a live process holds is refused with a usage error that is also
// ErrRunInUse, and then no run is deleted, not even those before it.
func TestDeleteRunsInUseDeletesNothing(t *testing.T) {
	ctx := context.Background()
	st := openTestStore(t)
	ws := t.TempDir()
	addRun(t, st, "20260101T000000-aaaaaa", ws, "a", 0)
	addRun(t, st, "20260101T000000-bbbbbb", ws, "b", 0)
	held, err := TryLockRun(st.Home(), "20260101T000000-bbbbbb")
	if err != nil {
		t.Fatal(err)
	}
	defer held.Unlock()
	err = deleteRuns(ctx, st, []string{"20260101T000000-aaaaaa", "20260101T000000-bbbbbb"}, DeleteOptions{Reason: "test"})
	var ue *UsageError
	want := "nothing deleted: run 20260101T000000-bbbbbb is in use by a live agent process; wait for it to finish or stop it (Ctrl-C), then retry"
	if !errors.As(err, &ue) || !errors.Is(err, ErrRunInUse) || err.Error() != want {
		t.Fatalf("DeleteRuns = %v, want a usage error, ErrRunInUse, %q", err, want)
	}
	if ids := runIDs(t, st); len(ids) != 2 {
		t.Errorf("runs left = %v, want both", ids)
	}
	// The lock of the first run was released again.
	if RunIsLive(st.Home(), "20260101T000000-aaaaaa") {
		t.Errorf("the first run's lock is still held")
	}
}

// When the snapshots cannot be deleted, the run stays in the journal (and
// listed, so the deletion can be retried) and the error says so.
func TestDeleteRunCheckpointFailureKeepsJournal(t *testing.T) {
	ctx := context.Background()
	st := openTestStore(t)
	parent := t.TempDir()
	ws := filepath.Join(parent, "gone", "ws")
	if err := os.MkdirAll(ws, 0o700); err != nil {
		t.Fatal(err)
	}
	addRun(t, st, "run-a", ws, "a", 0)
	snapshot(t, st.Home(), ws, "run-a")
	snapshot(t, st.Home(), ws, "run-b")
	// The workspace is gone and a file now sits where its parent was: the
	// path cannot be recreated for the prune.
	if err := os.RemoveAll(filepath.Join(parent, "gone")); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(parent, "gone"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	err := deleteRuns(ctx, st, []string{"run-a"}, DeleteOptions{Reason: "test"})
	if err == nil || !strings.Contains(err.Error(), "nothing of the run was deleted from the journal") || !strings.Contains(err.Error(), "mkdir -p") {
		t.Fatalf("DeleteRuns = %v, want the checkpoint failure naming the fix", err)
	}
	if _, err := st.GetRun(ctx, "run-a"); err != nil {
		t.Errorf("the run is gone from the journal: %v", err)
	}
}

// pruneOlder deletes the runs idle longer than the age, skips and reports one
// a live process holds, keeps the new one; a non-positive age deletes
// nothing.
func TestPruneOlder(t *testing.T) {
	ctx := context.Background()
	st := openTestStore(t)
	for _, id := range []string{"old-free", "old-held", "new"} {
		age := 48 * time.Hour
		if id == "new" {
			age = 0
		}
		addRun(t, st, id, t.TempDir(), id, age)
	}
	held, err := TryLockRun(st.Home(), "old-held")
	if err != nil {
		t.Fatal(err)
	}
	defer held.Unlock()
	for _, d := range []time.Duration{0, -time.Hour} {
		var ue *UsageError
		if n, err := pruneOlder(ctx, st, d, DeleteOptions{Reason: "test"}); n != 0 || !errors.As(err, &ue) {
			t.Errorf("pruneOlder(%s) = %d, %v; want a usage error", d, n, err)
		}
	}
	cands, err := pruneCandidates(ctx, st, 24*time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, r := range cands {
		names = append(names, r.ID)
	}
	if slices.Sort(names); !slices.Equal(names, []string{"old-free", "old-held"}) {
		t.Errorf("PruneCandidates = %v, want both old runs (the held one too: it is what a dry run lists)", names)
	}
	if _, err := pruneCandidates(ctx, st, 0); err == nil {
		t.Errorf("pruneCandidates(0) = nil error, want a usage error")
	}
	var deleted, skipped []string
	n, err := pruneOlder(ctx, st, 24*time.Hour, DeleteOptions{
		Reason:  "prune test",
		Deleted: func(r protocol.RunInfo, _ protocol.Deleted) { deleted = append(deleted, r.ID) },
		Skipped: func(r protocol.RunInfo) { skipped = append(skipped, r.ID) },
	})
	if n != 1 || err != nil || !slices.Equal(deleted, []string{"old-free"}) || !slices.Equal(skipped, []string{"old-held"}) {
		t.Errorf("PruneOlder = %d, %v; deleted %v, skipped %v", n, err, deleted, skipped)
	}
	if ids := runIDs(t, st); !slices.Equal(ids, []string{"new", "old-held"}) {
		t.Errorf("runs left = %v", ids)
	}
	log, _ := st.AuditLog(ctx, "old-free")
	if len(log) != 1 || log[0].Action != "delete" || !strings.Contains(log[0].Detail, "prune test") {
		t.Errorf("audit of the pruned run = %+v", log)
	}
}

// PruneRetention keeps everything at retention 0 without opening (or
// creating) the journal; otherwise it prunes the journal under home like
// pruneOlder, keeping a run a live process holds, and names the setting in
// the audit row.
func TestPruneRetention(t *testing.T) {
	ctx := context.Background()
	absent := filepath.Join(t.TempDir(), "never")
	if n, err := PruneRetention(ctx, absent, 0); n != 0 || err != nil {
		t.Errorf("retention 0: deleted %d, %v", n, err)
	}
	if _, err := os.Stat(absent); !os.IsNotExist(err) {
		t.Errorf("retention 0 created the state directory: %v", err)
	}

	st := openTestStore(t)
	for _, id := range []string{"old-free", "old-held", "new"} {
		age := 48 * time.Hour
		if id == "new" {
			age = 0
		}
		addRun(t, st, id, t.TempDir(), id, age)
	}
	held, err := TryLockRun(st.Home(), "old-held")
	if err != nil {
		t.Fatal(err)
	}
	defer held.Unlock()
	if n, err := PruneRetention(ctx, st.Home(), 0); n != 0 || err != nil || len(runIDs(t, st)) != 3 {
		t.Errorf("retention 0: deleted %d, %v", n, err)
	}
	if n, err := PruneRetention(ctx, st.Home(), 24*time.Hour); n != 1 || err != nil {
		t.Errorf("PruneRetention = %d, %v; want 1 run deleted", n, err)
	}
	if ids := runIDs(t, st); !slices.Equal(ids, []string{"new", "old-held"}) {
		t.Errorf("runs left = %v", ids)
	}
	log, _ := st.AuditLog(ctx, "old-free")
	if len(log) != 1 || log[0].Action != "delete" || !strings.Contains(log[0].Detail, "retention: [trace] retention = 24h0m0s") {
		t.Errorf("audit of the pruned run = %+v", log)
	}
}

// A state directory others can write is refused by PruneRetention as by
// every command: a usage error naming the chmod, and nothing deleted.
func TestPruneRetentionUnsafeHome(t *testing.T) {
	ctx := context.Background()
	st := openTestStore(t)
	addRun(t, st, "old", t.TempDir(), "x", 48*time.Hour)
	if err := os.Chmod(filepath.Join(st.Home(), "agent.db"), 0o644); err != nil {
		t.Fatal(err)
	}
	n, err := PruneRetention(ctx, st.Home(), 24*time.Hour)
	var ue *UsageError
	if n != 0 || !errors.As(err, &ue) || !strings.Contains(err.Error(), "chmod") {
		t.Errorf("PruneRetention with a 0644 journal = %d, %v; want a usage error naming chmod", n, err)
	}
	if ids := runIDs(t, st); len(ids) != 1 {
		t.Errorf("runs left = %v, want the old one kept", ids)
	}
}

// A reader in another connection keeps scrubJournal from emptying the log: a
// *ScrubError naming the file, which deleteRuns passes on as a warning.
func TestScrubBusyIsAWarning(t *testing.T) {
	ctx := context.Background()
	st := openTestStore(t)
	addRun(t, st, "a", t.TempDir(), "x", 0)
	other, err := store.Open(ctx, st.Home())
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	// An unfinished read holds a snapshot of the log.
	rows, err := other.DB().QueryContext(ctx, `SELECT seq FROM events`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	if !rows.Next() {
		t.Fatal("no events")
	}
	var warnings []string
	err = deleteRuns(ctx, st, []string{"a"}, DeleteOptions{Reason: "test", Warn: func(w string) { warnings = append(warnings, w) }})
	if err != nil {
		t.Fatal(err)
	}
	want := st.Path() + "-wal until the next checkpoint"
	if len(warnings) != 1 || !strings.Contains(warnings[0], store.ErrScrubBusy.Error()) || !strings.HasSuffix(warnings[0], want) {
		t.Errorf("warnings = %q, want one naming the busy log, ending %q", warnings, want)
	}
}
