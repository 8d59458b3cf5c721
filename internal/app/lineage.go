package app

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"sort"

	"agent/internal/event"
	"agent/internal/protocol"
	"agent/internal/store"
	"agent/internal/worktree"
)

// RunNode is a run with its lineage, for agent runs --tree: where it came
// from (a fork: ParentRun and ParentCheckpoint; a subagent's child:
// ParentRun and ParentCall), read from its run_started event, and the runs
// that came from it.
type RunNode struct {
	protocol.RunInfo
	ParentRun        string
	ParentCheckpoint string
	ParentCall       string
	// Worktree is the run's own git worktree, if it was given one.
	Worktree string
	// Children are the ids of the listed runs whose parent it is, oldest
	// first.
	Children []string
	// Depth is the run's depth in the listing: 0 for a root (a run with no
	// parent, or whose parent was deleted).
	Depth int
}

// RunTree lists every run with its lineage in tree order: the roots newest
// first (as Runs lists them), each followed by its descendants, oldest
// first, depth first.
func (h *Home) RunTree(ctx context.Context) ([]RunNode, error) {
	runs, err := h.Runs(ctx)
	if err != nil {
		return nil, err
	}
	starts, err := h.st.Starts(ctx)
	if err != nil {
		return nil, err
	}
	nodes := make(map[string]*RunNode, len(runs))
	for _, r := range runs {
		n := &RunNode{RunInfo: r}
		if d := starts[r.ID]; d != nil {
			n.ParentRun, n.ParentCheckpoint, n.ParentCall = d.ParentRun, d.ParentCheckpoint, d.ParentCall
			if d.Worktree != nil {
				n.Worktree = d.Worktree.Path
			}
		}
		nodes[r.ID] = n
	}
	kids := map[string][]*RunNode{}
	var roots []*RunNode
	for _, r := range runs { // newest first
		n := nodes[r.ID]
		if p := nodes[n.ParentRun]; p != nil && n.ParentRun != n.ID {
			kids[p.ID] = append(kids[p.ID], n)
			continue
		}
		roots = append(roots, n)
	}
	for _, ks := range kids {
		sort.SliceStable(ks, func(i, j int) bool { return ks[i].Started.Before(ks[j].Started) })
	}
	out := make([]RunNode, 0, len(runs))
	seen := map[string]bool{}
	var walk func(n *RunNode, depth int)
	walk = func(n *RunNode, depth int) {
		if seen[n.ID] {
			return
		}
		seen[n.ID] = true
		n.Depth = depth
		n.Children = []string{}
		for _, k := range kids[n.ID] {
			n.Children = append(n.Children, k.ID)
		}
		out = append(out, *n)
		for _, k := range kids[n.ID] {
			walk(k, depth+1)
		}
	}
	for _, n := range roots {
		walk(n, 0)
	}
	// a cycle (no run names a later run as its parent, but a journal could
	// be edited): its runs are listed as roots rather than dropped
	for _, r := range runs {
		walk(nodes[r.ID], 0)
	}
	return out, nil
}

// runWorktree is the git worktree a run was given (nil: none, or its start
// cannot be read).
func runWorktree(ctx context.Context, st *store.Store, runID string) *event.WorktreeInfo {
	d, err := st.Start(ctx, runID)
	if err != nil || d == nil {
		return nil
	}
	return d.Worktree
}

// removeWorktree removes a deleted run's worktree, with its branch while
// nothing was committed on it; a worktree with uncommitted changes is kept,
// and warn says so and how to remove it.
func removeWorktree(r store.Run, wt *event.WorktreeInfo, warn func(string)) {
	if wt == nil || wt.Path == "" {
		return
	}
	runID := r.ID
	if filepath.Clean(wt.Path) != filepath.Clean(r.Workspace) {
		// a run's own worktree is its workspace: anything else is not its to remove
		warn(fmt.Sprintf("the worktree %s recorded for run %s is not its workspace: not removed", wt.Path, runID))
		return
	}
	res, err := worktree.Remove(wt.Path, worktree.RemoveOptions{Branch: wt.Branch, Commit: wt.Commit})
	var de *worktree.DirtyError
	switch {
	case errors.As(err, &de):
		warn(fmt.Sprintf("kept the worktree of run %s: %v", runID, err))
	case err != nil:
		warn(fmt.Sprintf("the worktree %s of run %s was not removed: %v", wt.Path, runID, err))
	case res.KeptBranch:
		warn(fmt.Sprintf("removed the worktree of run %s; kept its branch %s, which has commits of its own", runID, wt.Branch))
	}
}
