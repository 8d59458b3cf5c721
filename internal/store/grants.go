package store

import (
	"context"
	"fmt"
	"time"
)

// Grants are written by Append, with the approval event that grants them.

// A grant_revoked event deletes them, in its own transaction.

// Grant is a run grant: the rule it allows and when it expires.
type Grant struct {
	Rule    string
	Expires time.Time
}

// ActiveGrants returns the rules granted for a run that have not expired.
func (s *Store) ActiveGrants(ctx context.Context, runID string, now time.Time) ([]string, error) {
	gs, err := s.Grants(ctx, runID, now)
	if err != nil {
		return nil, err
	}
	out := make([]string, len(gs))
	for i, g := range gs {
		out[i] = g.Rule
	}
	return out, nil
}

// Grants returns a run's grants that have not expired at now, oldest first.
func (s *Store) Grants(ctx context.Context, runID string, now time.Time) ([]Grant, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT rule, expires FROM grants WHERE run_id = ? ORDER BY created`, runID)
	if err != nil {
		return nil, fmt.Errorf("read grants: %w", err)
	}
	defer rows.Close()
	var out []Grant
	for rows.Next() {
		var rule, exp string
		if err := rows.Scan(&rule, &exp); err != nil {
			return nil, fmt.Errorf("read grants: %w", err)
		}
		if t := parseTime(exp); t.After(now) {
			out = append(out, Grant{Rule: rule, Expires: t})
		}
	}
	return out, rows.Err()
}
