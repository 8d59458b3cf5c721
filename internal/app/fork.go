package app

// Forks: agent fork CHECKPOINT_ID, a new run whose first state is the
// conversation and the files of a checkpoint of another run. By default
// the fork gets its own git worktree of the workspace under
// AGENT_HOME/worktrees/RUN_ID, on the branch agent/fork-RUN_ID, whose one
// commit holds the checkpoint's files (copied from the shadow repository,
// internal/worktree); the original workspace is not touched. With Here the
// fork runs in the parent's workspace, whose present state is checkpointed
// first (the fork's own checkpoint, kind rollback), so the fork can be
// undone with agent rollback like a rollback.
//
// A fork shares nothing a deletion could take from it: its conversation is
// journaled as its own events (agent.ConversationAt) and its files are in
// its worktree's commit or, with Here, in snapshots its own refs reach.

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/storer"

	"agent/internal/agent"
	"agent/internal/checkpoint"
	"agent/internal/event"
	"agent/internal/store"
	"agent/internal/worktree"
)

// ForkOptions say how Home.PrepareFork forks.
type ForkOptions struct {
	// Here forks into the parent's workspace instead of a new worktree.
	Here bool
	// Message is the fork's next user message ("" : none yet); it is also
	// the prompt the run is listed with.
	Message string
}

// Fork is a fork prepared by Home.PrepareFork: its id, where it runs and
// what it starts from. Service.StartFork journals it.
type Fork struct {
	RunID      string
	ParentRun  string
	Checkpoint string // the full checkpoint id
	// Workspace is where the fork runs: its worktree, or (Here) the
	// parent's workspace.
	Workspace string
	// Worktree is the fork's git worktree (nil with Here).
	Worktree *event.WorktreeInfo
	Here     bool
	// Prior is the parent's model, approval mode and provider, for
	// LoadSettings: flags and the environment still win.
	Prior *Prior
	// Before is, with Here, the checkpoint of the workspace's state before
	// the fork (set by StartFork): agent rollback Before undoes the fork.
	Before string

	message string
	prompt  string // the parent's prompt, when no message is given
	seed    []event.Payload
}

// Branch is the fork's branch name ("" with Here).
func (f *Fork) Branch() string {
	if f.Worktree == nil {
		return ""
	}
	return f.Worktree.Branch
}

// ForkBranchPrefix begins the name of every fork's branch.
const ForkBranchPrefix = "agent/fork-"

// PrepareFork resolves a checkpoint (a unique prefix works) and prepares a
// fork of its run from it: the conversation at the checkpoint and, unless
// opt.Here, the fork's worktree with the checkpoint's files. Nothing is
// journaled yet. A workspace that is not the top of a git repository can
// only be forked with Here (a *UsageError says so).
func (h *Home) PrepareFork(ctx context.Context, checkpointID string, opt ForkOptions) (*Fork, error) {
	cp, err := h.st.GetCheckpoint(ctx, checkpointID)
	if err != nil {
		return nil, err
	}
	run, err := h.st.GetRun(ctx, cp.RunID)
	if err != nil {
		return nil, err
	}
	evs, err := h.st.Events(ctx, run.ID, 0)
	if err != nil {
		return nil, err
	}
	upto := cp.Seq
	if cp.Kind == event.CheckpointAfter {
		// the after-checkpoint is journaled before its call's result: the
		// call ran, so its result belongs to the fork's conversation
		for _, ev := range evs {
			if d, ok := ev.Data.(*event.ToolResultData); ok && ev.Seq > cp.Seq && d.CallID == cp.CallID {
				upto = ev.Seq
				break
			}
		}
	}
	f := &Fork{
		RunID: store.NewRunID(), ParentRun: run.ID, Checkpoint: cp.ID, Here: opt.Here,
		Prior: priorOf(run, agent.Fold(run.ID, evs)), message: opt.Message, prompt: run.Prompt,
		seed: agent.ConversationAt(evs, upto),
	}
	if opt.Here {
		f.Workspace = cp.Workspace
		return f, nil
	}
	home, err := filepath.EvalSymlinks(h.Dir())
	if err != nil {
		return nil, err
	}
	repo, err := h.repo(cp.Workspace)
	if err != nil {
		return nil, fmt.Errorf("open the checkpoints of %s: %w", cp.Workspace, err)
	}
	wt, err := worktree.Add(ctx, worktree.AddOptions{
		Repo:   cp.Workspace,
		Path:   worktreeDir(home, f.RunID),
		Branch: ForkBranchPrefix + f.RunID,
		Tree: func(dst storer.EncodedObjectStorer) (plumbing.Hash, error) {
			return repo.CopyTree(ctx, cp.ID, dst)
		},
		Message: fmt.Sprintf("agent fork %s of run %s at checkpoint %s\n\nThe workspace's files at that checkpoint.\n", f.RunID, run.ID, shortCP(cp.ID)),
	})
	if err != nil {
		if strings.Contains(err.Error(), "not the top directory of a git repository") {
			return nil, usage("%v: a fork gets its own git worktree of the workspace; fork into the same workspace with --here", err)
		}
		return nil, fmt.Errorf("make the fork's worktree: %w", err)
	}
	f.Workspace = wt.Path
	f.Worktree = &event.WorktreeInfo{Path: wt.Path, Branch: wt.Branch, Commit: wt.Commit, Origin: cp.Workspace}
	return f, nil
}

// Discard removes what PrepareFork made when the fork is not started after
// all (its worktree, while it is unchanged).
func (f *Fork) Discard() {
	if f.Worktree != nil {
		_, _ = worktree.Remove(f.Worktree.Path, worktree.RemoveOptions{Branch: f.Worktree.Branch, Commit: f.Worktree.Commit})
	}
}

func shortCP(id string) string {
	if len(id) > 12 {
		return id[:12]
	}
	return id
}

// StartFork creates the fork's run in the session's workspace (which must
// be f.Workspace), takes its lock and journals its start: run_started with
// its parent run and checkpoint, the conversation of the checkpoint and,
// with Here, the checkpoint of the workspace's present state before the
// checkpoint's files are put back. An audit row (action fork) records it.
// named, if set, is told the run's id first. Message (f's message, if any)
// and Drive then continue it.
func (s *Service) StartFork(ctx context.Context, f *Fork, named func(runID string)) (*Run, error) {
	set := s.set
	if set.Workspace != f.Workspace {
		return nil, fmt.Errorf("app: fork %s runs in %s, the session is in %s", f.RunID, f.Workspace, set.Workspace)
	}
	if f.Here {
		// Refused before anything of the fork is made or named when the
		// parent is being driven (forkHere checks again under the lock).
		l, err := TryLockRun(s.set.Home, f.ParentRun)
		if errors.Is(err, ErrRunInUse) {
			return nil, usage("run %s is being driven in this workspace: stop it before forking it here, or fork into a worktree (without --here)", f.ParentRun)
		}
		if err != nil {
			return nil, err
		}
		l.Unlock()
	}
	if strings.TrimSpace(f.message) != "" {
		// a person's prompt like agent run's: a hook blocks it before
		// anything of the fork is made or listed
		if err := s.promptHooks(ctx, f.RunID, f.message); err != nil {
			return nil, err
		}
	}
	if named != nil {
		named(f.RunID)
	}
	prompt := f.message
	if strings.TrimSpace(prompt) == "" {
		prompt = f.prompt
	}
	r, err := s.createRun(ctx, f.RunID, prompt, f.message, set.Model, set.Approval)
	if err != nil {
		return nil, err
	}
	fail := func(err error) (*Run, error) {
		r.Close()
		return nil, err
	}
	if err := s.runner.StartFork(ctx, r.state, agent.Fork{ParentRun: f.ParentRun, ParentCheckpoint: f.Checkpoint, Worktree: f.Worktree, Seed: f.seed}); err != nil {
		return fail(err)
	}
	detail := fmt.Sprintf("fork of run %s at checkpoint %s", f.ParentRun, f.Checkpoint)
	if f.Worktree != nil {
		detail += fmt.Sprintf("; worktree %s on branch %s", f.Worktree.Path, f.Worktree.Branch)
	}
	if f.Here {
		pre, err := s.forkHere(ctx, r, f)
		if err != nil {
			return fail(err)
		}
		f.Before = pre
		detail += fmt.Sprintf("; in the same workspace, whose state before is checkpoint %s (undo with agent rollback %s)", pre, pre)
	}
	if err := s.store.Audit(ctx, store.AuditEntry{RunID: f.RunID, Action: "fork", Detail: detail}); err != nil {
		return fail(err)
	}
	s.sessionHooks(f.RunID, "new")
	return r, nil
}

// forkHere checkpoints the workspace's present state as the fork's (kind
// rollback) and puts back the files of the fork's checkpoint; it returns
// the checkpoint of the state before. The parent run must not be driven
// meanwhile: its lock is held.
func (s *Service) forkHere(ctx context.Context, r *Run, f *Fork) (string, error) {
	l, err := TryLockRun(s.set.Home, f.ParentRun)
	if errors.Is(err, ErrRunInUse) {
		return "", usage("run %s is being driven in this workspace: stop it before forking it here, or fork into a worktree (without --here)", f.ParentRun)
	}
	if err != nil {
		return "", err
	}
	defer l.Unlock()
	st := r.state
	pre, changes, err := s.cps.Rollback(ctx, f.Checkpoint, checkpoint.Meta{RunID: f.RunID, Kind: checkpoint.KindRollback, Step: st.Step, Event: st.LastSeq + 1})
	if err != nil {
		return "", fmt.Errorf("put back the files of checkpoint %s: %w", f.Checkpoint, err)
	}
	files := []string{}
	for _, ch := range changes {
		if ch.Action != checkpoint.ActionKept {
			files = append(files, ch.Path)
		}
	}
	if err := s.runner.RecordCheckpoint(ctx, st, &event.CheckpointData{CheckpointID: pre.ID, Kind: event.CheckpointRollback, Step: st.Step, Files: files}); err != nil {
		return "", err
	}
	for _, ch := range changes {
		if ch.Action == checkpoint.ActionKept {
			s.warn(fmt.Sprintf("%s: not restored: %s", ch.Path, ch.Reason))
		}
	}
	return pre.ID, nil
}
