package store

import (
	"context"
	"fmt"
	"strings"

	"agent/internal/event"
)

// EventsOfTypes returns a run's events of the given types, in order: what
// a fold that needs only a few kinds reads (a run's spend), without
// decoding the rest of its journal.
func (s *Store) EventsOfTypes(ctx context.Context, runID string, types ...event.Type) ([]event.Event, error) {
	if len(types) == 0 {
		return nil, nil
	}
	args := []any{runID}
	for _, t := range types {
		args = append(args, string(t))
	}
	q := `SELECT seq, type, time, data FROM events WHERE run_id = ? AND type IN (?` + strings.Repeat(", ?", len(types)-1) + `) ORDER BY seq`
	rows, err := s.db.QueryContext(ctx, q, args...)
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
