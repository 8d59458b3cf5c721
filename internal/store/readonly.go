package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
)

// OpenRead opens the journal for a command that only reads it (agent runs,
// trace, export, audit, checkpoints, context). When the state directory and
// its database can be written it is Open. Otherwise (a read-only AGENT_HOME:
// a mounted copy, a read-only file system, another user's directory shared
// for reading) the database is opened read-only: nothing is created,
// migrated or written, and ReadOnly reports true. A journal whose schema is
// older than this agent's, which only a migration could read, is refused
// with the fix.
func OpenRead(ctx context.Context, home string) (*Store, error) {
	if home == "" {
		return nil, errors.New("store: empty state directory (set AGENT_HOME)")
	}
	path := filepath.Join(home, "agent.db")
	_, statErr := os.Stat(path)
	if _, err := os.Stat(home); errors.Is(err, fs.ErrNotExist) && canWrite(filepath.Dir(home)) {
		return Open(ctx, home) // nothing there yet: made as any command makes it
	}
	if canWrite(home) && (errors.Is(statErr, fs.ErrNotExist) || canWrite(path)) {
		return Open(ctx, home)
	}
	if statErr != nil {
		if errors.Is(statErr, fs.ErrNotExist) {
			return nil, fmt.Errorf("no journal in the read-only state directory %s (nothing was recorded there; check AGENT_HOME)", home)
		}
		return nil, fmt.Errorf("open the journal: %w", statErr)
	}
	q := url.Values{}
	q.Add("mode", "ro")
	q.Add("_pragma", "busy_timeout(10000)")
	q.Add("_pragma", "query_only(1)")
	db, err := openRO(ctx, path, q)
	if err != nil {
		// A WAL database in a directory we cannot write, with no -shm to
		// share: read the database file as it is (a journal nobody is
		// writing has no WAL left; one being written has its -shm).
		q.Add("immutable", "1")
		if db, err = openRO(ctx, path, q); err != nil {
			return nil, fmt.Errorf("open the read-only journal %s: %w", path, err)
		}
	}
	s := &Store{db: db, path: path, home: home, readOnly: true}
	if err := s.checkSchema(ctx); err != nil {
		db.Close()
		return nil, err
	}
	return s, nil
}

func openRO(ctx context.Context, path string, q url.Values) (*sql.DB, error) {
	db, err := sql.Open("sqlite", "file:"+path+"?"+q.Encode())
	if err != nil {
		return nil, err
	}
	db.SetMaxOpenConns(2)
	var n int
	if err := db.QueryRowContext(ctx, `SELECT count(*) FROM sqlite_master`).Scan(&n); err != nil {
		db.Close()
		return nil, err
	}
	return db, nil
}

// checkSchema refuses, without migrating, a journal this agent could read
// only after a migration (or one newer than it knows).
func (s *Store) checkSchema(ctx context.Context) error {
	var v int
	if err := s.db.QueryRowContext(ctx, `SELECT coalesce(max(version),0) FROM schema_migrations`).Scan(&v); err != nil {
		return fmt.Errorf("read-only journal %s: no schema version (%w); open it once with a writable AGENT_HOME", s.path, err)
	}
	switch {
	case v > len(migrations):
		return fmt.Errorf("database %s has schema version %d, newer than this agent knows (%d); upgrade the agent", s.path, v, len(migrations))
	case v < len(migrations):
		return fmt.Errorf("read-only journal %s has schema version %d and this agent needs %d: it must be migrated, which a read-only AGENT_HOME does not allow; run an agent command once with the directory writable", s.path, v, len(migrations))
	}
	return nil
}

// ReadOnly reports whether the journal was opened read-only (OpenRead on
// a state directory that cannot be written): appends fail.
func (s *Store) ReadOnly() bool { return s.readOnly }
