package store

import (
	"context"
	"fmt"
	"time"
)

// AddGrant records an "allow for this run" grant that expires at expires.
func (s *Store) AddGrant(ctx context.Context, runID, rule string, now, expires time.Time) error {
	_, err := s.db.ExecContext(ctx, `INSERT INTO grants(run_id, rule, created, expires) VALUES (?, ?, ?, ?)`,
		runID, rule, now.UTC().Format(time.RFC3339Nano), expires.UTC().Format(time.RFC3339Nano))
	if err != nil {
		return fmt.Errorf("record grant: %w", err)
	}
	return nil
}

// ActiveGrants returns the rules granted for a run that have not expired.
func (s *Store) ActiveGrants(ctx context.Context, runID string, now time.Time) ([]string, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT rule, expires FROM grants WHERE run_id = ? ORDER BY created`, runID)
	if err != nil {
		return nil, fmt.Errorf("read grants: %w", err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var rule, exp string
		if err := rows.Scan(&rule, &exp); err != nil {
			return nil, fmt.Errorf("read grants: %w", err)
		}
		if parseTime(exp).After(now) {
			out = append(out, rule)
		}
	}
	return out, rows.Err()
}
