package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"time"

	"agent/internal/event"
)

// Append commits events of one run in one transaction, in order: each gets
// the next seq of the run (gapless). An event whose Seq is set must have
// exactly that next seq, or nothing is committed (another writer got in
// between). ev.Seq and ev.Time are filled in when zero. The events' counters
// are folded into the runs row; events that are audit facts (approval
// decisions, rollbacks) get their audit row, a run-scoped approval its grant
// and a checkpoint its index row in the same transaction, so they stand or
// fall together. The events survive the process being killed when Append
// returns (WAL, synchronous NORMAL); AppendSync also survives a power loss.
func (s *Store) Append(ctx context.Context, evs ...*event.Event) error {
	return s.appendOn(ctx, s.db, evs)
}

// AppendSync is Append on a connection with synchronous=FULL: the WAL is
// fsynced before it returns, which makes these events and every one committed
// before them durable.
func (s *Store) AppendSync(ctx context.Context, evs ...*event.Event) error {
	return s.appendOn(ctx, s.dbSync, evs)
}

// The statements of an append, prepared once per handle.
const (
	sqlLastSeq    = `SELECT last_seq FROM runs WHERE id = ?`
	sqlInsertEv   = `INSERT INTO events(run_id, seq, type, time, data) VALUES (?, ?, ?, ?, ?)`
	sqlUpdateRun  = `UPDATE runs SET last_seq = ?, updated = ?, steps = max(steps, ?), tool_calls = tool_calls + ?, tokens_in = tokens_in + ?, tokens_out = tokens_out + ?, status = coalesce(?, status), failure = coalesce(?, failure), answer = coalesce(?, answer) WHERE id = ?`
	sqlInsertCP   = `INSERT OR IGNORE INTO checkpoints(id, run_id, seq, step, call_id, kind, files, workspace, created) SELECT ?, id, ?, ?, ?, ?, ?, workspace, ? FROM runs WHERE id = ?`
	sqlInsertGr   = `INSERT INTO grants(run_id, rule, created, expires) VALUES (?, ?, ?, ?)`
	sqlInsertAud  = `INSERT INTO audit(time, run_id, action, call_id, detail) VALUES (?, ?, ?, ?, ?)`
	numStatements = 6
)

// stmtCache holds a handle's prepared statements.
type stmtCache struct {
	mu sync.Mutex
	m  map[string]*sql.Stmt
}

func (c *stmtCache) get(ctx context.Context, db *sql.DB, q string) (*sql.Stmt, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if st, ok := c.m[q]; ok {
		return st, nil
	}
	st, err := db.PrepareContext(ctx, q)
	if err != nil {
		return nil, err
	}
	if c.m == nil {
		c.m = make(map[string]*sql.Stmt, numStatements)
	}
	c.m[q] = st
	return st, nil
}

// prepare prepares every statement of an append that is not yet.
func (c *stmtCache) prepare(ctx context.Context, db *sql.DB) error {
	for _, q := range []string{sqlLastSeq, sqlInsertEv, sqlUpdateRun, sqlInsertCP, sqlInsertGr, sqlInsertAud} {
		if _, err := c.get(ctx, db, q); err != nil {
			return err
		}
	}
	return nil
}

func (c *stmtCache) close() {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, st := range c.m {
		st.Close()
	}
	c.m = nil
}

// runDelta is what a batch of events changes in its runs row.
type runDelta struct {
	steps, toolCalls, tokIn, tokOut int
	status, failure, answer         *string
}

func (d *runDelta) fold(ev *event.Event) {
	set := func(p **string, v string) { *p = &v }
	switch x := ev.Data.(type) {
	case *event.ModelRequestData:
		d.steps = max(d.steps, x.Step)
	case *event.AssistantMessageData:
		if x.Tokens != nil {
			d.tokIn += x.Tokens.Input
			d.tokOut += x.Tokens.Output
		}
	case *event.ToolCallData:
		d.toolCalls++
	case *event.RunStartedData, *event.ResumeData:
		set(&d.status, string(event.StatusRunning))
	case *event.ErrorData:
		set(&d.failure, string(x.Class)+": "+x.Message)
	case *event.RunFinishedData:
		set(&d.status, string(x.Status))
		set(&d.answer, x.Answer)
	}
}

func (s *Store) appendOn(ctx context.Context, db *sql.DB, evs []*event.Event) error {
	if len(evs) == 0 {
		return nil
	}
	what := string(evs[0].Type)
	if len(evs) > 1 {
		what = fmt.Sprintf("%d events from %s", len(evs), evs[0].Type)
	}
	runID := evs[0].RunID
	data := make([][]byte, len(evs))
	for i, ev := range evs {
		if ev.Data == nil || ev.Data.EventType() != ev.Type {
			return fmt.Errorf("append %s: the payload is not of this event type", ev.Type)
		}
		if ev.RunID != runID {
			return fmt.Errorf("append %s: events of two runs in one append", what)
		}
		b, err := json.Marshal(ev.Data)
		if err != nil {
			return fmt.Errorf("append %s: %w", ev.Type, err)
		}
		data[i] = b
	}
	cache := &s.stmts
	if db == s.dbSync {
		cache = &s.stmtsSync
	}
	// Prepared before the transaction: the sync handle has one connection,
	// which the transaction then holds.
	if err := cache.prepare(ctx, db); err != nil {
		return fmt.Errorf("append %s: %w", what, err)
	}
	stmt := func(tx *sql.Tx, q string) (*sql.Stmt, error) {
		st, err := cache.get(ctx, db, q)
		if err != nil {
			return nil, err
		}
		return tx.StmtContext(ctx, st), nil
	}
	// The journal write must not be abandoned half-way because the run was
	// cancelled: the interruption itself is journaled with a cancelled ctx.
	ctx = context.WithoutCancel(ctx)
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("append %s: %w", what, err)
	}
	defer tx.Rollback()
	q, err := stmt(tx, sqlLastSeq)
	if err != nil {
		return fmt.Errorf("append %s: %w", what, err)
	}
	var last int64
	if err := q.QueryRowContext(ctx, runID).Scan(&last); err != nil {
		if errors.Is(err, sql.ErrNoRows) {
			return fmt.Errorf("append %s: run %s: %w", what, runID, ErrNotFound)
		}
		return fmt.Errorf("append %s: %w", what, err)
	}
	var d runDelta
	var ts string
	for i, ev := range evs {
		switch {
		case ev.Seq == 0:
			ev.Seq = last + 1
		case ev.Seq != last+1:
			return fmt.Errorf("append %s: the run's journal is at seq %d, this event says %d: another process wrote to run %s",
				ev.Type, last, ev.Seq, runID)
		}
		last = ev.Seq
		if ev.Time.IsZero() {
			ev.Time = time.Now().UTC()
		}
		ts = ev.Time.UTC().Format(time.RFC3339Nano)
		if err := s.insertEvent(ctx, stmt, tx, ev, ts, data[i]); err != nil {
			return fmt.Errorf("append %s: %w", ev.Type, err)
		}
		d.fold(ev)
	}
	u, err := stmt(tx, sqlUpdateRun)
	if err != nil {
		return fmt.Errorf("append %s: %w", what, err)
	}
	if _, err := u.ExecContext(ctx, last, ts, d.steps, d.toolCalls, d.tokIn, d.tokOut, d.status, d.failure, d.answer, runID); err != nil {
		return fmt.Errorf("append %s: %w", what, err)
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("append %s: %w", what, err)
	}
	return nil
}

// insertEvent inserts one event and the rows derived from it.
func (s *Store) insertEvent(ctx context.Context, stmt func(*sql.Tx, string) (*sql.Stmt, error), tx *sql.Tx, ev *event.Event, ts string, data []byte) error {
	exec := func(q string, args ...any) error {
		st, err := stmt(tx, q)
		if err != nil {
			return err
		}
		_, err = st.ExecContext(ctx, args...)
		return err
	}
	if err := exec(sqlInsertEv, ev.RunID, ev.Seq, string(ev.Type), ts, string(data)); err != nil {
		return err
	}
	switch x := ev.Data.(type) {
	case *event.CheckpointData:
		files, _ := json.Marshal(x.Files)
		if err := exec(sqlInsertCP, x.CheckpointID, ev.Seq, x.Step, x.CallID, string(x.Kind), string(files), ts, ev.RunID); err != nil {
			return fmt.Errorf("index checkpoint: %w", err)
		}
	case *event.ApprovalData:
		if x.Decision == event.Allow && x.Scope == event.ScopeRun && x.Grant != "" {
			if err := exec(sqlInsertGr, ev.RunID, x.Grant, ts, x.GrantExpires.UTC().Format(time.RFC3339Nano)); err != nil {
				return fmt.Errorf("record grant: %w", err)
			}
		}
	}
	if a, ok := auditFor(ev); ok {
		if err := exec(sqlInsertAud, ts, ev.RunID, a.Action, a.CallID, a.Detail); err != nil {
			return fmt.Errorf("audit: %w", err)
		}
	}
	return nil
}
