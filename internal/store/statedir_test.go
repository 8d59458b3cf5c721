package store

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The state directory's mode decides: made by the agent (0700) or private
// already, quiet; readable by others (mkdir -p gives 0755), used with a
// notice that names the directory and chmod 700; writable by group or
// others, refused with the chmod go-w that fixes it.
func TestStateDirectoryModes(t *testing.T) {
	for _, tc := range []struct {
		name   string
		mode   fs.FileMode // 0: the agent creates the directory
		refuse bool
		notice bool
	}{
		{"created by the agent", 0, false, false},
		{"0700", 0o700, false, false},
		{"0755 from mkdir -p", 0o755, false, true},
		{"0750", 0o750, false, true},
		{"0711", 0o711, false, true},
		{"0775 group-writable", 0o775, true, false},
		{"0757 world-writable", 0o757, true, false},
		{"0777", 0o777, true, false},
		{"1777 like /tmp", 0o777 | fs.ModeSticky, true, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			home := filepath.Join(t.TempDir(), "state")
			if tc.mode != 0 {
				if err := os.Mkdir(home, 0o700); err != nil {
					t.Fatal(err)
				}
				if err := os.Chmod(home, tc.mode); err != nil {
					t.Fatal(err)
				}
			}
			st, err := Open(context.Background(), home)
			if tc.refuse {
				var pe *PermError
				if !errors.As(err, &pe) || !pe.Dir {
					t.Fatalf("Open = %v, want a PermError for the directory", err)
				}
				if msg := err.Error(); !strings.Contains(msg, "chmod go-w "+home) || !strings.Contains(msg, "refusing") {
					t.Errorf("message %q does not name the fix chmod go-w %s", msg, home)
				}
				if _, err := os.Stat(filepath.Join(home, "agent.db")); !errors.Is(err, fs.ErrNotExist) {
					t.Errorf("a refused directory got a database: %v", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			defer st.Close()
			if tc.mode == 0 {
				if fi, err := os.Stat(home); err != nil || fi.Mode().Perm() != 0o700 {
					t.Errorf("created state directory: %v %v, want 0700", fi.Mode(), err)
				}
			}
			if fi, err := os.Stat(st.Path()); err != nil || fi.Mode().Perm() != 0o600 {
				t.Errorf("database: %v %v, want 0600", fi.Mode(), err)
			}
			n := st.Notice()
			if tc.notice != (n != "") {
				t.Fatalf("notice = %q, want one: %v", n, tc.notice)
			}
			if tc.notice && (!strings.Contains(n, home) || !strings.Contains(n, "chmod 700 "+home)) {
				t.Errorf("notice %q does not name the directory and chmod 700", n)
			}
		})
	}
}

// The notice is shown once: after NoticeShown the same directory at the
// same mode is quiet, in this process and the next; a different mode that
// others can read warns again.
func TestStateNoticeShownOnce(t *testing.T) {
	ctx := context.Background()
	home := filepath.Join(t.TempDir(), "state")
	if err := os.Mkdir(home, 0o755); err != nil {
		t.Fatal(err)
	}
	open := func() *Store {
		t.Helper()
		st, err := Open(ctx, home)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { st.Close() })
		return st
	}
	st := open()
	if st.Notice() == "" {
		t.Fatal("no notice for a 0755 state directory")
	}
	if again := open(); again.Notice() == "" {
		t.Fatal("the notice was lost before it was shown")
	}
	if err := st.NoticeShown(); err != nil {
		t.Fatal(err)
	}
	if st.Notice() != "" {
		t.Error("Notice after NoticeShown is not empty")
	}
	if n := open().Notice(); n != "" {
		t.Errorf("a later open warns again: %q", n)
	}
	if fi, err := os.Stat(filepath.Join(home, noticeFile)); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("notice record: %v %v, want 0600", fi.Mode(), err)
	}
	if err := os.Chmod(home, 0o750); err != nil {
		t.Fatal(err)
	}
	if open().Notice() == "" {
		t.Error("no notice after the mode changed to 0750")
	}
}

// A database file that group or others can read is refused, naming chmod.
func TestReadableDatabaseRefused(t *testing.T) {
	home := t.TempDir()
	st, err := Open(context.Background(), home)
	if err != nil {
		t.Fatal(err)
	}
	st.Close()
	if err := os.Chmod(filepath.Join(home, "agent.db"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err = Open(context.Background(), home)
	var pe *PermError
	if !errors.As(err, &pe) || pe.Dir || !strings.Contains(err.Error(), "chmod go-rwx") {
		t.Fatalf("Open = %v, want a PermError naming chmod go-rwx", err)
	}
}
