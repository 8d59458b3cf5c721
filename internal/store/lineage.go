package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"

	"agent/internal/event"
)

// Starts returns the run_started payload of every run that journaled one,
// by run id: where each run came from (parent_run with parent_checkpoint
// for a fork, with parent_call for a subagent's child) and the worktree it
// was given. One query over the journal's first events.
func (s *Store) Starts(ctx context.Context) (map[string]*event.RunStartedData, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT e.run_id, e.data FROM runs r JOIN events e ON e.run_id = r.id AND e.seq = 1 WHERE e.type = ?`, string(event.RunStarted))
	if err != nil {
		return nil, fmt.Errorf("read run starts: %w", err)
	}
	defer rows.Close()
	out := map[string]*event.RunStartedData{}
	for rows.Next() {
		var id, data string
		if err := rows.Scan(&id, &data); err != nil {
			return nil, fmt.Errorf("read run starts: %w", err)
		}
		var d event.RunStartedData
		if err := json.Unmarshal([]byte(data), &d); err != nil {
			return nil, fmt.Errorf("read the run_started event of run %s: %w", id, err)
		}
		out[id] = &d
	}
	return out, rows.Err()
}

// Start returns one run's run_started payload (nil: none journaled).
func (s *Store) Start(ctx context.Context, runID string) (*event.RunStartedData, error) {
	var data string
	err := s.db.QueryRowContext(ctx, `SELECT data FROM events WHERE run_id = ? AND seq = 1 AND type = ?`, runID, string(event.RunStarted)).Scan(&data)
	if err != nil {
		if errors.Is(err, sql.ErrNoRows) {
			return nil, nil
		}
		return nil, fmt.Errorf("read the run_started event of run %s: %w", runID, err)
	}
	var d event.RunStartedData
	if err := json.Unmarshal([]byte(data), &d); err != nil {
		return nil, fmt.Errorf("read the run_started event of run %s: %w", runID, err)
	}
	return &d, nil
}
