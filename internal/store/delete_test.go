package store

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"agent/internal/event"
)

func marker(t *testing.T) string {
	t.Helper()
	b := make([]byte, 12)
	if _, err := rand.Read(b); err != nil {
		t.Fatal(err)
	}
	return "marker-" + hex.EncodeToString(b)
}

// fillRun creates a run whose prompt, messages and tool output carry text,
// with a checkpoint, a grant and an audited approval.
func fillRun(t *testing.T, st *Store, id, text string) {
	t.Helper()
	ctx := context.Background()
	if err := st.CreateRun(ctx, Run{ID: id, Workspace: "/tmp/ws-" + id, Model: "m", Approval: "ask", Prompt: "please " + text}); err != nil {
		t.Fatal(err)
	}
	evs := []event.Payload{
		&event.RunStartedData{Workspace: "/tmp/ws-" + id, Model: "m", Approval: "ask"},
		&event.UserMessageData{Text: "please " + text},
		&event.ModelRequestData{Step: 1},
		&event.AssistantMessageData{Step: 1, Text: "reading " + text, ToolCalls: []event.ToolCallRef{{ID: "c1", Name: "write_file", Arguments: `{"path":"a.txt","content":"` + text + `"}`}}},
		&event.ToolCallData{CallID: "c1", Name: "write_file", Arguments: `{"path":"a.txt","content":"` + text + `"}`, Risk: event.RiskWrite},
		&event.ApprovalData{CallID: "c1", Decision: "allow", Scope: "once", Source: "mode"},
		&event.CheckpointData{CheckpointID: "cp" + strings.Repeat("0", 30) + id[len(id)-6:], CallID: "c1", Kind: "after", Step: 1, Files: []string{"a.txt"}},
		&event.ToolResultData{CallID: "c1", Status: "ok", Output: strings.Repeat(text+" ", 50)},
		&event.RunFinishedData{Status: event.StatusCompleted, Steps: 1, ToolCalls: 1, Answer: "done with " + text},
	}
	for _, d := range evs {
		e := event.New(id, d)
		ev := &e
		if err := st.Append(ctx, ev); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := st.DB().ExecContext(ctx, `INSERT INTO grants(run_id, rule, created, expires) VALUES (?, ?, ?, ?)`,
		id, "run_command(echo "+text+")", now(), now()); err != nil {
		t.Fatal(err)
	}
}

func count(t *testing.T, st *Store, q string, args ...any) int {
	t.Helper()
	var n int
	if err := st.DB().QueryRow(q, args...).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// rawContains reports which of the database's files hold s in their bytes.
func rawContains(t *testing.T, home, s string) []string {
	t.Helper()
	var hits []string
	for _, name := range []string{"agent.db", "agent.db-wal", "agent.db-shm"} {
		b, err := os.ReadFile(filepath.Join(home, name))
		if errors.Is(err, os.ErrNotExist) {
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		if bytes.Contains(b, []byte(s)) {
			hits = append(hits, name)
		}
	}
	return hits
}

// Deleting a run removes its rows everywhere, audits the deletion without
// content, leaves other runs alone, and leaves no byte of its text in the
// database files.
func TestDeleteRunLeavesNoTrace(t *testing.T) {
	ctx := context.Background()
	home := filepath.Join(t.TempDir(), "state")
	st, err := Open(ctx, home)
	if err != nil {
		t.Fatal(err)
	}
	gone, kept := marker(t), marker(t)
	fillRun(t, st, "20260101T000000-aaaaaa", gone)
	fillRun(t, st, "20260101T000001-bbbbbb", kept)
	if hits := rawContains(t, home, gone); len(hits) == 0 {
		t.Fatalf("before deletion the marker is in no database file: the check below could not fail")
	}

	d, err := st.DeleteRun(ctx, "20260101T000000-aaaaaa", "agent runs rm by tester")
	if err != nil {
		t.Fatal(err)
	}
	if d.Events != 9 || d.Checkpoints != 1 {
		t.Errorf("DeleteRun = %+v, want 9 events and 1 checkpoint", d)
	}
	if err := st.Scrub(ctx); err != nil {
		t.Fatal(err)
	}
	for table, col := range map[string]string{"runs": "id", "events": "run_id", "checkpoints": "run_id", "grants": "run_id"} {
		if n := count(t, st, `SELECT count(*) FROM `+table+` WHERE `+col+` = ?`, "20260101T000000-aaaaaa"); n != 0 {
			t.Errorf("%s still has %d rows of the deleted run", table, n)
		}
		if n := count(t, st, `SELECT count(*) FROM `+table+` WHERE `+col+` = ?`, "20260101T000001-bbbbbb"); n == 0 {
			t.Errorf("%s lost the rows of the other run", table)
		}
	}
	if _, err := st.GetRun(ctx, "20260101T000000-aaaaaa"); !errors.Is(err, ErrNotFound) {
		t.Errorf("GetRun after delete: %v, want ErrNotFound", err)
	}
	log, err := st.AuditLog(ctx, "20260101T000000-aaaaaa")
	if err != nil {
		t.Fatal(err)
	}
	var actions []string
	for _, e := range log {
		actions = append(actions, e.Action)
		if strings.Contains(e.Detail, gone) {
			t.Errorf("audit row %s holds the run's content: %q", e.Action, e.Detail)
		}
	}
	if got := strings.Join(actions, ","); got != "approval,delete" {
		t.Errorf("audit actions = %s, want approval,delete", got)
	}
	if last := log[len(log)-1]; !strings.Contains(last.Detail, "9 events") || !strings.Contains(last.Detail, "agent runs rm by tester") {
		t.Errorf("delete audit detail = %q, want the event count and the reason", last.Detail)
	}
	if _, err := st.DeleteRun(ctx, "20260101T000000-aaaaaa", ""); !errors.Is(err, ErrNotFound) {
		t.Errorf("second DeleteRun: %v, want ErrNotFound", err)
	}
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	if hits := rawContains(t, home, gone); len(hits) > 0 {
		t.Errorf("the deleted run's text is still readable in %v", hits)
	}
	if hits := rawContains(t, home, kept); len(hits) == 0 {
		t.Errorf("the kept run's text is in no database file")
	}
	// The store still opens and is consistent.
	st, err = Open(ctx, home)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if res, err := st.IntegrityCheck(ctx); err != nil || res != "ok" {
		t.Errorf("integrity check = %q, %v", res, err)
	}
}

func TestRunsOlderThan(t *testing.T) {
	ctx := context.Background()
	st, err := Open(ctx, filepath.Join(t.TempDir(), "state"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	base := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	// updated times whose text does not sort as time: a whole second and
	// one with a fraction.
	for id, upd := range map[string]time.Time{
		"old-1": base.Add(-48 * time.Hour),
		"old-2": base.Add(-time.Second + 500*time.Millisecond),
		"edge":  base,
		"new":   base.Add(time.Hour),
	} {
		if err := st.CreateRun(ctx, Run{ID: id, Workspace: "/w"}); err != nil {
			t.Fatal(err)
		}
		if _, err := st.DB().ExecContext(ctx, `UPDATE runs SET updated = ? WHERE id = ?`, upd.Format(time.RFC3339Nano), id); err != nil {
			t.Fatal(err)
		}
	}
	runs, err := st.RunsOlderThan(ctx, base)
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, r := range runs {
		ids = append(ids, r.ID)
	}
	if got := strings.Join(ids, ","); got != "old-1,old-2" {
		t.Errorf("RunsOlderThan = %s, want old-1,old-2 (oldest first; edge and new are not older)", got)
	}
}
