package store

import (
	"context"
	"database/sql"
	"fmt"

	"agent/internal/event"
)

// EventsForReopen returns all of a run's events, in order, as a resume
// needs them: every model_request but the last keeps its step, model and
// spending but not its context report (Context is zero). Each request
// journals the report of its whole context, entry by entry, so the reports
// grow with the conversation and their sum with its square: 1,000 steps
// hold 79 MB of them, and decoding them all took seconds and ~100 MiB on
// reopening (issue 21: a reopened 1,000-step session ≤ 60 MiB). Folding a
// run and drawing its transcript use only the last report; `agent trace`
// and `agent context` read the journal whole through Events.
func (s *Store) EventsForReopen(ctx context.Context, runID string) ([]event.Event, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT seq, type, time, data,
		type = 'model_request' AND seq < (SELECT max(seq) FROM events WHERE run_id = ?1 AND type = 'model_request')
		FROM events WHERE run_id = ?1 ORDER BY seq`, runID)
	if err != nil {
		return nil, fmt.Errorf("read events: %w", err)
	}
	defer rows.Close()
	var out []event.Event
	for rows.Next() {
		var ev event.Event
		var typ, ts string
		var data []byte
		var lean bool
		if err := rows.Scan(&ev.Seq, &typ, &ts, &data, &lean); err != nil {
			return nil, fmt.Errorf("read events: %w", err)
		}
		if lean {
			if d, ok := dropKey(data, "context"); ok {
				data = d
			} // else: decoded whole, and DecodePayload says what is wrong
		}
		ev.RunID, ev.Type, ev.Time = runID, event.Type(typ), parseTime(ts)
		p, err := event.DecodePayload(ev.Type, data)
		if err != nil {
			return nil, fmt.Errorf("read event %d of run %s: %w", ev.Seq, runID, err)
		}
		ev.Data = p
		out = append(out, ev)
	}
	return out, rows.Err()
}

// FirstEvent returns the first event of type typ in a run, found false
// when it has none; the rest of the journal is not decoded.
func (s *Store) FirstEvent(ctx context.Context, runID string, typ event.Type) (event.Event, bool, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT seq, type, time, data FROM events WHERE run_id = ? AND type = ? ORDER BY seq LIMIT 1`, runID, string(typ))
	if err != nil {
		return event.Event{}, false, fmt.Errorf("read events: %w", err)
	}
	evs, err := scanEvents(rows, runID)
	if err != nil || len(evs) == 0 {
		return event.Event{}, false, err
	}
	return evs[0], true, nil
}

// scanEvents decodes rows of (seq, type, time, data) and closes them.
func scanEvents(rows *sql.Rows, runID string) ([]event.Event, error) {
	defer rows.Close()
	var out []event.Event
	for rows.Next() {
		var ev event.Event
		var typ, ts string
		var data []byte
		if err := rows.Scan(&ev.Seq, &typ, &ts, &data); err != nil {
			return nil, fmt.Errorf("read events: %w", err)
		}
		ev.RunID, ev.Type, ev.Time = runID, event.Type(typ), parseTime(ts)
		p, err := event.DecodePayload(ev.Type, data)
		if err != nil {
			return nil, fmt.Errorf("read event %d of run %s: %w", ev.Seq, runID, err)
		}
		ev.Data = p
		out = append(out, ev)
	}
	return out, rows.Err()
}
