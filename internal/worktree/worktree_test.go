package worktree

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/go-git/go-git/v5/plumbing/storer"
)

// gitRun runs the real git, to see the worktree as git sees it.
func gitRun(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "HOME="+t.TempDir(),
		"GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@t", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@t")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return string(out)
}

func newRepo(t *testing.T) string {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git binary to check the worktree with")
	}
	dir := t.TempDir()
	gitRun(t, dir, "init", "-q", "-b", "main")
	for name, body := range map[string]string{"a.txt": "a0\n", "b.txt": "b0\n", "sub/c.txt": "c0\n"} {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	gitRun(t, dir, "add", ".")
	gitRun(t, dir, "commit", "-q", "-m", "init")
	return dir
}

// treeOf stores a flat tree of files (no directories) and returns it.
func treeOf(files map[string]string) func(storer.EncodedObjectStorer) (plumbing.Hash, error) {
	return func(s storer.EncodedObjectStorer) (plumbing.Hash, error) {
		var t object.Tree
		for name, body := range files {
			o := s.NewEncodedObject()
			o.SetType(plumbing.BlobObject)
			w, _ := o.Writer()
			_, _ = w.Write([]byte(body))
			_ = w.Close()
			h, err := s.SetEncodedObject(o)
			if err != nil {
				return plumbing.ZeroHash, err
			}
			t.Entries = append(t.Entries, object.TreeEntry{Name: name, Mode: filemode.Regular, Hash: h})
		}
		sortEntries(t.Entries)
		o := s.NewEncodedObject()
		if err := t.Encode(o); err != nil {
			return plumbing.ZeroHash, err
		}
		return s.SetEncodedObject(o)
	}
}

func sortEntries(es []object.TreeEntry) {
	for i := range es {
		for j := i + 1; j < len(es); j++ {
			if es[j].Name < es[i].Name {
				es[i], es[j] = es[j], es[i]
			}
		}
	}
}

func TestAddListedCleanAndRemovable(t *testing.T) {
	repo := newRepo(t)
	before := gitRun(t, repo, "status", "--porcelain")
	path := filepath.Join(t.TempDir(), "wts", "fork-1")
	wt, err := Add(context.Background(), AddOptions{Repo: repo, Path: path, Branch: "agent/fork-1",
		Tree: treeOf(map[string]string{"a.txt": "a1\n", "d.txt": "new\n"}), Message: "fork"})
	if err != nil {
		t.Fatal(err)
	}
	if got := gitRun(t, repo, "worktree", "list", "--porcelain"); !strings.Contains(got, "worktree "+path) || !strings.Contains(got, "branch refs/heads/agent/fork-1") {
		t.Fatalf("git worktree list does not show %s on agent/fork-1:\n%s", path, got)
	}
	if got := gitRun(t, path, "status", "--porcelain"); got != "" {
		t.Fatalf("the new worktree is not clean for git:\n%s", got)
	}
	if got := strings.TrimSpace(gitRun(t, path, "rev-parse", "--abbrev-ref", "HEAD")); got != "agent/fork-1" {
		t.Fatalf("the worktree is on %q", got)
	}
	for name, want := range map[string]string{"a.txt": "a1\n", "d.txt": "new\n"} {
		if b, _ := os.ReadFile(filepath.Join(path, name)); string(b) != want {
			t.Fatalf("%s = %q, want %q", name, b, want)
		}
	}
	if _, err := os.Stat(filepath.Join(path, "b.txt")); err == nil {
		t.Fatal("a file the tree does not hold is in the worktree")
	}
	// the parent of the fork's commit is the workspace's HEAD
	if got := strings.TrimSpace(gitRun(t, path, "rev-parse", "HEAD^")); got != strings.TrimSpace(gitRun(t, repo, "rev-parse", "HEAD")) {
		t.Fatalf("the fork's commit's parent is %s, not the workspace's HEAD", got)
	}
	if got := gitRun(t, repo, "status", "--porcelain"); got != before {
		t.Fatalf("the workspace changed: %q -> %q", before, got)
	}
	if b, _ := os.ReadFile(filepath.Join(repo, "a.txt")); string(b) != "a0\n" {
		t.Fatal("the workspace's a.txt changed")
	}

	// dirty: kept, with the reason
	if err := os.WriteFile(filepath.Join(path, "e.txt"), []byte("e"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err = Remove(path, RemoveOptions{Branch: wt.Branch, Commit: wt.Commit})
	var de *DirtyError
	if !errors.As(err, &de) || len(de.Files) != 1 || de.Files[0] != "?? e.txt" {
		t.Fatalf("Remove of a dirty worktree: %v", err)
	}
	if _, err := os.Stat(filepath.Join(path, "e.txt")); err != nil {
		t.Fatal("Remove of a dirty worktree removed its files")
	}
	if err := os.Remove(filepath.Join(path, "e.txt")); err != nil {
		t.Fatal(err)
	}
	if _, err := Remove(path, RemoveOptions{Branch: wt.Branch, Commit: wt.Commit}); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Fatalf("the worktree directory is still there: %v", err)
	}
	if got := gitRun(t, repo, "worktree", "list", "--porcelain"); strings.Contains(got, path) {
		t.Fatalf("git worktree list still shows it:\n%s", got)
	}
	if got := gitRun(t, repo, "branch", "--list", "agent/fork-1"); got != "" {
		t.Fatalf("the untouched branch was kept: %q", got)
	}
}

func TestAddFromLinkedWorktreeAndGitRemove(t *testing.T) {
	repo := newRepo(t)
	first := filepath.Join(t.TempDir(), "one")
	if _, err := Add(context.Background(), AddOptions{Repo: repo, Path: first, Branch: "agent/one",
		Tree: treeOf(map[string]string{"x.txt": "x\n"}), Message: "one"}); err != nil {
		t.Fatal(err)
	}
	// a worktree of the linked worktree: its admin goes into the common dir
	second := filepath.Join(t.TempDir(), "two")
	if _, err := Add(context.Background(), AddOptions{Repo: first, Path: second, Branch: "agent/two",
		Tree: treeOf(map[string]string{"y.txt": "y\n"}), Message: "two"}); err != nil {
		t.Fatal(err)
	}
	if got := strings.TrimSpace(gitRun(t, second, "rev-parse", "HEAD^")); got != strings.TrimSpace(gitRun(t, first, "rev-parse", "HEAD")) {
		t.Fatal("the second worktree's commit does not follow the first worktree's HEAD")
	}
	// git itself removes what Add made
	gitRun(t, repo, "worktree", "remove", second)
	if _, err := os.Stat(second); !os.IsNotExist(err) {
		t.Fatal("git worktree remove left the directory")
	}
	if _, err := Add(context.Background(), AddOptions{Repo: repo, Path: filepath.Join(t.TempDir(), "x"), Branch: "agent/one",
		Tree: treeOf(nil), Message: "dup"}); err == nil || !strings.Contains(err.Error(), "exists") {
		t.Fatalf("a second worktree on an existing branch: %v", err)
	}
}

func TestAddRefusesNonRepo(t *testing.T) {
	_, err := Add(context.Background(), AddOptions{Repo: t.TempDir(), Path: filepath.Join(t.TempDir(), "w"), Branch: "b",
		Tree: treeOf(nil), Message: "m"})
	if err == nil || !strings.Contains(err.Error(), "not the top directory of a git repository") {
		t.Fatalf("err = %v", err)
	}
}

// Remove takes nothing that is not a linked worktree naming itself: not a
// main worktree, not one whose .git file a command pointed at another
// repository's worktree.
func TestRemoveRefusesWhatIsNotItsOwn(t *testing.T) {
	repo := newRepo(t)
	if _, err := Remove(repo, RemoveOptions{}); err == nil {
		t.Fatal("Remove of a main worktree did not fail")
	}
	if _, err := os.Stat(filepath.Join(repo, "a.txt")); err != nil {
		t.Fatal("Remove of a main worktree removed its files")
	}
	other := newRepo(t)
	victim := filepath.Join(t.TempDir(), "victim")
	if _, err := Add(context.Background(), AddOptions{Repo: other, Path: victim, Branch: "v", Tree: treeOf(map[string]string{"v.txt": "v\n"}), Message: "v"}); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "mine")
	if _, err := Add(context.Background(), AddOptions{Repo: repo, Path: path, Branch: "m", Tree: treeOf(map[string]string{"m.txt": "m\n"}), Message: "m"}); err != nil {
		t.Fatal(err)
	}
	// the worktree's .git now names the victim's administrative directory
	if err := os.WriteFile(filepath.Join(path, ".git"), []byte("gitdir: "+filepath.Join(other, ".git", "worktrees", "victim")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Remove(path, RemoveOptions{}); err == nil || !strings.Contains(err.Error(), "not removed") {
		t.Fatalf("Remove through a redirected .git file: %v", err)
	}
	if _, err := os.Stat(filepath.Join(other, ".git", "worktrees", "victim", "gitdir")); err != nil {
		t.Fatal("the victim's administrative directory was removed")
	}
	if got := gitRun(t, other, "worktree", "list", "--porcelain"); !strings.Contains(got, victim) {
		t.Fatal("git no longer lists the victim worktree")
	}
}

// A repository without a commit yet: the fork's commit is a root commit.
func TestAddOnUnbornHead(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git binary to check the worktree with")
	}
	repo := t.TempDir()
	gitRun(t, repo, "init", "-q")
	path := filepath.Join(t.TempDir(), "w")
	if _, err := Add(context.Background(), AddOptions{Repo: repo, Path: path, Branch: "agent/x", Tree: treeOf(map[string]string{"n.txt": "n\n"}), Message: "x"}); err != nil {
		t.Fatal(err)
	}
	if got := strings.TrimSpace(gitRun(t, path, "rev-list", "--count", "HEAD")); got != "1" {
		t.Fatalf("the fork's branch has %s commits, want 1 root commit", got)
	}
	if got := gitRun(t, path, "status", "--porcelain"); got != "" {
		t.Fatalf("not clean: %q", got)
	}
}
