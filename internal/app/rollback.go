package app

import (
	"context"
	"fmt"
	"strings"

	"github.com/gofrs/flock"

	"agent/internal/checkpoint"
	"agent/internal/event"
	"agent/internal/protocol"
	"agent/internal/store"
)

// RollbackResult says what a rollback did.
type RollbackResult struct {
	RunID string
	// To is the checkpoint the files were put back to.
	To string
	// Before is the checkpoint taken of the state before the rollback:
	// rolling back to it undoes the rollback.
	Before string
	// Changes are the paths the rollback looked at, with what it did.
	Changes []protocol.FileChange
	// Files are the paths the rollback changed.
	Files []string
	// NotRestored are the paths the rollback left as they are because
	// restoring them would destroy something no snapshot holds (a file over
	// the 10 MiB cap), each with its Reason. When there are any, the
	// workspace is not as it was at the checkpoint: say so (agent rollback
	// exits 1).
	NotRestored []protocol.FileChange
}

// Incomplete reports whether some path could not be given its content at
// the checkpoint (NotRestored is not empty).
func (r RollbackResult) Incomplete() bool { return len(r.NotRestored) > 0 }

// NotRestoredText is one line a path: "PATH: not restored: REASON".
func (r RollbackResult) NotRestoredText() string {
	var b strings.Builder
	for _, ch := range r.NotRestored {
		fmt.Fprintf(&b, "%s: not restored: %s\n", ch.Path, ch.Reason)
	}
	return b.String()
}

// RollbackOptions say what a rollback puts back.
type RollbackOptions struct {
	// Files puts the workspace files back as they were at the checkpoint
	// (the present state is checkpointed first, so this can be undone).
	Files bool
	// Conversation rewinds the run's conversation to the checkpoint's
	// place in the journal (the trace keeps every event).
	Conversation bool
	// ToSeq, when set, is where Conversation rewinds to instead of the
	// checkpoint's place: the conversation keeps the events up to it (a
	// rewind to just before one of the person's messages).
	ToSeq int64
}

// Rollback rolls a run back to a checkpoint. The run must not be driven by
// another process; if it is the one this session drives (r), its state
// takes the rollback in.
func (s *Service) Rollback(ctx context.Context, checkpointID string, opt RollbackOptions, r *Run) (RollbackResult, error) {
	return rollback(ctx, s.store, s.cps, checkpointID, opt, r)
}

// rollback uses open, when it is the shadow repository of the checkpoint's
// workspace: one process must not hold two stores of one repository (each
// caches the runs' heads).
func rollback(ctx context.Context, st *store.Store, open *checkpoint.Store, checkpointID string, opt RollbackOptions, r *Run) (RollbackResult, error) {
	if !opt.Files && !opt.Conversation {
		return RollbackResult{}, usage("a rollback puts back the files, the conversation or both: say which")
	}
	cp, err := st.GetCheckpoint(ctx, checkpointID)
	if err != nil {
		return RollbackResult{}, err
	}
	run, err := st.GetRun(ctx, cp.RunID)
	if err != nil {
		return RollbackResult{}, err
	}
	ours := r != nil && r.id == run.ID
	if !ours {
		var l *flock.Flock
		if l, err = TryLockRun(st.Home(), run.ID); err != nil {
			return RollbackResult{}, err
		}
		defer l.Unlock()
	}
	toSeq := cp.Seq
	if opt.ToSeq > 0 {
		toSeq = opt.ToSeq
	}
	step, last := run.Steps, run.LastSeq
	if ours {
		step, last = r.state.Step, r.state.LastSeq
	}
	if !opt.Files {
		rb := &event.RollbackData{CheckpointID: cp.ID, Files: []string{}, Conversation: true, ToSeq: toSeq}
		res := RollbackResult{RunID: run.ID, To: cp.ID, Files: []string{}}
		if ours {
			return res, r.s.runner.RecordRollback(ctx, r.state, nil, rb)
		}
		ev := event.New(run.ID, rb)
		return res, st.Append(ctx, &ev)
	}
	repo := open
	if repo == nil || repo.Workspace() != cp.Workspace {
		if repo, err = checkpoint.Open(st.Home(), cp.Workspace); err != nil {
			return RollbackResult{}, err
		}
		defer repo.Close()
	}
	pre, changes, err := repo.Rollback(ctx, cp.ID, checkpoint.Meta{RunID: run.ID, Kind: checkpoint.KindRollback, Step: step, Event: last})
	if err != nil {
		return RollbackResult{}, fmt.Errorf("rollback to %s: %w", cp.ID, err)
	}
	res := RollbackResult{RunID: run.ID, To: cp.ID, Before: pre.ID, Files: []string{}}
	for _, ch := range changes {
		fc := protocol.FileChange{Path: ch.Path, Action: protocol.FileAction(ch.Action), Reason: ch.Reason}
		res.Changes = append(res.Changes, fc)
		if ch.Action != checkpoint.ActionKept {
			res.Files = append(res.Files, ch.Path)
		} else {
			res.NotRestored = append(res.NotRestored, fc)
		}
	}
	preFiles := []string{}
	if pre.Parent != "" {
		if d, err := repo.Diff(ctx, pre.Parent, pre.ID); err == nil {
			for _, ch := range d {
				preFiles = append(preFiles, ch.Path)
			}
		}
	}
	preEv := &event.CheckpointData{CheckpointID: pre.ID, Kind: event.CheckpointRollback, Step: step, Files: preFiles}
	rbEv := &event.RollbackData{CheckpointID: cp.ID, Files: res.Files, Conversation: opt.Conversation, Before: pre.ID, ToSeq: toSeq}
	if ours {
		if err := r.s.runner.RecordRollback(ctx, r.state, preEv, rbEv); err != nil {
			return res, err
		}
		return res, nil
	}
	a, b := event.New(run.ID, preEv), event.New(run.ID, rbEv)
	if err := st.Append(ctx, &a, &b); err != nil {
		return res, err
	}
	return res, nil
}
