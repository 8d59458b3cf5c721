package cmd

import (
	"fmt"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"agent/internal/app"
	"agent/internal/protocol"
	"agent/internal/termtext"
)

func newRollbackCmd() *cobra.Command {
	var conversation bool
	c := &cobra.Command{
		Use:   "rollback CHECKPOINT_ID",
		Short: "Restore the workspace files to a checkpoint (and, with --conversation, the conversation)",
		Long: `Restore the workspace files to a checkpoint: files that differ are rewritten, files
created after it are deleted, files deleted after it come back. What the checkpoint
held is decided by the ignore rules of its time: a file ignored only by a rule added
later is restored too. Files ignored at the checkpoint are never touched, nor is your
.git. A file no snapshot can hold (over the 10 MiB cap now, or at the checkpoint) is
left as it is and named with the reason, and the command exits 1.

First the present state is checkpointed; its id is printed on stdout, so the
rollback can itself be rolled back. A rollback event is appended to the run: when
the run continues, the model is told what was rolled back. --conversation also
rewinds the run's active conversation to the checkpoint (the trace keeps every event).`,
		Example: `  agent rollback 3f9a1c07
  agent rollback 3f9a1c07 --conversation && agent resume RUN_ID --message "try another way"`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx := cmd.Context()
			h, err := openHome(cmd)
			if err != nil {
				return err
			}
			defer h.Close()
			res, err := h.Rollback(ctx, args[0], app.RollbackOptions{Files: true, Conversation: conversation})
			if err != nil {
				return appErr(err)
			}
			for _, ch := range res.Changes {
				if ch.Action != protocol.FileKept {
					fmt.Fprintf(os.Stderr, "  %s %s\n", ch.Action, termtext.Field(ch.Path))
				}
			}
			for _, ch := range res.NotRestored {
				fmt.Fprintf(os.Stderr, "  not restored %s: %s\n", termtext.Field(ch.Path), termtext.Field(ch.Reason))
			}
			fmt.Fprintf(os.Stderr, "rolled back %d files of run %s to checkpoint %s; undo with: agent rollback %s\n", len(res.Files), res.RunID, shortID(res.To), res.Before)
			fmt.Fprintln(cmd.OutOrStdout(), res.Before)
			if res.Incomplete() {
				paths := make([]string, len(res.NotRestored))
				for i, ch := range res.NotRestored {
					paths[i] = ch.Path
				}
				return withCode(ExitFailed, fmt.Errorf("rollback incomplete: %d paths not restored (%s); move them out of the way and roll back again to restore them", len(paths), strings.Join(paths, ", ")))
			}
			return nil
		},
	}
	c.Flags().BoolVar(&conversation, "conversation", false, "also rewind the run's active conversation to the checkpoint")
	return c
}
