package app

// Run deletion and retention: agent runs rm, agent runs prune and the
// [trace] retention prune of agent run. None of it needs a Service: a run is
// deleted from the journal and the shadow repository of its workspace, which
// may be gone.

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"
	"time"

	"github.com/gofrs/flock"

	"agent/internal/checkpoint"
	"agent/internal/protocol"
	"agent/internal/store"
)

// DeleteOptions configure Home.Delete and Home.Prune.
type DeleteOptions struct {
	// Reason goes into each deleted run's audit row, e.g. "agent runs rm by
	// alice". Required.
	Reason string
	// Deleted reports each run once it is deleted (nil: not reported).
	Deleted func(protocol.RunInfo, protocol.Deleted)
	// Skipped reports each run Home.Prune leaves because a live process
	// holds it (nil: not reported).
	Skipped func(protocol.RunInfo)
	// Warn receives warnings for the person, e.g. that the write-ahead log
	// could not be emptied (nil: dropped).
	Warn func(string)
}

func (o *DeleteOptions) warn(msg string) {
	if o.Warn != nil {
		o.Warn(msg)
	}
}

// deleteRuns deletes the runs with those ids (or unique id prefixes), each
// with deleteRun, then empties the write-ahead log (scrubJournal). Every id is
// resolved and every run's lock taken before anything is deleted: an unknown
// or ambiguous id is a *UsageError, and a run a live process holds is a
// *UsageError that is also ErrRunInUse, and then nothing is deleted. An id
// given twice is deleted once.
func deleteRuns(ctx context.Context, st *store.Store, ids []string, opt DeleteOptions) error {
	if len(ids) == 0 {
		return usage("no run ids given: name the runs to delete (list them with agent runs)")
	}
	if opt.Reason == "" {
		return errors.New("app: delete runs: no reason for the audit log")
	}
	var runs []store.Run
	var missing []error
	seen := map[string]bool{}
	for _, id := range ids {
		r, err := st.GetRun(ctx, id)
		if err != nil {
			// store.GetRun says "ambiguous" for a prefix of several runs;
			// it has no sentinel error for it.
			if !errors.Is(err, store.ErrNotFound) && !strings.Contains(err.Error(), "ambiguous") {
				return err
			}
			missing = append(missing, err)
			continue
		}
		if !seen[r.ID] {
			seen[r.ID] = true
			runs = append(runs, r)
		}
	}
	if len(missing) > 0 {
		return &UsageError{Err: &unknownRunsError{errs: missing}}
	}
	// A parent goes with its subagents (subagents_rm.go), children first.
	runs, orphans, err := withTaskChildren(ctx, st, newJournals(st), runs)
	if err != nil {
		return err
	}
	locks := make([]*flock.Flock, 0, len(runs))
	defer func() {
		for _, l := range locks {
			_ = l.Unlock()
		}
	}()
	for _, r := range runs {
		l, err := TryLockRun(st.Home(), r.ID)
		if errors.Is(err, ErrRunInUse) {
			return &UsageError{Err: &runInUseError{msg: fmt.Sprintf(
				"nothing deleted: run %s is in use by a live agent process; wait for it to finish or stop it (Ctrl-C), then retry", r.ID)}}
		}
		if err != nil {
			return err
		}
		locks = append(locks, l)
	}
	plans := map[string]*worktreePlan{}
	js := newJournals(st) // read under the locks, before anything is deleted
	for _, r := range runs {
		plans[r.ID] = planWorktree(ctx, st, js, r)
	}
	n := 0
	defer func() {
		if n > 0 {
			scrub(ctx, st, &opt)
		}
	}()
	defer func() {
		if n == len(runs) { // their parents are gone: so are workers that never started
			for _, ts := range orphans {
				finishWorktree(ctx, ts.ChildRun, &worktreePlan{dir: ts.Worktree, branch: ts.Branch}, &opt)
			}
		}
	}()
	for i, r := range runs {
		if err := ctx.Err(); err != nil {
			return fmt.Errorf("stopped before deleting run %s (%d of %d deleted): %w", r.ID, n, len(runs), err)
		}
		d, err := deleteRun(ctx, st, r, opt.Reason, locks[i], opt.warn)
		if err != nil {
			return err
		}
		finishWorktree(ctx, r.ID, plans[r.ID], &opt)
		n++
		if opt.Deleted != nil {
			opt.Deleted(runInfo(r), protocol.Deleted(d))
		}
	}
	return nil
}

// pruneOlder deletes, with deleteRun, every run whose last activity (its
// newest event) is older than olderThan, skipping (and reporting) the runs a
// live process holds, then empties the write-ahead log if it deleted any. It
// returns how many runs it deleted, also when it stops at an error.
// olderThan must be positive: a *UsageError otherwise, and nothing deleted.
func pruneOlder(ctx context.Context, st *store.Store, olderThan time.Duration, opt DeleteOptions) (int, error) {
	if err := positiveAge(olderThan); err != nil {
		return 0, err
	}
	if opt.Reason == "" {
		return 0, errors.New("app: prune runs: no reason for the audit log")
	}
	runs, err := pruneCandidates(ctx, st, olderThan)
	if err != nil {
		return 0, err
	}
	n := 0
	defer func() {
		if n > 0 {
			scrub(ctx, st, &opt)
		}
	}()
	for _, r := range runs {
		if err := ctx.Err(); err != nil {
			return n, fmt.Errorf("stopped before deleting run %s (%d deleted): %w", r.ID, n, err)
		}
		l, err := TryLockRun(st.Home(), r.ID)
		if errors.Is(err, ErrRunInUse) {
			if opt.Skipped != nil {
				opt.Skipped(runInfo(r))
			}
			continue
		}
		if err != nil {
			return n, err
		}
		plan := planWorktree(ctx, st, newJournals(st), r)
		del, err := deleteRun(ctx, st, r, opt.Reason, l, opt.warn)
		_ = l.Unlock()
		if err != nil {
			return n, err
		}
		finishWorktree(ctx, r.ID, plan, &opt)
		n++
		if opt.Deleted != nil {
			opt.Deleted(runInfo(r), protocol.Deleted(del))
		}
	}
	return n, nil
}

// pruneCandidates lists the runs pruneOlder(olderThan) would consider, the
// runs whose last activity is older than olderThan, oldest first (agent runs
// prune --dry-run); a run a live process holds is among them but would be
// skipped. olderThan must be positive: a *UsageError otherwise.
func pruneCandidates(ctx context.Context, st *store.Store, olderThan time.Duration) ([]store.Run, error) {
	if err := positiveAge(olderThan); err != nil {
		return nil, err
	}
	return st.RunsOlderThan(ctx, time.Now().Add(-olderThan))
}

func positiveAge(d time.Duration) error {
	if d <= 0 {
		return usage("prune: the age %s is not positive: give a positive Go duration, e.g. 720h for 30 days", d)
	}
	return nil
}

// PruneRetention is the [trace] retention prune agent run does before a new
// run: pruneOlder(retention) in the journal under home, with the reason
// "retention: [trace] retention = <retention>", reporting nothing (a warning
// of scrubJournal is dropped, a run in use is kept). A retention <= 0 keeps
// everything and does not even open the journal. It returns how many runs it
// deleted; a journal that cannot be opened is openJournal's error.
func PruneRetention(ctx context.Context, home string, retention time.Duration) (int, error) {
	if retention <= 0 {
		return 0, nil
	}
	st, err := openJournal(ctx, home)
	if err != nil {
		return 0, err
	}
	defer st.Close()
	return pruneOlder(ctx, st, retention, DeleteOptions{Reason: "retention: [trace] retention = " + retention.String()})
}

// deleteRun deletes one run whose lock the caller holds (from TryLockRun):
// its snapshots in the shadow repository first (a failure there leaves the
// run listed, so the deletion can be retried), then its journal rows with
// their audit row (store.DeleteRun), then its lock file. The caller still
// unlocks lock. Call scrubJournal after a batch of deletions. The run's own
// git worktree (a fork's) goes first, so its shadow repository goes whole
// with its snapshots, unless it holds uncommitted changes: then it stays and
// warn says so.
func deleteRun(ctx context.Context, st *store.Store, r store.Run, reason string, lock *flock.Flock, warn func(string)) (store.Deleted, error) {
	removeWorktree(r, runWorktree(ctx, st, r.ID), warn)
	if err := checkpoint.DeleteRunSnapshots(st.Home(), r.Workspace, r.ID); err != nil {
		return store.Deleted{}, fmt.Errorf("delete the checkpoints of run %s (nothing of the run was deleted from the journal): %w", r.ID, err)
	}
	d, err := st.DeleteRun(ctx, r.ID, reason)
	if err != nil {
		return d, err
	}
	if err := os.Remove(lock.Path()); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return d, fmt.Errorf("remove the lock file of run %s: %w", r.ID, err)
	}
	return d, nil
}

// ScrubError is scrubJournal's failure to empty the write-ahead log: worth a
// warning, not a failure (a live reader in another process may hold it).
type ScrubError struct {
	WAL string // the write-ahead log file
	Err error
}

func (e *ScrubError) Error() string {
	return fmt.Sprintf("%v; deleted pages stay in %s until the next checkpoint", e.Err, e.WAL)
}

func (e *ScrubError) Unwrap() error { return e.Err }

// scrubJournal empties the write-ahead log after deletions, so the pages of the
// deleted runs do not survive in it; its error is a *ScrubError.
func scrubJournal(ctx context.Context, st *store.Store) error {
	if err := st.Scrub(ctx); err != nil {
		return &ScrubError{WAL: st.Path() + "-wal", Err: err}
	}
	return nil
}

// scrub runs scrubJournal after deletions even when ctx was cancelled midway: the
// runs deleted so far should not stay readable in the log.
func scrub(ctx context.Context, st *store.Store, opt *DeleteOptions) {
	if err := scrubJournal(context.WithoutCancel(ctx), st); err != nil {
		opt.warn(err.Error())
	}
}

// unknownRunsError lists the ids deleteRuns could not resolve; it matches
// store.ErrNotFound when one of them is unknown.
type unknownRunsError struct{ errs []error }

func (e *unknownRunsError) Error() string {
	msgs := make([]string, len(e.errs))
	for i, err := range e.errs {
		msgs[i] = err.Error()
	}
	return "nothing deleted: " + strings.Join(msgs, "; ")
}

func (e *unknownRunsError) Unwrap() []error { return e.errs }

// runInUseError is ErrRunInUse with a message of its own.
type runInUseError struct{ msg string }

func (e *runInUseError) Error() string        { return e.msg }
func (e *runInUseError) Is(target error) bool { return target == ErrRunInUse }
