package store

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"agent/internal/event"
)

// Run is one row of the runs table.
type Run struct {
	ID        string       `json:"run_id"`
	Status    event.Status `json:"status"`
	Workspace string       `json:"workspace"`
	Model     string       `json:"model"`
	Approval  string       `json:"approval"`
	Prompt    string       `json:"prompt"`
	Started   time.Time    `json:"started"`
	Updated   time.Time    `json:"updated"`
	Steps     int          `json:"steps"`
	ToolCalls int          `json:"tool_calls"`
	TokensIn  int          `json:"tokens_in"`
	TokensOut int          `json:"tokens_out"`
	LastSeq   int64        `json:"last_seq"`
	Answer    string       `json:"answer"`
	Failure   string       `json:"failure"`
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

// ListRuns returns runs, oldest first.
func (s *Store) ListRuns(ctx context.Context) ([]Run, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT `+runCols+` FROM runs ORDER BY started, id`)
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

// Append commits one event: it takes the next seq of the run (gapless), inserts
// the event and folds its counters into the runs row, all in one transaction.
// ev.Seq and ev.Time are filled in. Events that are audit facts (approval
// decisions, rollbacks) get their audit row, and a run-scoped approval its
// grant, in the same transaction, so they stand or fall together. The event
// survives the process being killed when Append returns (WAL, synchronous
// NORMAL); AppendSync also survives a power loss.
func (s *Store) Append(ctx context.Context, ev *event.Event) error {
	return s.appendOn(ctx, s.db, ev)
}

// AppendSync is Append on a connection with synchronous=FULL: the WAL is
// fsynced before it returns, which makes this event and every one committed
// before it durable.
func (s *Store) AppendSync(ctx context.Context, ev *event.Event) error {
	return s.appendOn(ctx, s.dbSync, ev)
}

func (s *Store) appendOn(ctx context.Context, db *sql.DB, ev *event.Event) error {
	if ev.Data == nil || ev.Data.EventType() != ev.Type {
		return fmt.Errorf("append %s: the payload is not of this event type", ev.Type)
	}
	data, err := json.Marshal(ev.Data)
	if err != nil {
		return fmt.Errorf("append %s: %w", ev.Type, err)
	}
	// The journal write must not be abandoned half-way because the run was
	// cancelled: the interruption itself is journaled with a cancelled ctx.
	ctx = context.WithoutCancel(ctx)
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("append %s: %w", ev.Type, err)
	}
	defer tx.Rollback()
	var last int64
	if err := tx.QueryRowContext(ctx, `SELECT last_seq FROM runs WHERE id = ?`, ev.RunID).Scan(&last); err != nil {
		if errors.Is(err, sql.ErrNoRows) {
			return fmt.Errorf("append %s: run %s: %w", ev.Type, ev.RunID, ErrNotFound)
		}
		return fmt.Errorf("append %s: %w", ev.Type, err)
	}
	if ev.Time.IsZero() {
		ev.Time = time.Now().UTC()
	}
	ev.Seq = last + 1
	ts := ev.Time.UTC().Format(time.RFC3339Nano)
	if _, err := tx.ExecContext(ctx, `INSERT INTO events(run_id, seq, type, time, data) VALUES (?, ?, ?, ?, ?)`,
		ev.RunID, ev.Seq, string(ev.Type), ts, string(data)); err != nil {
		return fmt.Errorf("append %s: %w", ev.Type, err)
	}
	set, args := foldCounters(ev)
	args = append([]any{ev.Seq, ts}, args...)
	args = append(args, ev.RunID)
	if _, err := tx.ExecContext(ctx, `UPDATE runs SET last_seq = ?, updated = ?`+set+` WHERE id = ?`, args...); err != nil {
		return fmt.Errorf("append %s: %w", ev.Type, err)
	}
	switch d := ev.Data.(type) {
	case *event.CheckpointData:
		files, _ := json.Marshal(d.Files)
		if _, err := tx.ExecContext(ctx, `INSERT OR IGNORE INTO checkpoints(id, run_id, seq, step, call_id, kind, files, workspace, created)
			SELECT ?, id, ?, ?, ?, ?, ?, workspace, ? FROM runs WHERE id = ?`,
			d.CheckpointID, ev.Seq, d.Step, d.CallID, string(d.Kind), string(files), ts, ev.RunID); err != nil {
			return fmt.Errorf("append %s: index checkpoint: %w", ev.Type, err)
		}
	case *event.ApprovalData:
		if d.Decision == event.Allow && d.Scope == event.ScopeRun && d.Grant != "" {
			if _, err := tx.ExecContext(ctx, `INSERT INTO grants(run_id, rule, created, expires) VALUES (?, ?, ?, ?)`,
				ev.RunID, d.Grant, ts, d.GrantExpires.UTC().Format(time.RFC3339Nano)); err != nil {
				return fmt.Errorf("append %s: record grant: %w", ev.Type, err)
			}
		}
	}
	if a, ok := auditFor(ev); ok {
		if _, err := tx.ExecContext(ctx, `INSERT INTO audit(time, run_id, action, call_id, detail) VALUES (?, ?, ?, ?, ?)`,
			ts, ev.RunID, a.Action, a.CallID, a.Detail); err != nil {
			return fmt.Errorf("append %s: audit: %w", ev.Type, err)
		}
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("append %s: %w", ev.Type, err)
	}
	return nil
}

// foldCounters returns the extra SET clauses an event implies for its run row.
func foldCounters(ev *event.Event) (string, []any) {
	switch d := ev.Data.(type) {
	case *event.ModelRequestData:
		return `, steps = max(steps, ?)`, []any{d.Step}
	case *event.AssistantMessageData:
		if d.Tokens != nil {
			return `, tokens_in = tokens_in + ?, tokens_out = tokens_out + ?`, []any{d.Tokens.Input, d.Tokens.Output}
		}
	case *event.ToolCallData:
		return `, tool_calls = tool_calls + 1`, nil
	case *event.RunStartedData, *event.ResumeData:
		return `, status = ?`, []any{string(event.StatusRunning)}
	case *event.ErrorData:
		return `, failure = ?`, []any{string(d.Class) + ": " + d.Message}
	case *event.RunFinishedData:
		return `, status = ?, answer = ?`, []any{string(d.Status), d.Answer}
	}
	return "", nil
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
		return AuditEntry{Action: "approval", CallID: d.CallID, Detail: detail}, true
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
	defer rows.Close()
	var out []event.Event
	for rows.Next() {
		var ev event.Event
		var typ, ts, data string
		if err := rows.Scan(&ev.Seq, &typ, &ts, &data); err != nil {
			return nil, fmt.Errorf("read events: %w", err)
		}
		ev.RunID, ev.Type, ev.Time = runID, event.Type(typ), parseTime(ts)
		p, err := event.DecodePayload(ev.Type, []byte(data))
		if err != nil {
			return nil, fmt.Errorf("read event %d of run %s: %w", ev.Seq, runID, err)
		}
		ev.Data = p
		out = append(out, ev)
	}
	return out, rows.Err()
}
