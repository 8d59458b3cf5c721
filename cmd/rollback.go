package cmd

import (
	"fmt"
	"os"

	"github.com/spf13/cobra"

	"agent/internal/checkpoint"
	"agent/internal/event"
)

func newRollbackCmd() *cobra.Command {
	var conversation bool
	c := &cobra.Command{
		Use:   "rollback CHECKPOINT_ID",
		Short: "Restore the workspace files to a checkpoint (and, with --conversation, the conversation)",
		Long: `Restore the workspace files to a checkpoint: files that differ are rewritten, files
created after it are deleted, files deleted after it come back. Ignored files and
files left out of snapshots (over 10 MiB) are never touched, nor is your .git.

First the present state is checkpointed; its id is printed on stdout, so the
rollback can itself be rolled back. A rollback event is appended to the run: when
the run continues, the model is told what was rolled back. --conversation also
rewinds the run's active conversation to the checkpoint (the trace keeps every event).`,
		Example: `  agent rollback 3f9a1c07
  agent rollback 3f9a1c07 --conversation && agent resume RUN_ID --message "try another way"`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx := cmd.Context()
			st, err := openStore(cmd)
			if err != nil {
				return err
			}
			defer st.Close()
			cp, err := st.GetCheckpoint(ctx, args[0])
			if err != nil {
				return notFound(err)
			}
			run, err := st.GetRun(ctx, cp.RunID)
			if err != nil {
				return notFound(err)
			}
			lock, err := lockRunOrExplain(st.Home(), run.ID)
			if err != nil {
				return err
			}
			defer lock.Unlock()
			repo, err := checkpoint.Open(st.Home(), cp.Workspace)
			if err != nil {
				return withCode(ExitFailed, err)
			}
			defer repo.Close()
			pre, changes, err := repo.Rollback(ctx, cp.ID, checkpoint.Meta{RunID: run.ID, Kind: checkpoint.KindRollback, Step: run.Steps, Event: run.LastSeq})
			if err != nil {
				return withCode(ExitFailed, fmt.Errorf("rollback to %s: %w", cp.ID, err))
			}
			files := []string{}
			for _, ch := range changes {
				if ch.Action != checkpoint.ActionKept {
					files = append(files, ch.Path)
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
			if err := st.Append(ctx, &event.Event{Type: event.Checkpoint, RunID: run.ID, Data: &event.CheckpointData{
				CheckpointID: pre.ID, Kind: "rollback", Step: run.Steps, Files: preFiles}}); err != nil {
				return withCode(ExitFailed, err)
			}
			if err := st.Append(ctx, &event.Event{Type: event.Rollback, RunID: run.ID, Data: &event.RollbackData{
				CheckpointID: cp.ID, Files: files, Conversation: conversation, Before: pre.ID, ToSeq: cp.Seq}}); err != nil {
				return withCode(ExitFailed, err)
			}
			for _, ch := range changes {
				fmt.Fprintf(os.Stderr, "  %s %s\n", ch.Action, ch.Path)
			}
			fmt.Fprintf(os.Stderr, "rolled back %d files of run %s to checkpoint %s; undo with: agent rollback %s\n", len(files), run.ID, shortID(cp.ID), pre.ID)
			fmt.Fprintln(cmd.OutOrStdout(), pre.ID)
			return nil
		},
	}
	c.Flags().BoolVar(&conversation, "conversation", false, "also rewind the run's active conversation to the checkpoint")
	return c
}
