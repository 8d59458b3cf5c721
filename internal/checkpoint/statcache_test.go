package checkpoint

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/format/gitignore"
)

func setRacySlack(t *testing.T, d time.Duration) {
	old := racySlack
	racySlack = d
	t.Cleanup(func() { racySlack = old })
}

// blobAt returns the blob id the snapshot records for rel.
func blobAt(t *testing.T, s *Store, snap Snapshot, rel string) string {
	t.Helper()
	snapTree, err := s.resolveTree(snap.ID)
	if err != nil {
		t.Fatal(err)
	}
	e, ok, err := s.lookup(snapTree, rel)
	if err != nil || !ok {
		t.Fatalf("%s not in snapshot: %v", rel, err)
	}
	return e.hash.String()
}

func blobOf(content string) string {
	return hashObject(plumbing.BlobObject, []byte(content)).String()
}

// Same size, same mtime, different content: the ctime (and the inode, for
// a rename) must give it away once the entry is no longer racy.
func TestStatCacheSameSizeSameMtime(t *testing.T) {
	setRacySlack(t, 50*time.Millisecond)
	ws := newWorkspace(t)
	s := openStore(t, t.TempDir(), ws)
	p := filepath.Join(ws, "a.txt")
	old := time.Now().Add(-time.Hour).Truncate(time.Second)
	write(t, ws, "a.txt", "version-1\n")
	if err := os.Chtimes(p, old, old); err != nil {
		t.Fatal(err)
	}
	time.Sleep(120 * time.Millisecond) // let the ctime age past the racy window
	s1 := mustSnap(t, s, meta("r", "", KindBefore))
	if s.lastScan.hashed == 0 {
		t.Fatal("first scan hashed nothing")
	}
	time.Sleep(120 * time.Millisecond)
	s2 := mustSnap(t, s, meta("r", "", KindAfter))
	if s.lastScan.hashed != 0 || s2.Tree != s1.Tree {
		t.Fatalf("unchanged scan hashed %d files", s.lastScan.hashed)
	}
	// In-place rewrite, same size, mtime put back.
	write(t, ws, "a.txt", "version-2\n")
	if err := os.Chtimes(p, old, old); err != nil {
		t.Fatal(err)
	}
	s3 := mustSnap(t, s, meta("r", "", KindAfter))
	if got := blobAt(t, s, s3, "a.txt"); got != blobOf("version-2\n") {
		t.Fatal("same-size same-mtime edit missed")
	}
	// Replaced by rename, same size, same mtime.
	time.Sleep(120 * time.Millisecond)
	tmp := filepath.Join(ws, "a.tmp")
	if err := os.WriteFile(tmp, []byte("version-3\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_ = os.Chtimes(tmp, old, old)
	if err := os.Rename(tmp, p); err != nil {
		t.Fatal(err)
	}
	s4 := mustSnap(t, s, meta("r", "", KindAfter))
	if got := blobAt(t, s, s4, "a.txt"); got != blobOf("version-3\n") {
		t.Fatal("same-size same-mtime replacement missed")
	}
}

// Edits right after a snapshot, within the same timestamp tick, are caught
// by the racy rule even though size (and possibly mtime) are unchanged.
func TestStatCacheRacyEdits(t *testing.T) {
	ws := newWorkspace(t)
	s := openStore(t, t.TempDir(), ws)
	for i := 0; i < 30; i++ {
		c := fmt.Sprintf("content-%02d\n", i)
		write(t, ws, "dir/b.txt", c)
		snap := mustSnap(t, s, meta("r", "", KindAfter))
		if got := blobAt(t, s, snap, "dir/b.txt"); got != blobOf(c) {
			t.Fatalf("iteration %d: stale blob", i)
		}
	}
}

// The cache survives a restart and stays correct; a fresh store with no
// cache agrees.
func TestStatCachePersisted(t *testing.T) {
	setRacySlack(t, 50*time.Millisecond)
	ws := newWorkspace(t)
	home := t.TempDir()
	s, err := Open(home, ws)
	if err != nil {
		t.Fatal(err)
	}
	time.Sleep(120 * time.Millisecond)
	mustSnap(t, s, meta("r", "", KindBefore))
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	write(t, ws, "dir/sub/c.txt", "changed\n")
	s = openStore(t, home, ws)
	snap := mustSnap(t, s, meta("r", "", KindAfter))
	if s.lastScan.hashed != 1 {
		t.Fatalf("after restart hashed %d files, want 1", s.lastScan.hashed)
	}
	fresh := openStore(t, t.TempDir(), ws)
	if f := mustSnap(t, fresh, meta("x", "", KindAfter)); f.Tree != snap.Tree {
		t.Fatal("cached scan differs from a fresh one")
	}
	// A damaged cache is ignored.
	if err := os.WriteFile(s.statPath(), []byte("garbage"), 0o600); err != nil {
		t.Fatal(err)
	}
	s2 := openStore(t, home, ws)
	if f := mustSnap(t, s2, meta("r", "", KindAfter)); f.Tree != snap.Tree {
		t.Fatal("scan with a damaged cache differs")
	}
}

// Listings are reused while a directory's stat data is unchanged; adding,
// removing and ignoring files must still show.
func TestDirectoryCache(t *testing.T) {
	setRacySlack(t, 50*time.Millisecond)
	ws := newWorkspace(t)
	s := openStore(t, t.TempDir(), ws)
	time.Sleep(120 * time.Millisecond)
	check := func(what string) Snapshot {
		t.Helper()
		snap := mustSnap(t, s, meta("r", "", KindAfter))
		fresh := openStore(t, t.TempDir(), ws)
		if f := mustSnap(t, fresh, meta("x", "", KindAfter)); f.Tree != snap.Tree {
			t.Fatalf("%s: cached scan %s != fresh scan %s", what, snap.Tree, f.Tree)
		}
		time.Sleep(120 * time.Millisecond)
		return snap
	}
	check("first")
	check("again")
	if s.lastScan.listed != 0 || s.lastScan.hashed != 0 {
		t.Fatalf("unchanged scan listed %d dirs, hashed %d files", s.lastScan.listed, s.lastScan.hashed)
	}
	write(t, ws, "dir/sub/new.txt", "new\n")
	check("add")
	_ = os.Remove(filepath.Join(ws, "dir/sub/new.txt"))
	check("remove")
	write(t, ws, "dir/.gitignore", "local.*\n!keep.log\nb.txt\n")
	snap := check("ignore more")
	if _, ok, _ := s.lookup(plumbing.NewHash(snap.Tree), "dir/b.txt"); ok {
		t.Fatal("newly ignored file still in the snapshot")
	}
	_ = os.Remove(filepath.Join(ws, "dir/.gitignore"))
	snap = check("ignore file removed")
	if _, ok, _ := s.lookup(plumbing.NewHash(snap.Tree), "dir/local.cfg"); !ok {
		t.Fatal("file no longer ignored is missing")
	}
	_ = os.RemoveAll(filepath.Join(ws, "dir/sub"))
	write(t, ws, "dir/sub", "a file now\n")
	check("dir to file")
	if err := os.Chmod(filepath.Join(ws, "dir/sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	check("exec bit")
}

// With no stat cache but blobs already stored, the user's git index supplies
// a before-checkpoint the ids of files whose stat data it records exactly;
// an after-checkpoint (a command may have written the index) never uses it.
func TestUserIndexSavesHashing(t *testing.T) {
	if !hasGit() {
		t.Skip("git not installed")
	}
	setRacySlack(t, 50*time.Millisecond)
	ws := filepath.Join(t.TempDir(), "ws")
	for i := 0; i < 100; i++ {
		write(t, ws, fmt.Sprintf("d%d/f%03d.txt", i%7, i), fmt.Sprintf("file %d\n", i))
	}
	gitCmd(t, ws, nil, "init", "-q")
	time.Sleep(120 * time.Millisecond)
	gitCmd(t, ws, nil, "add", "-A")
	gitCmd(t, ws, nil, "commit", "-q", "-m", "x")
	home := t.TempDir()
	s := openStore(t, home, ws)
	first := mustSnap(t, s, meta("r", "", KindBefore))
	// Forget the stat cache; lie in one file: same size, same mtime.
	_ = os.Remove(s.statPath())
	p := filepath.Join(ws, "d0/f000.txt")
	fi, _ := os.Stat(p)
	write(t, ws, "d0/f000.txt", "FILE 0\n")
	_ = os.Chtimes(p, fi.ModTime(), fi.ModTime())
	s2 := openStore(t, home, ws)
	snap := mustSnap(t, s2, meta("r", "", KindBefore))
	if s2.lastScan.fromIndex < 90 {
		t.Fatalf("only %d files from the user index (hashed %d)", s2.lastScan.fromIndex, s2.lastScan.hashed)
	}
	if got := blobAt(t, s2, snap, "d0/f000.txt"); got != blobOf("FILE 0\n") {
		t.Fatal("user index entry with a changed ctime was trusted")
	}
	if snap.Tree == first.Tree {
		t.Fatal("change missed")
	}
	_ = os.Remove(s2.statPath())
	s3 := openStore(t, home, ws)
	mustSnap(t, s3, meta("r", "", KindAfter))
	if s3.lastScan.fromIndex != 0 || s3.lastScan.hashed < 100 {
		t.Fatalf("a cold after-checkpoint took %d files from the user index (hashed %d)", s3.lastScan.fromIndex, s3.lastScan.hashed)
	}
}

func TestIgnoreMatchesGoGit(t *testing.T) {
	files := map[string]string{
		"":      "*.log\n/root-only\nsp\\ \nbuild/\n!important.log\ndocs/**/tmp\n**/cache/x\na?c\n[bc]at\nbad[\n",
		"sub":   "!*.log\nlocal\n/anchored\nnested/deep\n",
		"sub/x": "*\n!keep\n",
	}
	paths := []string{
		"a.log", "important.log", "root-only", "sub/root-only", "build", "build/x", "sub/build", "sub/build/f",
		"docs/a/b/tmp", "docs/tmp", "x/cache/x", "cache/x", "abc", "sub/abc", "cat", "bat", "sp ", "sub/a.log",
		"sub/local", "sub/q/local", "sub/anchored", "sub/q/anchored", "sub/nested/deep", "sub/q/nested/deep",
		"sub/x/any", "sub/x/keep", "sub/x/y/keep", "other/file.txt", "local",
	}
	var all []gitignore.Pattern
	var rulesByDir = map[string][]ignoreRule{}
	for _, dir := range []string{"", "sub", "sub/x"} {
		var domain []string
		if dir != "" {
			domain = strings.Split(dir, "/")
		}
		for _, line := range strings.Split(strings.TrimSpace(files[dir]), "\n") {
			all = append(all, gitignore.ParsePattern(line, domain))
		}
		rulesByDir[dir] = parseIgnore([]byte(files[dir]), domain)
	}
	ref := gitignore.NewMatcher(all)
	for _, p := range paths {
		for _, isDir := range []bool{false, true} {
			parts := strings.Split(p, "/")
			set := (&ignoreSet{}).extend(rulesByDir[""])
			for i := 0; i < len(parts)-1; i++ {
				set = set.descend(parts[:i+1]).extend(rulesByDir[strings.Join(parts[:i+1], "/")])
			}
			if got, want := set.match(parts, isDir), ref.Match(parts, isDir); got != want {
				t.Errorf("%s (dir %v): got %v, go-git %v", p, isDir, got, want)
			}
		}
	}
}
