package repomap

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"

	git "github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing/object"
)

// TestChangedPathsMatchesDiffTree: on a repository whose commits add,
// modify, delete, chmod and swap files and directories at random,
// changedPaths yields, for every commit against its parent (and the root
// commit against nothing), exactly the destinations go-git's DiffTree
// yields, and readRecent the weights the DiffTree-based reading gave.
func TestChangedPathsMatchesDiffTree(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git binary")
	}
	dir := t.TempDir()
	gitCmd := func(args ...string) {
		t.Helper()
		cmd := exec.Command("git", append([]string{"-c", "user.name=t", "-c", "user.email=t@example.com", "-c", "commit.gpgsign=false"}, args...)...)
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	gitCmd("init", "-q")
	rng := rand.New(rand.NewPCG(24, 3))
	names := []string{"a", "b", "c.go", "d"}
	randPath := func() string {
		p := names[rng.IntN(len(names))]
		for rng.IntN(3) > 0 {
			p = filepath.Join(p, names[rng.IntN(len(names))])
		}
		return p
	}
	write := func(p string) {
		full := filepath.Join(dir, p)
		// a file in the way of a directory (or the reverse) is replaced
		for d := filepath.Dir(full); d != dir; d = filepath.Dir(d) {
			if fi, err := os.Lstat(d); err == nil && !fi.IsDir() {
				os.Remove(d)
			}
		}
		if fi, err := os.Lstat(full); err == nil && fi.IsDir() {
			os.RemoveAll(full)
		}
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(fmt.Sprint(rng.IntN(4))), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for c := range 40 {
		for range 1 + rng.IntN(6) {
			p := filepath.Join(dir, randPath())
			switch rng.IntN(5) {
			case 0:
				os.RemoveAll(p)
			case 1:
				if fi, err := os.Lstat(p); err == nil && !fi.IsDir() {
					os.Chmod(p, fi.Mode()^0o111)
				}
			default:
				write(p[len(dir)+1:])
			}
		}
		if c == 0 {
			write("keep/x/y.go") // a subtree no later commit touches
		}
		gitCmd("add", "-A")
		gitCmd("commit", "-q", "--allow-empty", "-m", fmt.Sprint(c))
	}

	repo, err := git.PlainOpen(dir)
	if err != nil {
		t.Fatal(err)
	}
	head, err := repo.Head()
	if err != nil {
		t.Fatal(err)
	}
	iter, err := repo.Log(&git.LogOptions{From: head.Hash()})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	want := map[string]float64{}
	k, nonEmpty := 0, 0
	err = iter.ForEach(func(c *object.Commit) error {
		tree, err := c.Tree()
		if err != nil {
			return err
		}
		var parent *object.Tree
		if c.NumParents() > 0 {
			p, err := c.Parent(0)
			if err != nil {
				return err
			}
			if parent, err = p.Tree(); err != nil {
				return err
			}
		}
		changes, err := object.DiffTreeWithOptions(ctx, parent, tree, nil)
		if err != nil {
			return err
		}
		var exp, got []string
		for _, ch := range changes {
			if ch.To.Name != "" {
				exp = append(exp, ch.To.Name)
				if k < gitCommits {
					want[ch.To.Name] += 1 / float64(k+1)
				}
			}
		}
		if err := changedPaths(ctx, repo.Storer, parent, tree, func(p string) { got = append(got, p) }); err != nil {
			return err
		}
		slices.Sort(exp)
		slices.Sort(got)
		if !slices.Equal(exp, got) {
			t.Errorf("commit %s (%s): changedPaths %q, DiffTree %q", c.Hash, c.Message, got, exp)
		}
		if len(exp) > 0 {
			nonEmpty++
		}
		k++
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if k != 40 || nonEmpty < 30 {
		t.Fatalf("%d commits, %d with changes: the history is not the one meant", k, nonEmpty)
	}
	got := readRecent(ctx, repo, head.Hash(), "")
	if len(got) != len(want) {
		t.Fatalf("readRecent: %d paths, DiffTree %d", len(got), len(want))
	}
	for p, w := range want {
		if got[p] != w {
			t.Errorf("readRecent[%q] = %v, DiffTree gives %v", p, got[p], w)
		}
	}
}
