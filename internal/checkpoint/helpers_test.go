package checkpoint

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"
)

var bg = context.Background()

func hasGit() bool {
	_, err := exec.LookPath("git")
	return err == nil
}

// gitCmd runs the git CLI (tests only) and returns its output.
func gitCmd(tb testing.TB, dir string, env []string, args ...string) string {
	tb.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@t", "GIT_COMMITTER_NAME=t",
		"GIT_COMMITTER_EMAIL=t@t", "GIT_CONFIG_NOSYSTEM=1", "HOME="+tb.TempDir())
	cmd.Env = append(cmd.Env, env...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		tb.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, errb.String())
	}
	return out.String()
}

func write(tb testing.TB, root, rel, content string) {
	tb.Helper()
	p := filepath.Join(root, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		tb.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		tb.Fatal(err)
	}
}

func read(tb testing.TB, root, rel string) string {
	tb.Helper()
	b, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(rel)))
	if err != nil {
		tb.Fatal(err)
	}
	return string(b)
}

func exists(root, rel string) bool {
	_, err := os.Lstat(filepath.Join(root, filepath.FromSlash(rel)))
	return err == nil
}

// hashTree hashes every path, mode and content under dir (for "the user's
// .git is unchanged").
func hashTree(tb testing.TB, dir string) string {
	tb.Helper()
	h := sha256.New()
	var paths []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		paths = append(paths, p)
		return nil
	})
	if err != nil {
		tb.Fatal(err)
	}
	sort.Strings(paths)
	for _, p := range paths {
		fi, err := os.Lstat(p)
		if err != nil {
			tb.Fatal(err)
		}
		h.Write([]byte(p + "\x00" + fi.Mode().String() + "\x00" + fi.ModTime().String() + "\x00"))
		if fi.Mode().IsRegular() {
			b, _ := os.ReadFile(p)
			h.Write(b)
		}
	}
	return hex.EncodeToString(h.Sum(nil))
}

// newWorkspace makes a workspace with a committed git repository (when git
// is installed) and a mix of files.
func newWorkspace(t *testing.T) string {
	t.Helper()
	ws := filepath.Join(t.TempDir(), "ws")
	write(t, ws, "a.txt", "alpha\n")
	write(t, ws, "dir/b.txt", "bravo\n")
	write(t, ws, "dir/sub/c.txt", "charlie\n")
	write(t, ws, ".gitignore", "*.log\nbuild/\n")
	write(t, ws, "dir/.gitignore", "local.*\n!keep.log\n")
	write(t, ws, "script.sh", "#!/bin/sh\necho hi\n")
	if err := os.Chmod(filepath.Join(ws, "script.sh"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("a.txt", filepath.Join(ws, "link")); err != nil {
		t.Fatal(err)
	}
	write(t, ws, "x.log", "ignored\n")
	write(t, ws, "dir/keep.log", "re-included\n")
	write(t, ws, "dir/local.cfg", "ignored by dir/.gitignore\n")
	write(t, ws, "build/out.bin", "ignored dir\n")
	if hasGit() {
		gitCmd(t, ws, nil, "init", "-q")
		gitCmd(t, ws, nil, "add", "-A")
		gitCmd(t, ws, nil, "commit", "-q", "-m", "init")
	}
	return ws
}

func openStore(t *testing.T, home, ws string) *Store {
	t.Helper()
	s, err := Open(home, ws)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	return s
}

func meta(run, call string, kind Kind) Meta {
	return Meta{RunID: run, CallID: call, Kind: kind, Time: time.Now()}
}

func mustSnap(t *testing.T, s *Store, m Meta) Snapshot {
	t.Helper()
	snap, err := s.Snapshot(bg, m)
	if err != nil {
		t.Fatal(err)
	}
	return snap
}

// lsTree lists a snapshot with the git CLI: "mode path" lines.
func lsTree(t *testing.T, s *Store, id string) []string {
	t.Helper()
	settle(t, s)
	out := gitCmd(t, "", nil, "--git-dir="+s.GitDir(), "ls-tree", "-r", "--full-tree", id)
	var lines []string
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		f := strings.Fields(l)
		if len(f) == 4 {
			lines = append(lines, f[0]+" "+f[3])
		}
	}
	return lines
}

func fsck(t *testing.T, s *Store) {
	t.Helper()
	if !hasGit() {
		return
	}
	settle(t, s)
	gitCmd(t, "", nil, "--git-dir="+s.GitDir(), "fsck", "--strict", "--no-dangling")
}

// settle folds s's object log into a pack, as closing the store does, so
// git's own tools see every object (a live store's newest are in its log).
func settle(t *testing.T, s *Store) {
	t.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.withShared(func() error { return s.logs.foldOwn(s.packs) }); err != nil {
		t.Fatalf("fold the object log: %v", err)
	}
}
