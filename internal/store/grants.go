package store

import (
	"context"
	"fmt"
	"time"
)

// Grants are written by Append, with the approval event that grants them.

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
