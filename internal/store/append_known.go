package store

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"agent/internal/event"
)

// An append reads the run's last seq (sqlLastSeq) to number its events and
// to refuse them when another process wrote in between. The append
// connection remembers the last seq it committed for a run, and the next
// append of that run numbers its events from it and makes the check part
// of the runs row's update instead (sqlUpdateRunAt: its WHERE holds only
// while the row still says that seq). Inside BEGIN IMMEDIATE nobody else
// writes and the events' inserts do not change the runs row, so when the
// update matches, the seq appendTx would have read is the remembered one
// and the transaction is the one appendTx makes: the same rows, the same
// commit, the same sync. When it does not match, or an insert fails (a seq
// taken, a run deleted), the transaction is rolled back, the memory
// dropped, the events' seq and time given back, and appendTx makes the
// append, reporting what it finds.

// maxKnownRuns bounds the runs whose last seq the connection remembers.
const maxKnownRuns = 256

// committed records that this connection committed runID's journal up to seq.
func (a *appender) committed(runID string, seq int64) {
	if a.last == nil || len(a.last) >= maxKnownRuns {
		a.last = map[string]int64{}
	}
	a.last[runID] = seq
}

// appendKnown makes the append numbered from last, the run's last seq as
// this connection committed it. done=false: nothing was committed, the
// events are as they came, and appendTx must make the append.
func (s *Store) appendKnown(ctx context.Context, evs []*event.Event, data [][]byte, what string, last int64) (done bool, err error) {
	runID := evs[0].RunID
	from := last
	for i, ev := range evs { // as appendTx numbers and checks them
		if ev.Seq != 0 && ev.Seq != from+int64(i)+1 {
			return false, nil
		}
	}
	stmt := func(q string) (*sql.Stmt, error) { return s.app.stmt(ctx, q) }
	for _, q := range []string{sqlBegin, sqlCommit, sqlRollback, sqlInsertEv, sqlUpdateRunAt} {
		if _, err := stmt(q); err != nil {
			return false, nil
		}
	}
	type given struct {
		seq int64
		t   time.Time
	}
	orig := make([]given, len(evs))
	for i, ev := range evs {
		orig[i] = given{ev.Seq, ev.Time}
	}
	begin, _ := stmt(sqlBegin)
	if _, err := begin.ExecContext(ctx); err != nil {
		delete(s.app.last, runID)
		return true, fmt.Errorf("append %s: %w", what, err)
	}
	open := true
	rollback := func() {
		if open {
			rb, _ := stmt(sqlRollback)
			_, _ = rb.ExecContext(ctx)
			open = false
		}
	}
	defer rollback()
	// fallBack undoes this attempt for appendTx.
	fallBack := func() (bool, error) {
		rollback()
		delete(s.app.last, runID)
		for i, ev := range evs {
			ev.Seq, ev.Time = orig[i].seq, orig[i].t
		}
		return false, nil
	}
	var d runDelta
	var ts string
	for i, ev := range evs {
		ev.Seq = last + 1
		last = ev.Seq
		if ev.Time.IsZero() {
			ev.Time = time.Now().UTC()
		}
		ts = ev.Time.UTC().Format(time.RFC3339Nano)
		if err := s.insertEvent(ctx, stmt, ev, ts, data[i]); err != nil {
			return fallBack()
		}
		d.fold(ev)
	}
	u, _ := stmt(sqlUpdateRunAt)
	res, err := u.ExecContext(ctx, last, ts, d.steps, d.toolCalls, d.tokIn, d.tokOut, d.status, d.failure, d.answer, d.model, d.approval, runID, from)
	if err != nil {
		return fallBack()
	}
	if n, err := res.RowsAffected(); err != nil || n != 1 {
		return fallBack()
	}
	cm, _ := stmt(sqlCommit)
	if _, err := cm.ExecContext(ctx); err != nil {
		delete(s.app.last, runID)
		return true, fmt.Errorf("append %s: %w", what, err)
	}
	open = false
	s.app.committed(runID, last)
	return true, nil
}
