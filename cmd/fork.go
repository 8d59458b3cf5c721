package cmd

import (
	"fmt"
	"os"

	"github.com/spf13/cobra"

	"agent/internal/app"
	"agent/internal/termtext"
)

func newForkCmd() *cobra.Command {
	var f runFlags
	var message string
	var here bool
	c := &cobra.Command{
		Use:   "fork CHECKPOINT_ID [--message TEXT] [--here]",
		Short: "Start a new run from the conversation and the files of a checkpoint",
		Long: `Fork a run at one of its checkpoints: a new run whose conversation is the run's
at that checkpoint and whose files are the workspace's at that instant. A call that
was pending at the checkpoint has not run in the fork. Both runs stay resumable,
and deleting the original never takes anything the fork needs.

By default the fork gets its own git worktree of the workspace, under
AGENT_HOME/worktrees/RUN_ID on the new branch agent/fork-RUN_ID, whose one commit
holds the checkpoint's files: the original workspace is not touched, and git diff
in the worktree shows what the fork changed. agent runs rm of the fork removes the
worktree (and the branch, if nothing was committed on it) unless it has
uncommitted changes. The workspace must be the top of a git repository.

--here forks into the same workspace instead: its present state is checkpointed
first (the id is printed), so agent rollback of that checkpoint undoes the fork.

--message runs TEXT as the fork's next user message, headless, as agent run
does (same flags, AGENT_APPROVAL, exit codes). Without it the fork is only made;
continue it with agent resume RUN_ID --message TEXT (or --headless).
The first line on stderr is "run: RUN_ID", then "worktree: PATH".`,
		Example: `  agent checkpoints 20261129T2032          # find the checkpoint
  agent fork 3f9a1c07 --message "try it with a map instead"
  agent fork 3f9a1c07 --here && agent resume RUN_ID --message "go on differently"`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if f.dir != "" {
				return usageErr("agent fork runs in the fork's own worktree (or, with --here, the checkpoint's workspace): drop -C")
			}
			ctx := cmd.Context()
			h, err := openHome(cmd)
			if err != nil {
				return err
			}
			fk, err := h.PrepareFork(ctx, args[0], app.ForkOptions{Here: here, Message: message})
			h.Close()
			if err != nil {
				return appErr(err)
			}
			started := false
			defer func() {
				if !started {
					fk.Discard()
				}
			}()
			f.dir = fk.Workspace
			set, err := settingsFor(&f, fk.Prior)
			if err != nil {
				return err
			}
			s, err := openSession(ctx, set, &f, cmd)
			if err != nil {
				return err
			}
			defer s.close()
			named := func(id string) {
				s.started(id) // "run: ID" first
				if !fk.Here {
					fmt.Fprintf(os.Stderr, "worktree: %s (branch %s)\n", termtext.Field(fk.Workspace), fk.Branch())
				}
			}
			run, err := s.svc.StartFork(ctx, fk, named)
			if err != nil {
				return appErr(err)
			}
			started = true
			defer run.Close()
			if fk.Here {
				fmt.Fprintf(os.Stderr, "forked run %s at checkpoint %s in %s; undo with: agent rollback %s\n", fk.ParentRun, shortID(fk.Checkpoint), termtext.Field(fk.Workspace), fk.Before)
			}
			if message == "" {
				fmt.Fprintf(os.Stderr, "continue it with: agent resume %s --message TEXT\n", run.ID())
				return nil
			}
			if err := run.Message(ctx, message); err != nil {
				return appErr(err)
			}
			return s.finish(cmd, run.Drive(ctx))
		},
	}
	f.register(c, true)
	c.Flags().StringVar(&message, "message", "", "the fork's next user message: run it now, headless")
	c.Flags().BoolVar(&here, "here", false, "fork into the same workspace (its present state is checkpointed first) instead of a new git worktree")
	return c
}
