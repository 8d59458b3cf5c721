package sandbox

import (
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/go-git/go-git/v5/plumbing/filemode"
)

func git(t *testing.T, dir string, args ...string) string {
	t.Helper()
	c := exec.Command("git", append([]string{"-c", "user.name=t", "-c", "user.email=t@t", "-c", "protocol.file.allow=always"}, args...)...)
	c.Dir = dir
	c.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "HOME="+dir)
	out, err := c.CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return string(out)
}

// nestedRepo makes a repository with one commit at dir.
func nestedRepo(t *testing.T, dir string) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	git(t, dir, "init", "-q")
	git(t, dir, "commit", "-q", "--allow-empty", "-m", "x")
}

// A command stages a repository it made as a gitlink: the sandbox takes
// that entry out of the index and reports it; a submodule the workspace
// had before, a gitlink with no repository, files (conflict-free) and the
// repository on disk stay.
func TestSandboxUndoesNewGitlinks(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	ws, _ := filepath.EvalSymlinks(t.TempDir())
	git(t, ws, "init", "-q")
	for _, f := range []string{"a.go", "z/b.txt", "vendorx"} {
		os.MkdirAll(filepath.Dir(filepath.Join(ws, f)), 0o755)
		os.WriteFile(filepath.Join(ws, f), []byte(f), 0o644)
	}
	nestedRepo(t, filepath.Join(ws, "lib")) // the person's own, before the run
	git(t, ws, "add", ".")
	git(t, ws, "commit", "-q", "-m", "base")
	sb, _ := New(Options{Mode: ModeWorkspaceWrite, Workspace: ws, TempRoot: t.TempDir(), Getenv: func(string) string { return "" },
		Probe: func() Capabilities { return Capabilities{LandlockABI: 7, UserNS: true} }})
	defer sb.Close()
	sb.mu.Lock()
	sb.baselineGitlinks("run1")
	sb.mu.Unlock()
	if got := sb.Blocked("", ws, "true", 0); len(got) != 0 {
		t.Fatalf("blocks with nothing staged: %v", got)
	}

	// What the command does: a repository of its own, staged; a gitlink
	// with no repository behind it; a file edit, staged.
	nestedRepo(t, filepath.Join(ws, "vendor"))
	git(t, filepath.Join(ws, "vendor"), "config", "core.fsmonitor", "touch planted; true")
	git(t, ws, "add", "vendor")
	head := strings.TrimSpace(git(t, filepath.Join(ws, "lib"), "rev-parse", "HEAD"))
	git(t, ws, "update-index", "--add", "--cacheinfo", "160000,"+head+",ghost")
	os.WriteFile(filepath.Join(ws, "a.go"), []byte("changed"), 0o644)
	git(t, ws, "add", "a.go")
	before, err := readIndex(filepath.Join(ws, ".git", "index"))
	if err != nil {
		t.Fatal(err)
	}

	got := sb.Blocked("", ws, "sh evil.sh", 0)
	if len(got) != 1 || got[0].Target != filepath.Join(ws, "vendor") || !strings.Contains(got[0].Allow, "git add vendor") ||
		!strings.Contains(got[0].Allow, "untracked") || !strings.Contains(got[0].Allow, "cd-ing into it") {
		t.Fatalf("blocks = %+v, want one for %s/vendor saying how to allow it", got, ws)
	}
	after, err := readIndex(filepath.Join(ws, ".git", "index"))
	if err != nil {
		t.Fatal(err)
	}
	var want []string
	for _, e := range before.Entries {
		if e.Name != "vendor" {
			want = append(want, e.String())
		}
	}
	var have []string
	for _, e := range after.Entries {
		have = append(have, e.String())
	}
	if !reflect.DeepEqual(have, want) {
		t.Fatalf("entries after:\n%s\nwant:\n%s", strings.Join(have, "\n"), strings.Join(want, "\n"))
	}
	for _, e := range after.Entries {
		if e.Name == "lib" && e.Mode != filemode.Submodule {
			t.Fatal("the person's submodule lost its gitlink")
		}
	}
	// git reads what was written; vendor is untracked, still on disk.
	st := git(t, ws, "status", "--porcelain", "--ignore-submodules=none")
	if !strings.Contains(st, "?? vendor/") || !strings.Contains(st, "M  a.go") {
		t.Fatalf("git status after:\n%s", st)
	}
	if _, err := os.Stat(filepath.Join(ws, "vendor", ".git", "config")); err != nil {
		t.Fatal("the command's repository is gone from disk:", err)
	}
	if _, err := os.Stat(filepath.Join(ws, ".git", "index.lock")); err == nil {
		t.Fatal("index.lock left behind")
	}
	// Nothing changed since: no second report (and no read).
	if got := sb.Blocked("", ws, "true", 0); len(got) != 0 {
		t.Fatalf("second check: %v", got)
	}
	// The person stages it themselves between runs: a new run's baseline
	// keeps it.
	git(t, ws, "add", "vendor")
	sb.mu.Lock()
	sb.baselineGitlinks("run2")
	sb.mu.Unlock()
	if got := sb.Blocked("", ws, "true", 0); len(got) != 0 {
		t.Fatalf("a gitlink the person staged was reported: %v", got)
	}
}

// A repository whose .git is a file pointing elsewhere (git init
// --separate-git-dir) is a repository too.
func TestSandboxUndoesNewGitlinkGitFile(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	ws, _ := filepath.EvalSymlinks(t.TempDir())
	git(t, ws, "init", "-q")
	git(t, ws, "commit", "-q", "--allow-empty", "-m", "base")
	sb, _ := New(Options{Mode: ModeWorkspaceWrite, Workspace: ws, TempRoot: t.TempDir(), Getenv: func(string) string { return "" },
		Probe: func() Capabilities { return Capabilities{LandlockABI: 7, UserNS: true} }})
	defer sb.Close()
	sb.mu.Lock()
	sb.baselineGitlinks("run1")
	sb.mu.Unlock()
	os.MkdirAll(filepath.Join(ws, "build"), 0o755)
	git(t, ws, "init", "-q", "--separate-git-dir="+filepath.Join(ws, "build", "g"), "sub")
	git(t, filepath.Join(ws, "sub"), "commit", "-q", "--allow-empty", "-m", "x")
	git(t, ws, "add", "sub")
	if got := sb.Blocked("", ws, "x", 0); len(got) != 1 || got[0].Target != filepath.Join(ws, "sub") {
		t.Fatalf("blocks = %+v", got)
	}
	if out := git(t, ws, "ls-files", "-s", "sub"); out != "" {
		t.Fatalf("sub still staged: %s", out)
	}
}
