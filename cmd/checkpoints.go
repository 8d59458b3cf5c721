package cmd

import (
	"fmt"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"agent/internal/app"
	"agent/internal/termtext"
)

func newCheckpointsCmd() *cobra.Command {
	var asJSON, patch bool
	c := &cobra.Command{
		Use:   "checkpoints RUN_ID",
		Short: "List a run's checkpoints, oldest first: id, step, call, kind, files changed",
		Long: `List a run's checkpoints. Every call that can change files has a "before" and an
"after" checkpoint; a rollback first takes a "rollback" checkpoint of the present
state. Each is a commit in a shadow git repository under $AGENT_HOME/checkpoints
(inspect it with git --git-dir=...). --patch prints each call's change (before → after).`,
		Example: `  agent checkpoints 20261129T203216-3f9a1c
  agent checkpoints 20261129T2032 --patch
  agent checkpoints 20261129T2032 --json | jq -r '.[] | select(.kind=="before") | .checkpoint_id'`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx := cmd.Context()
			h, err := openHomeRead(cmd)
			if err != nil {
				return err
			}
			defer h.Close()
			run, err := h.Run(ctx, args[0])
			if err != nil {
				return notFound(err)
			}
			cps, err := h.Checkpoints(ctx, run.ID, app.CheckpointOptions{})
			if err != nil {
				return withCode(ExitFailed, err)
			}
			if asJSON {
				return writeJSON(cmd.OutOrStdout(), cps)
			}
			w := cmd.OutOrStdout()
			if patch {
				for _, c := range cps {
					if !c.Paired() {
						continue
					}
					p, err := h.Patch(ctx, run.Workspace, c.Before, c.ID)
					if err != nil {
						return withCode(ExitFailed, err)
					}
					// the patch is byte-exact in a file (git apply takes it), visible on a terminal
					fmt.Fprintf(w, "# call %s (step %d): %s..%s\n%s\n", termtext.Field(c.CallID), c.Step, shortID(c.Before), shortID(c.ID), termtext.ForTerminal(w, p))
				}
				return nil
			}
			tw := tabwriter.NewWriter(w, 2, 4, 2, ' ', 0)
			fmt.Fprintln(tw, "CHECKPOINT\tSTEP\tCALL\tKIND\tFILES\tCREATED")
			for _, c := range cps {
				fmt.Fprintf(tw, "%s\t%d\t%s\t%s\t%s\t%s\n", c.ID, c.Step, dash(c.CallID), termtext.Field(string(c.Kind)), oneLine(strings.Join(c.Files, " "), 60), c.Created.Local().Format("15:04:05"))
			}
			return tw.Flush()
		},
	}
	c.Flags().BoolVar(&asJSON, "json", false, "print one JSON array")
	c.Flags().BoolVar(&patch, "patch", false, "print each call's patch (before → after)")
	return c
}

// dash is s made visible on one line, or "-" when it is empty.
func dash(s string) string {
	if s == "" {
		return "-"
	}
	return termtext.Field(s)
}
