package store

import (
	"context"
	"fmt"
	"time"
)

// AuditEntry is one row of the append-only audit log.
type AuditEntry struct {
	Time   time.Time `json:"time"`
	RunID  string    `json:"run_id"`
	Action string    `json:"action"`
	CallID string    `json:"call_id"`
	Detail string    `json:"detail"`
}

// Audit appends an audit row.
func (s *Store) Audit(ctx context.Context, e AuditEntry) error {
	if e.Time.IsZero() {
		e.Time = time.Now().UTC()
	}
	_, err := s.db.ExecContext(context.WithoutCancel(ctx), `INSERT INTO audit(time, run_id, action, call_id, detail) VALUES (?, ?, ?, ?, ?)`,
		e.Time.UTC().Format(time.RFC3339Nano), e.RunID, e.Action, e.CallID, e.Detail)
	if err != nil {
		return fmt.Errorf("audit %s: %w", e.Action, err)
	}
	return nil
}

// AuditLog returns audit rows, oldest first; runID filters when not empty.
func (s *Store) AuditLog(ctx context.Context, runID string) ([]AuditEntry, error) {
	q := `SELECT time, run_id, action, call_id, detail FROM audit`
	var args []any
	if runID != "" {
		q += ` WHERE run_id = ?`
		args = append(args, runID)
	}
	rows, err := s.db.QueryContext(ctx, q+` ORDER BY id`, args...)
	if err != nil {
		return nil, fmt.Errorf("read audit log: %w", err)
	}
	defer rows.Close()
	out := []AuditEntry{}
	for rows.Next() {
		var e AuditEntry
		var ts string
		if err := rows.Scan(&ts, &e.RunID, &e.Action, &e.CallID, &e.Detail); err != nil {
			return nil, fmt.Errorf("read audit log: %w", err)
		}
		e.Time = parseTime(ts)
		out = append(out, e)
	}
	return out, rows.Err()
}
