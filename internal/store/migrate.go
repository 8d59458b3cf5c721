package store

import (
	"context"
	"fmt"
)

// migrations are applied in order; each runs once, recorded in schema_migrations.
// Never edit a released migration: append a new one.
var migrations = []string{
	// 1: runs, events, audit.
	`CREATE TABLE runs (
		id         TEXT PRIMARY KEY,
		status     TEXT NOT NULL,
		workspace  TEXT NOT NULL,
		model      TEXT NOT NULL DEFAULT '',
		approval   TEXT NOT NULL DEFAULT '',
		prompt     TEXT NOT NULL DEFAULT '',
		started    TEXT NOT NULL,
		updated    TEXT NOT NULL,
		steps      INTEGER NOT NULL DEFAULT 0,
		tool_calls INTEGER NOT NULL DEFAULT 0,
		tokens_in  INTEGER NOT NULL DEFAULT 0,
		tokens_out INTEGER NOT NULL DEFAULT 0,
		last_seq   INTEGER NOT NULL DEFAULT 0,
		answer     TEXT NOT NULL DEFAULT '',
		failure    TEXT NOT NULL DEFAULT ''
	);
	CREATE INDEX runs_started ON runs(started);
	CREATE TABLE events (
		run_id TEXT NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
		seq    INTEGER NOT NULL,
		type   TEXT NOT NULL,
		time   TEXT NOT NULL,
		data   TEXT NOT NULL,
		PRIMARY KEY (run_id, seq)
	) WITHOUT ROWID;
	CREATE TRIGGER events_append_only BEFORE UPDATE ON events
	BEGIN SELECT RAISE(ABORT, 'events are append-only'); END;
	CREATE TABLE audit (
		id      INTEGER PRIMARY KEY AUTOINCREMENT,
		time    TEXT NOT NULL,
		run_id  TEXT NOT NULL DEFAULT '',
		action  TEXT NOT NULL,
		call_id TEXT NOT NULL DEFAULT '',
		detail  TEXT NOT NULL DEFAULT ''
	);
	CREATE INDEX audit_run ON audit(run_id);
	CREATE TRIGGER audit_append_only BEFORE UPDATE ON audit
	BEGIN SELECT RAISE(ABORT, 'the audit log is append-only'); END;
	CREATE TRIGGER audit_no_delete BEFORE DELETE ON audit
	BEGIN SELECT RAISE(ABORT, 'the audit log is append-only'); END;`,
	// 2: checkpoints index.
	`CREATE TABLE checkpoints (
		id        TEXT PRIMARY KEY,
		run_id    TEXT NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
		seq       INTEGER NOT NULL,
		step      INTEGER NOT NULL,
		call_id   TEXT NOT NULL DEFAULT '',
		kind      TEXT NOT NULL,
		files     TEXT NOT NULL DEFAULT '[]',
		workspace TEXT NOT NULL,
		created   TEXT NOT NULL
	);
	CREATE INDEX checkpoints_run ON checkpoints(run_id, seq);`,
	// 3: run-scoped approval grants.
	`CREATE TABLE grants (
		run_id  TEXT NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
		rule    TEXT NOT NULL,
		created TEXT NOT NULL,
		expires TEXT NOT NULL
	);
	CREATE INDEX grants_run ON grants(run_id);`,
	// 4: repo map tag cache.
	`CREATE TABLE repomap_tags (
		root  TEXT NOT NULL,
		path  TEXT NOT NULL,
		size  INTEGER NOT NULL,
		mtime INTEGER NOT NULL,
		data  BLOB NOT NULL,
		PRIMARY KEY (root, path)
	) WITHOUT ROWID;`,
}

func (s *Store) migrate(ctx context.Context) error {
	if _, err := s.db.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS schema_migrations (
		version INTEGER PRIMARY KEY, applied TEXT NOT NULL)`); err != nil {
		return fmt.Errorf("migrate: %w", err)
	}
	// The versions already applied, read once: a journal that is up to date
	// (every start but the first) costs one query, not a transaction per
	// migration (the start of an interactive session waits for this). The
	// check inside each transaction stays, for two processes migrating at once.
	applied, err := s.appliedVersions(ctx)
	if err != nil {
		return err
	}
	for i, m := range migrations {
		v := i + 1
		if applied[v] {
			continue
		}
		tx, err := s.db.BeginTx(ctx, nil)
		if err != nil {
			return fmt.Errorf("migrate %d: %w", v, err)
		}
		var n int
		if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM schema_migrations WHERE version = ?`, v).Scan(&n); err != nil {
			tx.Rollback()
			return fmt.Errorf("migrate %d: %w", v, err)
		}
		if n > 0 {
			tx.Rollback()
			continue
		}
		if _, err := tx.ExecContext(ctx, m); err != nil {
			tx.Rollback()
			return fmt.Errorf("migrate %d: %w", v, err)
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO schema_migrations(version, applied) VALUES (?, ?)`, v, now()); err != nil {
			tx.Rollback()
			return fmt.Errorf("migrate %d: %w", v, err)
		}
		if err := tx.Commit(); err != nil {
			return fmt.Errorf("migrate %d: %w", v, err)
		}
	}
	var max int
	if err := s.db.QueryRowContext(ctx, `SELECT coalesce(max(version),0) FROM schema_migrations`).Scan(&max); err != nil {
		return fmt.Errorf("migrate: %w", err)
	}
	if max > len(migrations) {
		return fmt.Errorf("database %s has schema version %d, newer than this agent knows (%d); upgrade the agent", s.path, max, len(migrations))
	}
	return nil
}

// appliedVersions returns the schema versions recorded as applied.
func (s *Store) appliedVersions(ctx context.Context) (map[int]bool, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT version FROM schema_migrations`)
	if err != nil {
		return nil, fmt.Errorf("migrate: %w", err)
	}
	defer rows.Close()
	applied := map[int]bool{}
	for rows.Next() {
		var v int
		if err := rows.Scan(&v); err != nil {
			return nil, fmt.Errorf("migrate: %w", err)
		}
		applied[v] = true
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("migrate: %w", err)
	}
	return applied, nil
}
