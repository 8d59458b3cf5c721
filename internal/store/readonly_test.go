package store

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"agent/internal/event"
)

// On a state directory that cannot be written, OpenRead reads the journal
// as it is: it creates, migrates and writes nothing, and refuses a journal
// that would need a migration with the fix.
func TestOpenReadOnReadOnlyHome(t *testing.T) {
	ctx := context.Background()
	home := filepath.Join(t.TempDir(), "state")
	st, err := Open(ctx, home)
	if err != nil {
		t.Fatal(err)
	}
	fillRun(t, st, "20260101T000000-aaaaaa", "hello")
	st.Close()
	old := canWrite
	canWrite = func(string) bool { return false } // as on a read-only mount (root ignores file modes)
	t.Cleanup(func() { canWrite = old })
	_ = os.Remove(filepath.Join(home, "agent.db-wal"))
	_ = os.Remove(filepath.Join(home, "agent.db-shm"))
	before := listDir(t, home)

	ro, err := OpenRead(ctx, home)
	if err != nil {
		t.Fatal(err)
	}
	if !ro.ReadOnly() {
		t.Fatal("not read-only")
	}
	runs, err := ro.ListRuns(ctx)
	if err != nil || len(runs) != 1 {
		t.Fatalf("runs %v, %v", runs, err)
	}
	e := event.New("20260101T000000-aaaaaa", &event.UserMessageData{Text: "x"})
	if err := ro.Append(ctx, &e); err == nil {
		t.Fatal("an append to a read-only journal succeeded")
	}
	ro.Close()
	if after := listDir(t, home); after != before {
		t.Fatalf("the read-only open changed the state directory:\n%s\n---\n%s", before, after)
	}

	if _, err := OpenRead(ctx, filepath.Join(t.TempDir(), "none")); err == nil || !strings.Contains(err.Error(), "no journal") {
		t.Fatalf("missing journal: %v", err)
	}
	// A journal an older agent wrote: refused, not migrated.
	canWrite = old
	rw, err := Open(ctx, home)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := rw.DB().ExecContext(ctx, `DELETE FROM schema_migrations WHERE version = (SELECT max(version) FROM schema_migrations)`); err != nil {
		t.Fatal(err)
	}
	rw.Close()
	canWrite = func(string) bool { return false }
	if _, err := OpenRead(ctx, home); err == nil || !strings.Contains(err.Error(), "must be migrated") {
		t.Fatalf("old schema: %v", err)
	}
}

func listDir(t *testing.T, dir string) string {
	t.Helper()
	es, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for _, e := range es {
		if strings.HasSuffix(e.Name(), "-wal") || strings.HasSuffix(e.Name(), "-shm") {
			continue // SQLite's shared-memory files, which a truly read-only directory cannot get
		}
		fi, _ := e.Info()
		b.WriteString(e.Name() + " " + fi.ModTime().String() + " " + strconv.FormatInt(fi.Size(), 10) + "\n")
	}
	return b.String()
}
