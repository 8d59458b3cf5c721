package app

// Deleting subagents: `agent runs rm PARENT` deletes the whole tree (the
// task children named in the parent's journal, theirs, ...), children
// first; a worker's worktree and branch go with its run unless they hold
// changes its parent never applied, which are kept and said.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"agent/internal/event"
	"agent/internal/store"
	"agent/internal/tools"
)

// journals reads each run's journal once for a batch of plans: a parent's
// is read once for all of its workers (workerRecord).
type journals struct {
	st *store.Store
	m  map[string][]event.Event
}

func newJournals(st *store.Store) *journals {
	return &journals{st: st, m: map[string][]event.Event{}}
}

func (j *journals) events(ctx context.Context, runID string) ([]event.Event, error) {
	if evs, ok := j.m[runID]; ok {
		return evs, nil
	}
	evs, err := j.st.Events(ctx, runID, 0)
	if err != nil {
		return nil, err
	}
	j.m[runID] = evs
	return evs, nil
}

// withTaskChildren returns runs with every run of their trees below them,
// each child before its parent, each run once; and the workers named in
// their journals that never got a run (a crash between task_started and
// the child's start), whose worktrees go with their parent.
func withTaskChildren(ctx context.Context, st *store.Store, js *journals, runs []store.Run) ([]store.Run, []event.TaskStartedData, error) {
	seen := map[string]bool{}
	var out []store.Run
	var orphans []event.TaskStartedData
	var walk func(r store.Run) error
	walk = func(r store.Run) error {
		if seen[r.ID] {
			return nil
		}
		seen[r.ID] = true
		evs, err := js.events(ctx, r.ID)
		if err != nil {
			return err
		}
		for _, ev := range evs {
			ts, ok := ev.Data.(*event.TaskStartedData)
			if !ok {
				continue
			}
			c, err := st.GetRun(ctx, ts.ChildRun)
			if errors.Is(err, store.ErrNotFound) || (err == nil && c.ID != ts.ChildRun) {
				if ts.Kind == event.TaskWorker && filepath.Dir(ts.Worktree) == filepath.Join(st.Home(), "worktrees") {
					orphans = append(orphans, *ts)
				}
				continue // never started, or deleted already
			}
			if err != nil {
				return err
			}
			if err := walk(c); err != nil {
				return err
			}
		}
		out = append(out, r)
		return nil
	}
	for _, r := range runs {
		if err := walk(r); err != nil {
			return nil, nil, err
		}
	}
	return out, orphans, nil
}

// worktreePlan is what happens to a worker's worktree when its run is
// deleted: removed with its branch, or kept (why says so).
type worktreePlan struct {
	dir, branch string
	keep        string
}

// planWorktree decides about the worktree of run r, if it is a worker's
// (its workspace is under the state directory's worktrees). It reads the
// parent's journal, so it runs before anything of the tree is deleted.
func planWorktree(ctx context.Context, st *store.Store, js *journals, r store.Run) *worktreePlan {
	dir := worktreeDir(st.Home(), r.ID)
	if filepath.Clean(r.Workspace) != dir {
		return nil
	}
	if !isTaskChild(ctx, st, r.ID) {
		return nil // a fork's worktree, also under worktrees/: the fork's removal owns it
	}
	p := &worktreePlan{dir: dir, branch: taskBranch(r.ID)}
	ts, applied, err := workerRecord(ctx, st, js, r.ID)
	switch {
	case err != nil:
		p.keep = fmt.Sprintf("its parent's record of it cannot be read (%v), so whether its changes were applied is unknown", err)
	case applied:
	default:
		base, err := worktreeBase(ts)
		var files []fileChange
		if err == nil {
			files, _, err = worktreeChanges(ctx, st.Home(), dir, base, false)
		}
		if err != nil {
			p.keep = fmt.Sprintf("its changes cannot be read (%v)", err)
		} else if len(files) > 0 {
			p.keep = fmt.Sprintf("it holds changes to %d file(s) that were never applied", len(files))
		}
	}
	return p
}

// isTaskChild reports whether run id is a task's child (its run_started
// names a parent call); a run whose start cannot be read counts as one, so
// its worktree is kept rather than removed unread.
func isTaskChild(ctx context.Context, st *store.Store, id string) bool {
	d, err := st.Start(ctx, id)
	return err != nil || d == nil || d.ParentCall != ""
}

// workerRecord finds the task_started of worker run id in its parent's
// journal, and whether the parent applied its changes (an
// apply_task_changes call of that task that ended ok).
func workerRecord(ctx context.Context, st *store.Store, js *journals, id string) (event.TaskStartedData, bool, error) {
	d, err := st.Start(ctx, id)
	if err != nil {
		return event.TaskStartedData{}, false, err
	}
	var parent string
	if d != nil {
		parent = d.ParentRun
	}
	if parent == "" {
		return event.TaskStartedData{}, false, errors.New("its run names no parent")
	}
	pevs, err := js.events(ctx, parent)
	if err != nil {
		return event.TaskStartedData{}, false, err
	}
	var ts *event.TaskStartedData
	applies := map[string]bool{} // apply calls of this task
	applied := false
	for _, ev := range pevs {
		switch d := ev.Data.(type) {
		case *event.TaskStartedData:
			if d.ChildRun == id {
				ts = d
			}
		case *event.ToolCallData:
			if d.Name == tools.ApplyTaskChangesName && ts != nil {
				var a tools.ApplyTaskArgs
				if json.Unmarshal([]byte(d.Arguments), &a) == nil && a.CallID == ts.CallID {
					applies[d.CallID] = true
				}
			}
		case *event.ToolResultData:
			if applies[d.CallID] && d.Status == event.ResultOK {
				applied = true
			}
		}
	}
	if ts == nil {
		return event.TaskStartedData{}, false, fmt.Errorf("parent run %s has no record of it (deleted?)", parent)
	}
	return *ts, applied, nil
}

// finishWorktree removes or keeps a deleted run's worktree, saying what
// it kept.
func finishWorktree(ctx context.Context, runID string, p *worktreePlan, opt *DeleteOptions) {
	if p == nil {
		return
	}
	if p.keep != "" {
		opt.warn(fmt.Sprintf("kept the worktree %s (branch %s) of deleted run %s: %s; look with git -C %s status, "+
			"remove it with git worktree remove --force %s && git branch -D %s", p.dir, p.branch, runID, p.keep, p.dir, p.dir, p.branch))
		return
	}
	if err := removeTaskWorktree(p.dir, p.branch); err != nil {
		opt.warn(fmt.Sprintf("could not remove the worktree %s of run %s: %v", p.dir, runID, strings.TrimSpace(err.Error())))
	}
}
