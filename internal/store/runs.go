package store

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"strings"
	"time"

	"agent/internal/event"
)

// Run is one row of the runs table.
type Run struct {
	ID        string             `json:"run_id"`
	Status    event.Status       `json:"status"`
	Workspace string             `json:"workspace"`
	Model     string             `json:"model"`
	Approval  event.ApprovalMode `json:"approval"`
	Prompt    string             `json:"prompt"`
	Started   time.Time          `json:"started"`
	Updated   time.Time          `json:"updated"`
	Steps     int                `json:"steps"`
	ToolCalls int                `json:"tool_calls"`
	TokensIn  int                `json:"tokens_in"`
	TokensOut int                `json:"tokens_out"`
	LastSeq   int64              `json:"last_seq"`
	Answer    string             `json:"answer"`
	Failure   string             `json:"failure"`
}

// NewRunID returns a sortable, readable run id: 20261129T203216-3f9a1c.
func NewRunID() string {
	var b [3]byte
	rand.Read(b[:])
	return time.Now().UTC().Format("20060102T150405") + "-" + hex.EncodeToString(b[:])
}

// CreateRun inserts a run in status running.
func (s *Store) CreateRun(ctx context.Context, r Run) error {
	t := now()
	_, err := s.db.ExecContext(ctx, `INSERT INTO runs(id, status, workspace, model, approval, prompt, started, updated)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?)`, r.ID, string(event.StatusRunning), r.Workspace, r.Model, r.Approval, r.Prompt, t, t)
	if err != nil {
		return fmt.Errorf("create run: %w", err)
	}
	return nil
}

const runCols = `id, status, workspace, model, approval, prompt, started, updated, steps, tool_calls, tokens_in, tokens_out, last_seq, answer, failure`

func scanRun(sc interface{ Scan(...any) error }) (Run, error) {
	var r Run
	var started, updated string
	err := sc.Scan(&r.ID, &r.Status, &r.Workspace, &r.Model, &r.Approval, &r.Prompt, &started, &updated,
		&r.Steps, &r.ToolCalls, &r.TokensIn, &r.TokensOut, &r.LastSeq, &r.Answer, &r.Failure)
	r.Started, r.Updated = parseTime(started), parseTime(updated)
	return r, err
}

// GetRun returns the run with that id, or with that unique id prefix.
func (s *Store) GetRun(ctx context.Context, id string) (Run, error) {
	id = strings.TrimSpace(id)
	if id == "" {
		return Run{}, fmt.Errorf("run id is empty: %w", ErrNotFound)
	}
	rows, err := s.db.QueryContext(ctx, `SELECT `+runCols+` FROM runs WHERE id = ? OR id LIKE ? ESCAPE '\' ORDER BY id = ? DESC LIMIT 3`,
		id, escapeLike(id)+"%", id)
	if err != nil {
		return Run{}, fmt.Errorf("get run: %w", err)
	}
	defer rows.Close()
	var found []Run
	for rows.Next() {
		r, err := scanRun(rows)
		if err != nil {
			return Run{}, fmt.Errorf("get run: %w", err)
		}
		found = append(found, r)
	}
	if err := rows.Err(); err != nil {
		return Run{}, fmt.Errorf("get run: %w", err)
	}
	switch {
	case len(found) == 0:
		return Run{}, fmt.Errorf("run %q: %w (see `agent runs`)", id, ErrNotFound)
	case found[0].ID == id || len(found) == 1:
		return found[0], nil
	}
	return Run{}, fmt.Errorf("run id prefix %q is ambiguous (%s, %s, ...): give more characters", id, found[0].ID, found[1].ID)
}

func escapeLike(s string) string {
	r := strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`)
	return r.Replace(s)
}

// ListRuns returns runs, newest first (as agent runs lists them).
func (s *Store) ListRuns(ctx context.Context) ([]Run, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT `+runCols+` FROM runs ORDER BY started DESC, id DESC`)
	if err != nil {
		return nil, fmt.Errorf("list runs: %w", err)
	}
	defer rows.Close()
	var out []Run
	for rows.Next() {
		r, err := scanRun(rows)
		if err != nil {
			return nil, fmt.Errorf("list runs: %w", err)
		}
		out = append(out, r)
	}
	return out, rows.Err()
}

// auditFor derives the audit row of an event that is an audit fact.
func auditFor(ev *event.Event) (AuditEntry, bool) {
	switch d := ev.Data.(type) {
	case *event.ApprovalData:
		detail := fmt.Sprintf("%s by %s (scope %s)", d.Decision, d.Source, d.Scope)
		if d.Rule != "" {
			detail += "; rule " + d.Rule
		}
		if d.Reason != "" {
			detail += "; " + d.Reason
		}
		if d.Note != "" {
			detail += "; note: " + d.Note
		}
		if d.Hook != "" {
			detail += "; hook " + d.Hook
		}
		return AuditEntry{Action: "approval", CallID: d.CallID, Detail: detail}, true
	case *event.RunStartedData:
		// Running commands without the OS sandbox, when one was asked for or
		// by a choice other than the default, is a decision on record.
		sb := d.Sandbox
		if sb == nil || sb.Mode != event.SandboxOff || (sb.Requested == "" && (sb.Source == "" || sb.Source == "default")) {
			return AuditEntry{}, false
		}
		detail := "commands run without the OS sandbox: mode off from the " + sb.Source
		if sb.Requested != "" {
			detail = "commands run without the OS sandbox: " + string(sb.Requested) + " was asked for (" + sb.Source + ")"
		}
		if sb.Note != "" {
			detail += "; " + sb.Note
		}
		return AuditEntry{Action: "sandbox", Detail: detail}, true
	case *event.ModeChangedData:
		return AuditEntry{Action: "mode_changed", Detail: fmt.Sprintf("approval mode %s -> %s by %s", d.From, d.To, d.Source)}, true
	case *event.ModelChangedData:
		return AuditEntry{Action: "model_changed", Detail: fmt.Sprintf("model %s -> %s by %s", d.From, d.To, d.Source)}, true
	case *event.GrantRevokedData:
		return AuditEntry{Action: "grant_revoked", Detail: fmt.Sprintf("rule %s revoked by %s", d.Rule, d.Source)}, true
	case *event.RollbackData:
		return AuditEntry{Action: "rollback", Detail: fmt.Sprintf("to checkpoint %s (pre-rollback checkpoint %s), %d files, conversation=%t",
			d.CheckpointID, d.Before, len(d.Files), d.Conversation)}, true
	}
	return AuditEntry{}, false
}

// Events returns a run's events with seq > after, in order.
func (s *Store) Events(ctx context.Context, runID string, after int64) ([]event.Event, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT seq, type, time, data FROM events WHERE run_id = ? AND seq > ? ORDER BY seq`, runID, after)
	if err != nil {
		return nil, fmt.Errorf("read events: %w", err)
	}
	return scanEvents(rows, runID)
}
