package store

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"agent/internal/event"
)

// Checkpoint is one row of the checkpoint index: a shadow-repository commit
// bound to a position (seq) in a run's events.
type Checkpoint struct {
	ID        string               `json:"checkpoint_id"`
	RunID     string               `json:"run_id"`
	Seq       int64                `json:"seq"`
	Step      int                  `json:"step"`
	CallID    string               `json:"call_id"`
	Kind      event.CheckpointKind `json:"kind"`
	Files     []string             `json:"files"`
	Workspace string               `json:"workspace"`
	Created   time.Time            `json:"created"`
}

const cpCols = `id, run_id, seq, step, call_id, kind, files, workspace, created`

func scanCheckpoint(sc interface{ Scan(...any) error }) (Checkpoint, error) {
	var c Checkpoint
	var files, created string
	if err := sc.Scan(&c.ID, &c.RunID, &c.Seq, &c.Step, &c.CallID, &c.Kind, &files, &c.Workspace, &created); err != nil {
		return c, err
	}
	c.Created = parseTime(created)
	c.Files = []string{}
	if err := json.Unmarshal([]byte(files), &c.Files); err != nil {
		return c, fmt.Errorf("checkpoint %s files: %w", c.ID, err)
	}
	return c, nil
}

// Checkpoints lists a run's checkpoints, oldest first.
func (s *Store) Checkpoints(ctx context.Context, runID string) ([]Checkpoint, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT `+cpCols+` FROM checkpoints WHERE run_id = ? ORDER BY seq`, runID)
	if err != nil {
		return nil, fmt.Errorf("list checkpoints: %w", err)
	}
	defer rows.Close()
	out := []Checkpoint{}
	for rows.Next() {
		c, err := scanCheckpoint(rows)
		if err != nil {
			return nil, fmt.Errorf("list checkpoints: %w", err)
		}
		out = append(out, c)
	}
	return out, rows.Err()
}

// GetCheckpoint finds a checkpoint by id or unique id prefix (at least 4).
func (s *Store) GetCheckpoint(ctx context.Context, id string) (Checkpoint, error) {
	id = strings.ToLower(strings.TrimSpace(id))
	if len(id) < 4 {
		return Checkpoint{}, fmt.Errorf("checkpoint id %q is too short: give at least 4 characters (see `agent checkpoints RUN_ID`)", id)
	}
	rows, err := s.db.QueryContext(ctx, `SELECT `+cpCols+` FROM checkpoints WHERE id LIKE ? ESCAPE '\' ORDER BY id LIMIT 2`, escapeLike(id)+"%")
	if err != nil {
		return Checkpoint{}, fmt.Errorf("get checkpoint: %w", err)
	}
	defer rows.Close()
	var found []Checkpoint
	for rows.Next() {
		c, err := scanCheckpoint(rows)
		if err != nil {
			return Checkpoint{}, err
		}
		found = append(found, c)
	}
	switch len(found) {
	case 0:
		return Checkpoint{}, fmt.Errorf("checkpoint %q: %w (see `agent checkpoints RUN_ID`)", id, ErrNotFound)
	case 1:
		return found[0], rows.Err()
	}
	return Checkpoint{}, fmt.Errorf("checkpoint prefix %q is ambiguous: give more characters", id)
}
