package repomap

import (
	"context"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	git "github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/cache"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/go-git/go-git/v5/storage/filesystem"
)

// gitCommits is how many commits of history are read for recency.
const gitCommits = 50

// gitObjectCache bounds the decoded git objects readRecent keeps (go-git's
// default is 96 MiB).
const gitObjectCache = 2 << 20

// gitHistory keeps, for the Builder that owns it, the recency read from
// the git history, per root and HEAD commit: a later build at the same
// HEAD does not read the history again.
type gitHistory struct {
	mu    sync.Mutex
	memo  map[string]map[string]float64 // root + HEAD -> recency
	last  map[string]string             // root -> its key in memo at the last build
	reads int                           // histories read rather than found in memo (for tests)
}

// lastOf returns root's history at its last build (key "" and nil when
// none was read), which a snapshot keeps.
func (h *gitHistory) lastOf(root string) (string, map[string]float64) {
	h.mu.Lock()
	defer h.mu.Unlock()
	k := h.last[root]
	return k, h.memo[k]
}

// restore puts back a history a snapshot kept.
func (h *gitHistory) restore(root, key string, m map[string]float64) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.memo == nil || len(h.memo) > 64 {
		h.memo = map[string]map[string]float64{}
	}
	if h.last == nil {
		h.last = map[string]string{}
	}
	h.memo[key], h.last[root] = m, key
}

// recent returns, for files under root (slash paths relative to it), a
// recency weight from the last gitCommits commits: a file touched by the
// newest commit weighs 1, by the k-th newest 1/(k+1), summed. Errors (no
// repository, shallow history) yield an empty result. The map returned is
// shared: read only.
func (h *gitHistory) recent(ctx context.Context, root string) map[string]float64 {
	repo, err := git.PlainOpenWithOptions(root, &git.PlainOpenOptions{DetectDotGit: true})
	if err != nil {
		return nil
	}
	wt, err := repo.Worktree()
	if err != nil {
		return nil
	}
	prefix, err := filepath.Rel(wt.Filesystem.Root(), root)
	if err != nil || strings.HasPrefix(prefix, "..") {
		return nil
	}
	prefix = filepath.ToSlash(prefix)
	if prefix == "." {
		prefix = ""
	} else {
		prefix += "/"
	}
	head, err := repo.Head()
	if err != nil {
		return nil
	}
	key := root + "\x00" + head.Hash().String()
	h.mu.Lock()
	m, ok := h.memo[key]
	if ok && h.last != nil {
		h.last[root] = key
	}
	h.mu.Unlock()
	if ok {
		return m
	}
	out := readRecent(ctx, repo, head.Hash(), prefix)
	if out == nil || ctx.Err() != nil {
		return out // not kept: a history cut short by the context is read again next time
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	h.reads++
	if h.memo == nil || len(h.memo) > 64 {
		h.memo = map[string]map[string]float64{}
	}
	h.memo[key] = out
	if h.last == nil {
		h.last = map[string]string{}
	}
	h.last[root] = key
	return out
}

// readRecent reads the recency of the files under prefix from the last
// gitCommits commits up to head (nil if the log cannot be read). Each
// commit's changes are read with changedPaths (gitdiff.go), from a storage
// that keeps the pack files open: go-git's default storage opens the pack
// for every object, which was half the cost on a tree of 10^4 files.
func readRecent(ctx context.Context, repo *git.Repository, head plumbing.Hash, prefix string) map[string]float64 {
	if fs, ok := repo.Storer.(*filesystem.Storage); ok {
		// a small object cache: each tree is read once or twice (as a
		// commit's and as its child's parent's)
		st := filesystem.NewStorageWithOptions(fs.Filesystem(), cache.NewObjectLRU(gitObjectCache), filesystem.Options{KeepDescriptors: true})
		defer st.Close()
		if r, err := git.Open(st, nil); err == nil {
			repo = r
		}
	}
	iter, err := repo.Log(&git.LogOptions{From: head})
	if err != nil {
		return nil
	}
	defer iter.Close()
	out := map[string]float64{}
	for k := 0; k < gitCommits && ctx.Err() == nil; k++ {
		c, err := iter.Next()
		if err != nil {
			break
		}
		tree, err := c.Tree()
		if err != nil {
			break
		}
		var parent *object.Tree
		if c.NumParents() > 0 {
			if p, err := c.Parent(0); err == nil {
				parent, _ = p.Tree()
			}
		}
		w := 1 / float64(k+1)
		err = changedPaths(ctx, repo.Storer, parent, tree, func(name string) {
			if rel, ok := strings.CutPrefix(name, prefix); ok {
				out[rel] += w
			}
		})
		if err != nil {
			break
		}
	}
	return out
}

// mtimeRecent picks up to n files modified distinctly later than the rest
// (newer than the 90th percentile and within a week of the newest), which
// catches uncommitted edits; a tree unpacked at one time yields none.
func mtimeRecent(files []*srcFile, n int) []string {
	if len(files) == 0 {
		return nil
	}
	ts := make([]int64, 0, len(files))
	for _, f := range files {
		ts = append(ts, f.mtime)
	}
	slices.Sort(ts)
	p90 := ts[len(ts)*9/10]
	newest := ts[len(ts)-1]
	const week = int64(7 * 24 * 3600 * 1e9)
	var cand []*srcFile
	for _, f := range files {
		if f.mtime > p90 && f.mtime >= newest-week {
			cand = append(cand, f)
		}
	}
	slices.SortFunc(cand, func(a, b *srcFile) int {
		if a.mtime != b.mtime {
			if a.mtime > b.mtime {
				return -1
			}
			return 1
		}
		return strings.Compare(a.rel, b.rel)
	})
	var out []string
	for _, f := range cand[:min(n, len(cand))] {
		out = append(out, f.rel)
	}
	return out
}
