package cmd

import (
	"agent/internal/app"
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/gofrs/flock"
	"github.com/spf13/cobra"

	"agent/internal/checkpoint"
	"agent/internal/store"
)

func newRunsRmCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "rm RUN_ID...",
		Short: "Delete runs with their events, checkpoints and lock files",
		Long: `Delete runs: their events, their checkpoint index rows and approval grants in
the journal, their refs in the shadow repository with every snapshot object only
they reached, and their lock files. The deleted rows are overwritten in the
database file (secure_delete) and the write-ahead log is emptied, so the prompt
and the tool output are not left readable on disk.

The audit log keeps that the deletion happened (who, how many events), never
what the run contained. A run driven by a live agent process (its lock is held)
is refused with exit 2, and then nothing is deleted. All ids are checked before
anything is deleted: an unknown id deletes nothing. Any unique id prefix works.`,
		Example: `  agent runs rm 20261129T203216-3f9a1c
  agent runs rm 20261129T2032 20261130T0915
  agent runs --json | jq -r '.[] | select(.status=="failed") | .run_id' | xargs agent runs rm`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 {
				return usageErr("agent runs rm needs run ids, e.g. agent runs rm 20261129T203216-3f9a1c (list them with agent runs)")
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx := cmd.Context()
			st, err := openStore(cmd)
			if err != nil {
				return err
			}
			defer st.Close()
			var runs []store.Run
			var missing []string
			seen := map[string]bool{}
			for _, a := range args {
				r, err := st.GetRun(ctx, a)
				if err != nil {
					if !errors.Is(err, store.ErrNotFound) && !strings.Contains(err.Error(), "ambiguous") {
						return withCode(ExitFailed, err)
					}
					missing = append(missing, err.Error())
					continue
				}
				if !seen[r.ID] {
					seen[r.ID] = true
					runs = append(runs, r)
				}
			}
			if len(missing) > 0 {
				return usageErr("nothing deleted: %s", strings.Join(missing, "; "))
			}
			locks := make([]*flock.Flock, 0, len(runs))
			defer func() {
				for _, l := range locks {
					_ = l.Unlock()
				}
			}()
			for _, r := range runs {
				l, err := app.TryLockRun(st.Home(), r.ID)
				if errors.Is(err, app.ErrRunInUse) {
					return usageErr("nothing deleted: run %s is in use by a live agent process; wait for it to finish or stop it (Ctrl-C), then retry", r.ID)
				}
				if err != nil {
					return withCode(ExitFailed, err)
				}
				locks = append(locks, l)
			}
			reason := "agent runs rm by " + whoami()
			out := cmd.OutOrStdout()
			for i, r := range runs {
				d, err := deleteRun(ctx, st, r, reason, locks[i])
				if err != nil {
					return withCode(ExitFailed, err)
				}
				fmt.Fprintf(out, "deleted run %s: %d events, %d checkpoints\n", r.ID, d.Events, d.Checkpoints)
			}
			scrub(ctx, st, cmd.ErrOrStderr())
			return nil
		},
	}
}

func newRunsPruneCmd() *cobra.Command {
	var olderThan string
	var dryRun bool
	c := &cobra.Command{
		Use:   "prune --older-than DURATION",
		Short: "Delete every run whose last activity is older than a duration",
		Long: `Delete every run whose last activity (its newest event) is older than the
duration, exactly as agent runs rm does. Runs driven by a live agent process are
skipped with a note on stderr. With [trace] retention = "720h" in the config,
agent run prunes the same way when it starts.

The duration is a Go duration: 720h is 30 days (no d or w units).`,
		Example: `  agent runs prune --older-than 720h
  agent runs prune --older-than 168h --dry-run`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if olderThan == "" {
				return usageErr("agent runs prune needs --older-than, e.g. --older-than 720h (30 days)")
			}
			d, err := time.ParseDuration(olderThan)
			if err != nil || d <= 0 {
				return usageErr("--older-than %q is not a positive Go duration: use hours, e.g. --older-than 720h for 30 days", olderThan)
			}
			ctx := cmd.Context()
			st, err := openStore(cmd)
			if err != nil {
				return err
			}
			defer st.Close()
			out, errw := cmd.OutOrStdout(), cmd.ErrOrStderr()
			if dryRun {
				runs, err := st.RunsOlderThan(ctx, time.Now().Add(-d))
				if err != nil {
					return withCode(ExitFailed, err)
				}
				for _, r := range runs {
					fmt.Fprintf(out, "would delete run %s (last active %s)\n", r.ID, r.Updated.Local().Format(time.DateTime))
				}
				if len(runs) == 0 {
					fmt.Fprintf(errw, "no runs older than %s\n", d)
				}
				return nil
			}
			n, err := pruneOlder(ctx, st, d, "agent runs prune --older-than "+d.String()+" by "+whoami(),
				func(r store.Run, del store.Deleted) {
					fmt.Fprintf(out, "deleted run %s: %d events, %d checkpoints\n", r.ID, del.Events, del.Checkpoints)
				},
				func(r store.Run) {
					fmt.Fprintf(errw, "skipped run %s: in use by a live agent process\n", r.ID)
				})
			if n > 0 {
				scrub(ctx, st, errw)
			} else if err == nil {
				fmt.Fprintf(errw, "no runs older than %s\n", d)
			}
			if err != nil {
				return withCode(ExitFailed, err)
			}
			return nil
		},
	}
	c.Flags().StringVar(&olderThan, "older-than", "", "delete runs whose last activity is older than this Go duration, e.g. 720h")
	c.Flags().BoolVar(&dryRun, "dry-run", false, "list the runs that would be deleted, delete nothing")
	return c
}

// pruneRetention deletes the runs whose last activity is older than
// retention ([trace] retention), skipping runs held by a live process. It
// prints nothing (agent run calls it before its "run: ID" line) and returns
// how many runs it deleted. retention <= 0 keeps everything.
func pruneRetention(ctx context.Context, home string, retention time.Duration) (int, error) {
	if retention <= 0 {
		return 0, nil
	}
	st, err := app.OpenStore(ctx, home)
	if err != nil {
		return 0, appErr(err)
	}
	defer st.Close()
	n, err := pruneOlder(ctx, st, retention, "retention: [trace] retention = "+retention.String(), nil, nil)
	if n > 0 {
		scrub(ctx, st, io.Discard)
	}
	return n, err
}

// pruneOlder deletes the runs idle for longer than d; deleted and skipped
// (may be nil) report each run.
func pruneOlder(ctx context.Context, st *store.Store, d time.Duration, reason string,
	deleted func(store.Run, store.Deleted), skipped func(store.Run)) (int, error) {
	runs, err := st.RunsOlderThan(ctx, time.Now().Add(-d))
	if err != nil {
		return 0, err
	}
	n := 0
	for _, r := range runs {
		l, err := app.TryLockRun(st.Home(), r.ID)
		if errors.Is(err, app.ErrRunInUse) {
			if skipped != nil {
				skipped(r)
			}
			continue
		}
		if err != nil {
			return n, err
		}
		del, err := deleteRun(ctx, st, r, reason, l)
		_ = l.Unlock()
		if err != nil {
			return n, err
		}
		n++
		if deleted != nil {
			deleted(r, del)
		}
	}
	return n, nil
}

// deleteRun deletes one run whose lock the caller holds: the shadow
// repository's refs and objects first (a failure there leaves the run listed,
// so the deletion can be retried), then the journal rows with their audit
// row, then the lock file.
func deleteRun(ctx context.Context, st *store.Store, r store.Run, reason string, lock *flock.Flock) (store.Deleted, error) {
	if err := deleteCheckpoints(st.Home(), r.Workspace, r.ID); err != nil {
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

// scrub empties the write-ahead log after deletions; a live reader in another
// process may keep it from doing so, which is worth a note but not a failure.
func scrub(ctx context.Context, st *store.Store, w io.Writer) {
	if err := st.Scrub(ctx); err != nil {
		fmt.Fprintf(w, "agent: warning: %v; deleted pages stay in %s-wal until the next checkpoint\n", err, st.Path())
	}
}

// deleteCheckpoints removes the run's snapshots from the shadow repository of
// its workspace. The repository is found by the workspace path it records
// (<repo>/agent/workspace), so a run that never took a checkpoint creates no
// repository here.
func deleteCheckpoints(home, workspace, runID string) error {
	gitDir, err := findShadowRepo(home, workspace)
	if err != nil || gitDir == "" {
		return err
	}
	if fi, err := os.Stat(workspace); err == nil && fi.IsDir() {
		return deleteWithRepo(home, workspace, runID)
	}
	// The workspace is gone. checkpoint.Open needs the directory (it derives
	// the repository from the resolved path), so: when no other run has
	// snapshots there, the repository holds nothing anyone needs and goes
	// whole; otherwise the workspace path is recreated empty for the prune
	// and removed again (only the directories made here, only if empty).
	others, mine, err := shadowRuns(gitDir, runID)
	if err != nil {
		return err
	}
	if !mine {
		return nil
	}
	if !others {
		l := flock.New(filepath.Join(gitDir, "agent", "lock"), flock.SetPermissions(0o600))
		if err := l.Lock(); err != nil {
			return fmt.Errorf("lock the shadow repository %s: %w", gitDir, err)
		}
		defer l.Unlock()
		if err := os.RemoveAll(gitDir); err != nil {
			return fmt.Errorf("remove the shadow repository %s: %w", gitDir, err)
		}
		return nil
	}
	made, err := mkdirAllTracked(workspace)
	if err != nil {
		return fmt.Errorf("workspace %s no longer exists and its shadow repository holds other runs; "+
			"recreate the directory (mkdir -p %s) and retry: %w", workspace, workspace, err)
	}
	defer func() {
		for i := len(made) - 1; i >= 0; i-- {
			_ = os.Remove(made[i])
		}
	}()
	return deleteWithRepo(home, workspace, runID)
}

func deleteWithRepo(home, workspace, runID string) error {
	repo, err := checkpoint.Open(home, workspace)
	if err != nil {
		return fmt.Errorf("open the shadow repository: %w", err)
	}
	err = repo.DeleteRun(runID)
	if cerr := repo.Close(); err == nil && cerr != nil {
		err = cerr
	}
	return err
}

// findShadowRepo returns the shadow repository recording workspace, or "".
func findShadowRepo(home, workspace string) (string, error) {
	root := filepath.Join(home, "checkpoints")
	ents, err := os.ReadDir(root)
	if errors.Is(err, fs.ErrNotExist) {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("list shadow repositories: %w", err)
	}
	want := []string{filepath.Clean(workspace)}
	if abs, err := filepath.Abs(workspace); err == nil {
		if r, err := filepath.EvalSymlinks(abs); err == nil && r != want[0] {
			want = append(want, r)
		}
	}
	for _, e := range ents {
		if !e.IsDir() || !strings.HasSuffix(e.Name(), ".git") {
			continue
		}
		b, err := os.ReadFile(filepath.Join(root, e.Name(), "agent", "workspace"))
		if err != nil {
			continue
		}
		got := strings.TrimSuffix(string(b), "\n")
		for _, w := range want {
			if got == w {
				return filepath.Join(root, e.Name()), nil
			}
		}
	}
	return "", nil
}

// shadowRuns reports whether runID and whether any other run has refs
// (loose or packed) under refs/agent/runs/ in gitDir.
func shadowRuns(gitDir, runID string) (others, mine bool, err error) {
	note := func(run string) {
		if run == runID {
			mine = true
		} else if run != "" {
			others = true
		}
	}
	ents, err := os.ReadDir(filepath.Join(gitDir, "refs", "agent", "runs"))
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return false, false, fmt.Errorf("list refs of %s: %w", gitDir, err)
	}
	for _, e := range ents {
		if sub, err := os.ReadDir(filepath.Join(gitDir, "refs", "agent", "runs", e.Name())); err == nil && len(sub) > 0 {
			note(e.Name())
		}
	}
	f, err := os.Open(filepath.Join(gitDir, "packed-refs"))
	if errors.Is(err, fs.ErrNotExist) {
		return others, mine, nil
	}
	if err != nil {
		return false, false, fmt.Errorf("read packed refs of %s: %w", gitDir, err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		_, name, ok := strings.Cut(sc.Text(), " ")
		if rest, found := strings.CutPrefix(name, "refs/agent/runs/"); ok && found {
			if i := strings.LastIndexByte(rest, '/'); i > 0 {
				note(rest[:i])
			}
		}
	}
	return others, mine, sc.Err()
}

// mkdirAllTracked is os.MkdirAll that returns the directories it created,
// outermost first.
func mkdirAllTracked(dir string) ([]string, error) {
	var missing []string
	for d := filepath.Clean(dir); ; d = filepath.Dir(d) {
		if _, err := os.Lstat(d); err == nil {
			break
		}
		missing = append(missing, d)
		if filepath.Dir(d) == d {
			break
		}
	}
	var made []string
	for i := len(missing) - 1; i >= 0; i-- {
		if err := os.Mkdir(missing[i], 0o700); err != nil {
			for j := len(made) - 1; j >= 0; j-- {
				_ = os.Remove(made[j])
			}
			return nil, err
		}
		made = append(made, missing[i])
	}
	return made, nil
}
