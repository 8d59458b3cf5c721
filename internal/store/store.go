// Package store owns the SQLite journal at $AGENT_HOME/agent.db: the runs table,
// the append-only events table (gapless seq per run), the audit log, the
// checkpoint index and other durable facts, with versioned schema migrations.
//
// It must not interpret events beyond the counters it keeps on runs, and it must
// not touch the workspace, the model or the shadow git repositories.
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
	"strings"
	"time"

	_ "modernc.org/sqlite" // the pure-Go SQLite driver ("sqlite")

	"agent/internal/atomicfile"
)

// ErrNotFound is returned when a run, checkpoint or row does not exist.
var ErrNotFound = errors.New("not found")

// PermError says the state directory is writable by group or others (Dir),
// or a file of the journal is readable by them. Either is refused.
type PermError struct {
	Path string
	Mode fs.FileMode
	Dir  bool
}

func (e *PermError) Error() string {
	if e.Dir {
		return fmt.Sprintf("state directory %s has mode %#o: group or others can write to it and could replace the journal or the checkpoints; refusing to use it (fix: chmod go-w %s)", e.Path, e.Mode.Perm(), e.Path)
	}
	return fmt.Sprintf("%s has mode %#o and is readable by group or others; refusing to use it (fix: chmod go-rwx %s)", e.Path, e.Mode.Perm(), e.Path)
}

// noticeFile records the state directory's mode that the person was last
// warned about (see Store.Notice).
const noticeFile = "mode-notice"

// Store is an open journal.
type Store struct {
	db *sql.DB
	// app is the connection every append of this process commits on (see
	// append.go), so the journal's pages stay in one cache.
	app  appender
	path string
	home string
	// readOnly: opened by OpenRead on a state directory that cannot be
	// written.
	readOnly bool
	notice   string
	mode     fs.FileMode
}

// Open opens (creating if needed) the journal under home.
//
// A state directory the agent creates is 0700. One that exists may be
// readable by others (plain mkdir gives 0755): the agent keeps everything it
// writes there private (the database 0600; the shadow repositories, locks
// and keys 0600 files in 0700 directories) and Notice says so once. One that
// group or others can write to is refused (PermError), as is a database
// file that group or others can read, as ssh refuses a readable key.
func Open(ctx context.Context, home string) (*Store, error) {
	if home == "" {
		return nil, errors.New("store: empty state directory (set AGENT_HOME)")
	}
	mode, err := stateDir(home)
	if err != nil {
		return nil, err
	}
	path := filepath.Join(home, "agent.db")
	if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
		f, err := os.OpenFile(path, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
		if err != nil && !errors.Is(err, fs.ErrExist) {
			return nil, fmt.Errorf("create database: %w", err)
		}
		if f != nil {
			f.Close()
			if err := atomicfile.SyncDir(home); err != nil {
				return nil, fmt.Errorf("create database: %w", err)
			}
		}
	}
	for _, p := range []string{path, path + "-wal", path + "-shm"} {
		if err := checkPrivate(p, false); err != nil {
			return nil, err
		}
	}
	db, err := openDB(path, "NORMAL", 4)
	if err != nil {
		return nil, err
	}
	s := &Store{db: db, path: path, home: home, mode: mode}
	if err := s.migrate(ctx); err != nil {
		db.Close()
		return nil, err
	}
	s.notice = s.readNotice()
	return s, nil
}

// openDB opens a handle on the database with the given synchronous mode.
func openDB(path, synchronous string, conns int) (*sql.DB, error) {
	q := url.Values{}
	q.Add("_pragma", "busy_timeout(10000)")
	q.Add("_pragma", "journal_mode(WAL)")
	q.Add("_pragma", "foreign_keys(1)")
	q.Add("_pragma", "synchronous("+synchronous+")")
	// Deleted content (agent runs rm, prune) is overwritten with zeros, not
	// left readable in free pages.
	q.Add("_pragma", "secure_delete(1)")
	q.Add("_txlock", "immediate")
	db, err := sql.Open("sqlite", "file:"+path+"?"+q.Encode())
	if err != nil {
		return nil, fmt.Errorf("open database %s: %w", path, err)
	}
	db.SetMaxOpenConns(conns)
	return db, nil
}

// stateDir makes home (0700, durably) unless it exists, and returns its
// mode; a directory group or others can write to is refused.
func stateDir(home string) (fs.FileMode, error) {
	fi, err := os.Stat(home)
	if errors.Is(err, fs.ErrNotExist) {
		parent := filepath.Dir(home)
		if err := os.MkdirAll(parent, 0o700); err != nil {
			return 0, fmt.Errorf("create state directory: %w", err)
		}
		if err := os.Mkdir(home, 0o700); err != nil && !errors.Is(err, fs.ErrExist) {
			return 0, fmt.Errorf("create state directory: %w", err)
		}
		if err := atomicfile.SyncDir(parent); err != nil {
			return 0, fmt.Errorf("create state directory: %w", err)
		}
		fi, err = os.Stat(home)
	}
	if err != nil {
		return 0, fmt.Errorf("state directory: %w", err)
	}
	if !fi.IsDir() {
		return 0, fmt.Errorf("state directory %s is not a directory (set AGENT_HOME to a directory)", home)
	}
	if err := checkPrivate(home, true); err != nil {
		return 0, err
	}
	return fi.Mode().Perm(), nil
}

// checkPrivate refuses a directory group or others can write to, or a file
// they can read.
func checkPrivate(p string, dir bool) error {
	st, err := os.Stat(p)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("stat %s: %w", p, err)
	}
	if dir && st.Mode().Perm()&0o022 != 0 {
		return &PermError{Path: p, Mode: st.Mode(), Dir: true}
	}
	if !dir && st.Mode().Perm()&0o077 != 0 {
		return &PermError{Path: p, Mode: st.Mode()}
	}
	return nil
}

// readNotice is the warning for a state directory others can read, unless
// the person was already warned about this directory at this mode.
func (s *Store) readNotice() string {
	if s.mode&0o077 == 0 {
		return ""
	}
	if b, err := os.ReadFile(filepath.Join(s.home, noticeFile)); err == nil && strings.TrimSpace(string(b)) == fmt.Sprintf("%#o", s.mode) {
		return ""
	}
	return fmt.Sprintf("state directory %s has mode %#o: other users can see which files it holds, though the agent keeps "+
		"every file it writes there private (0600, directories 0700); to hide the directory too: chmod 700 %s "+
		"(this warning is shown once)", s.home, s.mode, s.home)
}

// Notice is a warning about the state directory for the person, or "". It
// is shown once: after NoticeShown, later opens of the same directory at
// the same mode return "".
func (s *Store) Notice() string { return s.notice }

// NoticeShown records that Notice was shown (in the file mode-notice of the
// state directory, mode 0600).
func (s *Store) NoticeShown() error {
	if s.notice == "" {
		return nil
	}
	if err := atomicfile.Write(filepath.Join(s.home, noticeFile), []byte(fmt.Sprintf("%#o\n", s.mode)), 0o600); err != nil {
		return fmt.Errorf("record the state directory notice: %w", err)
	}
	s.notice = ""
	return nil
}

// Path is the database file.
func (s *Store) Path() string { return s.path }

// Home is the state directory.
func (s *Store) Home() string { return s.home }

// DB exposes the handle for packages that keep their own tables (cache, grants).
func (s *Store) DB() *sql.DB { return s.db }

// Close closes the database.
func (s *Store) Close() error {
	s.app.close()
	return s.db.Close()
}

// IntegrityCheck runs PRAGMA integrity_check and returns its verdict.
func (s *Store) IntegrityCheck(ctx context.Context) (string, error) {
	var res string
	if err := s.db.QueryRowContext(ctx, "PRAGMA integrity_check").Scan(&res); err != nil {
		return "", fmt.Errorf("integrity check: %w", err)
	}
	return res, nil
}

func now() string { return time.Now().UTC().Format(time.RFC3339Nano) }

func parseTime(s string) time.Time {
	t, _ := time.Parse(time.RFC3339Nano, s)
	return t
}

// SyncMode is PRAGMA synchronous as AppendSync commits (2 = FULL: the WAL
// is fsynced at the commit); -1 when it cannot be read.
func (s *Store) SyncMode(ctx context.Context) int {
	m := -1
	_ = s.app.with(ctx, s.db, func(c *sql.Conn) error {
		if err := s.app.setSync(ctx, true); err != nil {
			return err
		}
		defer s.app.setSync(ctx, false)
		return c.QueryRowContext(ctx, "PRAGMA synchronous").Scan(&m)
	})
	return m
}
