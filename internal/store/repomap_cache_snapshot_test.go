package store

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"agent/internal/repomap"
)

// snapBuild opens the store and a snapshot-enabled cache as a new process
// would, and builds.
func snapBuild(t *testing.T, home, root string, redact func(string) string) (*repomap.Map, *RepomapCache) {
	t.Helper()
	ctx := context.Background()
	s, err := Open(ctx, home)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	c, err := s.RepomapCache(ctx, root)
	if err != nil {
		t.Fatal(err)
	}
	c.EnableSnapshot(redact)
	m, err := repomap.Build(ctx, repomap.Options{Root: root, Cache: c, Tokens: 1024, Query: "how is ApplyDiscount computed?"})
	if err != nil {
		t.Fatal(err)
	}
	return m, c
}

func TestRepomapSnapshotBesideTheDatabase(t *testing.T) {
	root := writeTree(t, cacheRepo)
	root, _ = filepath.EvalSymlinks(root)
	home := filepath.Join(t.TempDir(), "state")

	cold, c := snapBuild(t, home, root, nil)
	p := c.SnapshotPath()
	if filepath.Dir(filepath.Dir(p)) != home {
		t.Fatalf("snapshot at %s, want it under %s/repomap", p, home)
	}
	fi, err := os.Stat(p)
	if err != nil {
		t.Fatalf("no snapshot after a cold build: %v", err)
	}
	if fi.Mode().Perm() != 0o600 {
		t.Fatalf("snapshot mode %v, want 0600", fi.Mode().Perm())
	}
	if di, _ := os.Stat(filepath.Dir(p)); di.Mode().Perm()&0o077 != 0 {
		t.Fatalf("snapshot directory mode %v, want no access for group and others", di.Mode().Perm())
	}
	leftovers, _ := filepath.Glob(filepath.Join(filepath.Dir(p), ".*"))
	if len(leftovers) > 0 {
		t.Fatalf("temporary files left beside the snapshot: %q", leftovers)
	}

	warm, _ := snapBuild(t, home, root, nil)
	if warm.Text != cold.Text || warm.Stats.Parsed != 0 || warm.Stats.Cached != cold.Stats.Parsed {
		t.Fatalf("warm build from the snapshot: %+v (cold %+v), text equal: %v", warm.Stats, cold.Stats, warm.Text == cold.Text)
	}

	// a deleted file: the map drops it and so does the table, though the
	// snapshot build reads no row
	if err := os.Remove(filepath.Join(root, "tools", "report.py")); err != nil {
		t.Fatal(err)
	}
	if m, _ := snapBuild(t, home, root, nil); m.Stats.Files != 3 || m.Stats.Parsed != 0 {
		t.Fatalf("after deleting a file: %+v", m.Stats)
	}
	if got := cachedPaths(t, home, root); slices.Contains(got, "tools/report.py") {
		t.Fatalf("rows after deleting tools/report.py = %q", got)
	}

	// a damaged snapshot is a cold start for the index, and is replaced
	if err := os.WriteFile(p, []byte("not a snapshot"), 0o600); err != nil {
		t.Fatal(err)
	}
	m, _ := snapBuild(t, home, root, nil)
	if !strings.Contains(m.Text, "ApplyDiscount") {
		t.Fatalf("map after a damaged snapshot:\n%s", m.Text)
	}
	if data, err := os.ReadFile(p); err != nil || len(data) < 100 {
		t.Fatalf("the damaged snapshot was not replaced: %d bytes, %v", len(data), err)
	}
}

func TestRepomapSnapshotOffUntilEnabled(t *testing.T) {
	root := writeTree(t, cacheRepo)
	home := filepath.Join(t.TempDir(), "state")
	buildOnce(t, home, root) // the cache as the app opens it today
	if _, err := os.Stat(filepath.Join(home, snapshotDir)); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("a cache without EnableSnapshot wrote a snapshot (%v)", err)
	}
	s, err := Open(context.Background(), home)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	c, _ := s.RepomapCache(context.Background(), root)
	if _, err := c.ReadSnapshot(context.Background()); !errors.Is(err, repomap.ErrSnapshotsOff) {
		t.Fatalf("ReadSnapshot without EnableSnapshot = %v, want ErrSnapshotsOff", err)
	}
}

func TestRepomapSnapshotRedacted(t *testing.T) {
	const secret = "ghp_0123456789abcdefghijABCDEFGHIJ012345"
	files := map[string]string{"conf/conf.go": "package conf\n\n// Token is the bot's token.\nconst Token = \"" + secret + "\"\n"}
	root := writeTree(t, files)
	home := filepath.Join(t.TempDir(), "state")
	red := func(s string) string { return strings.ReplaceAll(s, secret, "[REDACTED:github]") }
	_, c := snapBuild(t, home, root, red)
	data, err := os.ReadFile(c.SnapshotPath())
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(data), secret) {
		t.Fatal("the snapshot holds the token in clear")
	}
	if !strings.Contains(string(data), "[REDACTED:github]") {
		t.Fatal("the snapshot does not hold the redacted signature")
	}
}
