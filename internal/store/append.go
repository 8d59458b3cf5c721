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
	return s.appendOn(ctx, evs, false)
}

// AppendSync is Append committed with synchronous=FULL: the WAL is fsynced
// before it returns, which makes these events and every one committed before
// them durable.
func (s *Store) AppendSync(ctx context.Context, evs ...*event.Event) error {
	return s.appendOn(ctx, evs, true)
}

// appender is the one connection appends commit on, with its prepared
// statements. Other reads and writes use the pool.
type appender struct {
	mu    sync.Mutex
	conn  *sql.Conn
	stmts map[string]*sql.Stmt
	// last is the last seq this connection committed, by run
	// (append_known.go).
	last map[string]int64
}

// with runs fn on the append connection, opening it on first use.
func (a *appender) with(ctx context.Context, db *sql.DB, fn func(*sql.Conn) error) error {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.conn == nil {
		c, err := db.Conn(ctx)
		if err != nil {
			return err
		}
		a.conn, a.stmts = c, map[string]*sql.Stmt{}
	}
	return fn(a.conn)
}

func (a *appender) stmt(ctx context.Context, q string) (*sql.Stmt, error) {
	if st, ok := a.stmts[q]; ok {
		return st, nil
	}
	st, err := a.conn.PrepareContext(ctx, q)
	if err != nil {
		return nil, err
	}
	a.stmts[q] = st
	return st, nil
}

func (a *appender) close() {
	a.mu.Lock()
	defer a.mu.Unlock()
	for _, st := range a.stmts {
		st.Close()
	}
	if a.conn != nil {
		a.conn.Close()
	}
	a.conn, a.stmts, a.last = nil, nil, nil
}

// setSync switches the connection between synchronous=FULL (fsync the WAL
// at each commit) and NORMAL, by statements prepared once.
func (a *appender) setSync(ctx context.Context, full bool) error {
	q := sqlSyncNormal
	if full {
		q = sqlSyncFull
	}
	st, err := a.stmt(ctx, q)
	if err != nil {
		return err
	}
	_, err = st.ExecContext(ctx)
	return err
}

// The statements of an append, prepared once per handle.
const (
	sqlLastSeq  = `SELECT last_seq FROM runs WHERE id = ?`
	sqlInsertEv = `INSERT INTO events(run_id, seq, type, time, data) VALUES (?, ?, ?, ?, ?)`
	// The token sums saturate: SQLite turns an overflowing integer sum into a
	// REAL, and CAST clamps a REAL too large for an INTEGER to the largest one.
	sqlUpdateRunSet = `UPDATE runs SET last_seq = ?, updated = ?, steps = max(steps, ?), tool_calls = tool_calls + ?, tokens_in = CAST(tokens_in + ? AS INTEGER), tokens_out = CAST(tokens_out + ? AS INTEGER), status = coalesce(?, status), failure = coalesce(?, failure), answer = coalesce(?, answer), model = coalesce(?, model), approval = coalesce(?, approval)`
	sqlUpdateRun    = sqlUpdateRunSet + ` WHERE id = ?`
	// sqlUpdateRunAt is sqlUpdateRun while the run's last seq is still the
	// last parameter (append_known.go).
	sqlUpdateRunAt = sqlUpdateRunSet + ` WHERE id = ? AND last_seq = ?`
	sqlInsertCP    = `INSERT OR IGNORE INTO checkpoints(id, run_id, seq, step, call_id, kind, files, workspace, created) SELECT ?, id, ?, ?, ?, ?, ?, workspace, ? FROM runs WHERE id = ?`
	sqlInsertGr    = `INSERT INTO grants(run_id, rule, created, expires) VALUES (?, ?, ?, ?)`
	sqlDeleteGr    = `DELETE FROM grants WHERE run_id = ? AND rule = ?`
	sqlInsertAud   = `INSERT INTO audit(time, run_id, action, call_id, detail) VALUES (?, ?, ?, ?, ?)`
	// The transaction and the sync mode are statements on the append
	// connection too: database/sql's Tx would prepare every statement
	// again for each transaction (Tx.Stmt re-prepares a statement that
	// belongs to a Conn), which cost more than the inserts themselves.
	sqlBegin      = `BEGIN IMMEDIATE`
	sqlCommit     = `COMMIT`
	sqlRollback   = `ROLLBACK`
	sqlSyncFull   = `PRAGMA synchronous = FULL`
	sqlSyncNormal = `PRAGMA synchronous = NORMAL`
)

// runDelta is what a batch of events changes in its runs row.
type runDelta struct {
	steps, toolCalls, tokIn, tokOut int
	status, failure, answer         *string
	model, approval                 *string // a switch in the session (model_changed, mode_changed)
}

func (d *runDelta) fold(ev *event.Event) {
	set := func(p **string, v string) { *p = &v }
	switch x := ev.Data.(type) {
	case *event.ModelRequestData:
		d.steps = max(d.steps, x.Step)
	case *event.AssistantMessageData:
		if x.Tokens != nil {
			d.tokIn = event.SatAdd(d.tokIn, x.Tokens.Input)
			d.tokOut = event.SatAdd(d.tokOut, x.Tokens.Output)
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
	case *event.ModelChangedData:
		set(&d.model, x.To)
	case *event.ModeChangedData:
		set(&d.approval, string(x.To))
	}
}

func (s *Store) appendOn(ctx context.Context, evs []*event.Event, sync bool) error {
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
	// The journal write must not be abandoned half-way because the run was
	// cancelled: the interruption itself is journaled with a cancelled ctx.
	ctx = context.WithoutCancel(ctx)
	return s.app.with(ctx, s.db, func(*sql.Conn) error {
		if sync {
			if err := s.app.setSync(ctx, true); err != nil {
				return fmt.Errorf("append %s: %w", what, err)
			}
			defer s.app.setSync(ctx, false)
		}
		if last, ok := s.app.last[evs[0].RunID]; ok {
			if done, err := s.appendKnown(ctx, evs, data, what, last); done {
				return err
			}
		}
		return s.appendTx(ctx, evs, data, what)
	})
}

func (s *Store) appendTx(ctx context.Context, evs []*event.Event, data [][]byte, what string) error {
	runID := evs[0].RunID
	// Every statement runs on the append connection, prepared once: the
	// transaction is its own BEGIN/COMMIT, which the appender's lock keeps
	// to this one caller.
	stmt := func(q string) (*sql.Stmt, error) { return s.app.stmt(ctx, q) }
	for _, q := range []string{sqlBegin, sqlCommit, sqlRollback, sqlLastSeq, sqlInsertEv, sqlUpdateRun} {
		if _, err := stmt(q); err != nil {
			return fmt.Errorf("append %s: %w", what, err)
		}
	}
	begin, _ := stmt(sqlBegin)
	if _, err := begin.ExecContext(ctx); err != nil {
		return fmt.Errorf("append %s: %w", what, err)
	}
	committed := false
	defer func() {
		if !committed {
			rb, _ := stmt(sqlRollback)
			_, _ = rb.ExecContext(ctx)
			delete(s.app.last, runID)
		}
	}()
	q, _ := stmt(sqlLastSeq)
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
		if err := s.insertEvent(ctx, stmt, ev, ts, data[i]); err != nil {
			return fmt.Errorf("append %s: %w", ev.Type, err)
		}
		d.fold(ev)
	}
	u, _ := stmt(sqlUpdateRun)
	if _, err := u.ExecContext(ctx, last, ts, d.steps, d.toolCalls, d.tokIn, d.tokOut, d.status, d.failure, d.answer, d.model, d.approval, runID); err != nil {
		return fmt.Errorf("append %s: %w", what, err)
	}
	cm, _ := stmt(sqlCommit)
	if _, err := cm.ExecContext(ctx); err != nil {
		return fmt.Errorf("append %s: %w", what, err)
	}
	committed = true
	s.app.committed(runID, last)
	return nil
}

// insertEvent inserts one event and the rows derived from it.
func (s *Store) insertEvent(ctx context.Context, stmt func(string) (*sql.Stmt, error), ev *event.Event, ts string, data []byte) error {
	exec := func(q string, args ...any) error {
		st, err := stmt(q)
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
	case *event.GrantRevokedData:
		if err := exec(sqlDeleteGr, ev.RunID, x.Rule); err != nil {
			return fmt.Errorf("revoke grant: %w", err)
		}
	}
	if a, ok := auditFor(ev); ok {
		if err := exec(sqlInsertAud, ts, ev.RunID, a.Action, a.CallID, a.Detail); err != nil {
			return fmt.Errorf("audit: %w", err)
		}
	}
	return nil
}
