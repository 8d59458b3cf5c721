package cmd

import (
	"fmt"
	"os"

	"github.com/spf13/cobra"

	"agent/internal/app"
	"agent/internal/termtext"
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
			res, err := app.Rollback(ctx, st, args[0], app.RollbackOptions{Files: true, Conversation: conversation})
			if err != nil {
				return appErr(err)
			}
			for _, ch := range res.Changes {
				fmt.Fprintf(os.Stderr, "  %s %s\n", ch.Action, termtext.Field(ch.Path))
			}
			fmt.Fprintf(os.Stderr, "rolled back %d files of run %s to checkpoint %s; undo with: agent rollback %s\n", len(res.Files), res.RunID, shortID(res.To), res.Before)
			fmt.Fprintln(cmd.OutOrStdout(), res.Before)
			return nil
		},
	}
	c.Flags().BoolVar(&conversation, "conversation", false, "also rewind the run's active conversation to the checkpoint")
	return c
}
