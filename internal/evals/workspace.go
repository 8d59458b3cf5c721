package evals

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"
)

// makeWorkspace copies fixture into ws and commits it to a new git
// repository (go-git: no git binary needed), as a person's checkout would be.
func makeWorkspace(fixture, ws string) error {
	if err := os.CopyFS(ws, os.DirFS(fixture)); err != nil {
		return fmt.Errorf("copy the fixture: %w", err)
	}
	repo, err := git.PlainInit(ws, false)
	if err != nil {
		return fmt.Errorf("git init the workspace: %w", err)
	}
	wt, err := repo.Worktree()
	if err != nil {
		return fmt.Errorf("git init the workspace: %w", err)
	}
	if err := wt.AddWithOptions(&git.AddOptions{All: true}); err != nil {
		return fmt.Errorf("git add the fixture: %w", err)
	}
	sig := &object.Signature{Name: "agent eval", Email: "eval@localhost", When: time.Unix(1_700_000_000, 0)}
	if _, err := wt.Commit("fixture", &git.CommitOptions{Author: sig, Committer: sig, AllowEmptyCommits: true}); err != nil {
		return fmt.Errorf("git commit the fixture: %w", err)
	}
	return nil
}

// readTree reads the regular files under dir (not .git), keyed by slash path.
func readTree(dir string) (map[string][]byte, error) {
	out := map[string][]byte{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(dir, p)
		if err != nil {
			return err
		}
		if d.IsDir() {
			if d.Name() == ".git" && p != dir {
				return filepath.SkipDir
			}
			return nil
		}
		if !d.Type().IsRegular() {
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		out[filepath.ToSlash(rel)] = b
		return nil
	})
	return out, err
}

// diffLines counts the lines changed (added plus removed) between two
// versions of the files, by a longest-common-subsequence line diff per file.
func diffLines(before, after map[string][]byte) int {
	total := 0
	for p, a := range before {
		total += lineDiff(a, after[p])
	}
	for p, b := range after {
		if _, ok := before[p]; !ok {
			total += lineDiff(nil, b)
		}
	}
	return total
}

// splitLines splits into lines, each without its ending; "" has none.
func splitLines(b []byte) []string {
	if len(b) == 0 {
		return nil
	}
	s := strings.TrimSuffix(string(b), "\n")
	return strings.Split(s, "\n")
}

// maxLCSCells bounds the quadratic table; larger files are compared as
// multisets of lines (an upper bound of the true diff).
const maxLCSCells = 4 << 20

// lineDiff is the number of lines removed from a plus added in b.
func lineDiff(a, b []byte) int {
	if bytes.Equal(a, b) {
		return 0
	}
	x, y := splitLines(a), splitLines(b)
	// Trim the common prefix and suffix: most edits are local.
	for len(x) > 0 && len(y) > 0 && x[0] == y[0] {
		x, y = x[1:], y[1:]
	}
	for len(x) > 0 && len(y) > 0 && x[len(x)-1] == y[len(y)-1] {
		x, y = x[:len(x)-1], y[:len(y)-1]
	}
	if len(x) == 0 || len(y) == 0 {
		if len(x)+len(y) == 0 && !bytes.Equal(a, b) {
			return 1 // only the final newline differs
		}
		return len(x) + len(y)
	}
	if len(x)*len(y) > maxLCSCells {
		count := map[string]int{}
		for _, l := range x {
			count[l]++
		}
		common := 0
		for _, l := range y {
			if count[l] > 0 {
				count[l]--
				common++
			}
		}
		return len(x) + len(y) - 2*common
	}
	prev := make([]int, len(y)+1)
	cur := make([]int, len(y)+1)
	for i := range x {
		for j := range y {
			switch {
			case x[i] == y[j]:
				cur[j+1] = prev[j] + 1
			case prev[j+1] >= cur[j]:
				cur[j+1] = prev[j+1]
			default:
				cur[j+1] = cur[j]
			}
		}
		prev, cur = cur, prev
	}
	return len(x) + len(y) - 2*prev[len(y)]
}

// minimalLines is the fewest changed lines the file expectations need: an
// exact file's diff from the fixture; a contains snippet's lines the fixture
// file lacks, each a line replaced (2: one out, one in) in a file that
// existed, or added (1) in a new file; an absent file's lines. ok is false when the task has no
// exact or contains file (minimality says nothing then).
func minimalLines(fixture map[string][]byte, files []FileExpect) (n int, ok bool) {
	for _, f := range files {
		old, had := fixture[f.Path]
		switch {
		case f.Exact != nil:
			ok = true
			n += lineDiff(old, []byte(*f.Exact))
		case f.Contains != nil:
			ok = true
			if had && bytes.Contains(old, []byte(*f.Contains)) {
				continue
			}
			have := map[string]bool{}
			for _, l := range splitLines(old) {
				have[l] = true
			}
			per := 1
			if had {
				per = 2
			}
			add := 0
			for _, l := range splitLines([]byte(*f.Contains)) {
				if !have[l] || !had {
					add += per
				}
			}
			n += max(add, per)
		case f.Absent && had:
			n += len(splitLines(old))
		}
	}
	return n, ok
}

// shadowTree reads the files of a checkpoint straight from the shadow git
// repository under home (read-only, with go-git, not through the agent's
// checkpoint code), so a rollback is checked independently of it.
func shadowTree(ctx context.Context, home, checkpointID string) (map[string][]byte, error) {
	dirs, err := filepath.Glob(filepath.Join(home, "checkpoints", "*.git"))
	if err != nil || len(dirs) == 0 {
		return nil, errors.New("no shadow repository under the run's AGENT_HOME")
	}
	for _, dir := range dirs {
		repo, err := git.PlainOpen(dir)
		if err != nil {
			continue
		}
		c, err := repo.CommitObject(plumbing.NewHash(checkpointID))
		if err != nil {
			continue
		}
		tree, err := c.Tree()
		if err != nil {
			return nil, fmt.Errorf("checkpoint %s: %w", checkpointID, err)
		}
		out := map[string][]byte{}
		err = tree.Files().ForEach(func(f *object.File) error {
			if err := ctx.Err(); err != nil {
				return err
			}
			if !f.Mode.IsFile() {
				return nil
			}
			r, err := f.Reader()
			if err != nil {
				return err
			}
			defer r.Close()
			b, err := io.ReadAll(r)
			if err != nil {
				return err
			}
			out[f.Name] = b
			return nil
		})
		if err != nil {
			return nil, fmt.Errorf("checkpoint %s: %w", checkpointID, err)
		}
		return out, nil
	}
	return nil, fmt.Errorf("checkpoint %s is not in the shadow repository", checkpointID)
}

// treeMismatch lists the files where ws differs from the checkpoint tree:
// a file of the tree missing or different, or one of the rolled-back files
// present though the tree lacks it.
func treeMismatch(tree, ws map[string][]byte, rolled []string) []string {
	var bad []string
	for p, b := range tree {
		got, ok := ws[p]
		switch {
		case !ok:
			bad = append(bad, p+" (missing)")
		case !bytes.Equal(got, b):
			bad = append(bad, p+" (differs)")
		}
	}
	for _, p := range rolled {
		if _, inTree := tree[p]; !inTree {
			if _, ok := ws[p]; ok {
				bad = append(bad, p+" (should be gone)")
			}
		}
	}
	sort.Strings(bad)
	return bad
}
