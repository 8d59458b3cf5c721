package store

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"
)

// Deleted says what DeleteRun removed.
type Deleted struct {
	RunID       string
	Events      int
	Checkpoints int
}

// DeleteRun deletes a run (exact id, no prefix) with its events, its
// checkpoint index rows and its approval grants (foreign keys cascade from
// runs), and appends an audit row "delete" in the same transaction, so the
// deletion and its record stand or fall together. The audit row holds the
// counts and reason, never the prompt or any content; the run's earlier audit
// rows (approvals, rollbacks, exports) stay, as the audit log is append-only.
//
// Freed pages are overwritten (the connection runs with secure_delete), but
// until Scrub checkpoints the write-ahead log the old page images may still
// sit in agent.db-wal: call Scrub after a batch of deletions.
func (s *Store) DeleteRun(ctx context.Context, id, reason string) (Deleted, error) {
	d := Deleted{RunID: id}
	ctx = context.WithoutCancel(ctx) // a deletion is not abandoned half-way
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return d, fmt.Errorf("delete run %s: %w", id, err)
	}
	defer tx.Rollback()
	var exists int
	if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM runs WHERE id = ?`, id).Scan(&exists); err != nil {
		return d, fmt.Errorf("delete run %s: %w", id, err)
	}
	if exists == 0 {
		return d, fmt.Errorf("run %q: %w (see `agent runs`)", id, ErrNotFound)
	}
	if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM events WHERE run_id = ?`, id).Scan(&d.Events); err != nil {
		return d, fmt.Errorf("delete run %s: count events: %w", id, err)
	}
	if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM checkpoints WHERE run_id = ?`, id).Scan(&d.Checkpoints); err != nil {
		return d, fmt.Errorf("delete run %s: count checkpoints: %w", id, err)
	}
	// Children first, explicitly: the cascade would do it, but a table added
	// later without ON DELETE CASCADE must fail loudly rather than keep rows.
	for _, q := range []string{
		`DELETE FROM events WHERE run_id = ?`,
		`DELETE FROM checkpoints WHERE run_id = ?`,
		`DELETE FROM grants WHERE run_id = ?`,
		`DELETE FROM runs WHERE id = ?`,
	} {
		if _, err := tx.ExecContext(ctx, q, id); err != nil {
			return d, fmt.Errorf("delete run %s: %w", id, err)
		}
	}
	detail := fmt.Sprintf("deleted %d events, %d checkpoints", d.Events, d.Checkpoints)
	if reason != "" {
		detail += "; " + reason
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO audit(time, run_id, action, call_id, detail) VALUES (?, ?, 'delete', '', ?)`,
		now(), id, detail); err != nil {
		return d, fmt.Errorf("delete run %s: audit: %w", id, err)
	}
	if err := tx.Commit(); err != nil {
		return d, fmt.Errorf("delete run %s: %w", id, err)
	}
	return d, nil
}

// ErrScrubBusy says another connection kept Scrub from emptying the
// write-ahead log; deleted content may linger in agent.db-wal until the next
// checkpoint.
var ErrScrubBusy = errors.New("the write-ahead log is in use by another agent process")

// Scrub copies the write-ahead log into the database and truncates it, so
// that pages of deleted runs (zeroed under secure_delete) no longer survive
// in agent.db-wal. It returns ErrScrubBusy when a reader in another process
// kept the log from being emptied.
func (s *Store) Scrub(ctx context.Context) error {
	var busy, logFrames, done int
	err := s.db.QueryRowContext(context.WithoutCancel(ctx), `PRAGMA wal_checkpoint(TRUNCATE)`).Scan(&busy, &logFrames, &done)
	if err != nil {
		return fmt.Errorf("scrub the write-ahead log: %w", err)
	}
	if busy != 0 {
		return fmt.Errorf("scrub: %w", ErrScrubBusy)
	}
	return nil
}

// RunsOlderThan returns the runs whose last activity (the updated time: the
// newest event, or a status change) is before t, oldest first. A run that is
// still being resumed months after it started is not old.
func (s *Store) RunsOlderThan(ctx context.Context, t time.Time) ([]Run, error) {
	// Timestamps are RFC 3339 text whose fraction is trimmed, so they do not
	// sort as strings; compare them as times.
	rows, err := s.db.QueryContext(ctx, `SELECT `+runCols+` FROM runs ORDER BY id`)
	if err != nil {
		return nil, fmt.Errorf("list old runs: %w", err)
	}
	defer rows.Close()
	var out []Run
	for rows.Next() {
		r, err := scanRun(rows)
		if err != nil {
			return nil, fmt.Errorf("list old runs: %w", err)
		}
		if r.Updated.Before(t) {
			out = append(out, r)
		}
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("list old runs: %w", err)
	}
	slices.SortStableFunc(out, func(a, b Run) int { return a.Updated.Compare(b.Updated) })
	return out, nil
}
