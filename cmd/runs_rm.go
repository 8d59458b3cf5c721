package cmd

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/spf13/cobra"

	"agent/internal/app"
	"agent/internal/protocol"
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
			h, err := openHome(cmd)
			if err != nil {
				return err
			}
			defer h.Close()
			out, errw := cmd.OutOrStdout(), cmd.ErrOrStderr()
			return deleteErr(h.Delete(cmd.Context(), args, app.DeleteOptions{
				Reason:  "agent runs rm by " + app.Whoami(),
				Deleted: func(r protocol.RunInfo, d protocol.Deleted) { printDeleted(out, r, d) },
				Warn:    func(w string) { warn(errw, w) },
			}))
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
			h, err := openHome(cmd)
			if err != nil {
				return err
			}
			defer h.Close()
			out, errw := cmd.OutOrStdout(), cmd.ErrOrStderr()
			if dryRun {
				runs, err := h.PruneCandidates(ctx, d)
				if err != nil {
					return deleteErr(err)
				}
				for _, r := range runs {
					fmt.Fprintf(out, "would delete run %s (last active %s)\n", r.ID, r.Updated.Local().Format(time.DateTime))
				}
				if len(runs) == 0 {
					fmt.Fprintf(errw, "no runs older than %s\n", d)
				}
				return nil
			}
			n, err := h.Prune(ctx, d, app.DeleteOptions{
				Reason:  "agent runs prune --older-than " + d.String() + " by " + app.Whoami(),
				Deleted: func(r protocol.RunInfo, del protocol.Deleted) { printDeleted(out, r, del) },
				Skipped: func(r protocol.RunInfo) { fmt.Fprintf(errw, "skipped run %s: in use by a live agent process\n", r.ID) },
				Warn:    func(w string) { warn(errw, w) },
			})
			if n == 0 && err == nil {
				fmt.Fprintf(errw, "no runs older than %s\n", d)
			}
			return deleteErr(err)
		},
	}
	c.Flags().StringVar(&olderThan, "older-than", "", "delete runs whose last activity is older than this Go duration, e.g. 720h")
	c.Flags().BoolVar(&dryRun, "dry-run", false, "list the runs that would be deleted, delete nothing")
	return c
}

// pruneRetention is app.PruneRetention for agent run, which calls it before
// its "run: ID" line: it prints nothing.
func pruneRetention(ctx context.Context, home string, retention time.Duration) (int, error) {
	n, err := app.PruneRetention(ctx, home, retention)
	return n, deleteErr(err)
}

func printDeleted(w io.Writer, r protocol.RunInfo, d protocol.Deleted) {
	fmt.Fprintf(w, "deleted run %s: %d events, %d checkpoints\n", r.ID, d.Events, d.Checkpoints)
}

// deleteErr maps the errors of deleting runs to exit codes: a usage error
// (an unknown id, a run in use) is 2, anything else 1; a run that vanished
// while it was being deleted is a failure, not a usage error.
func deleteErr(err error) error {
	var ue *app.UsageError
	switch {
	case err == nil:
		return nil
	case errors.As(err, &ue):
		return withCode(ExitUsage, err)
	}
	return withCode(ExitFailed, err)
}
