package cmd

import (
	"fmt"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"agent/internal/event"
)

func newContextCmd() *cobra.Command {
	var asJSON bool
	var step int
	c := &cobra.Command{
		Use:   "context RUN_ID",
		Short: "Show the context report of one model request (default: the last): budget and layers",
		Long: `Show what one model request of a run was made of, layer by layer (system prompt with
AGENTS.md, tool schemas, conversation), with token counts and the budget, as
journaled in its model_request event. Token counts are estimates (about four
bytes a token) until the context builder counts with the model's tokenizer.`,
		Example: `  agent context 20261129T203216-3f9a1c
  agent context 20261129T2032 --step 3 --json`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx := cmd.Context()
			st, err := openStore(cmd)
			if err != nil {
				return err
			}
			defer st.Close()
			run, err := st.GetRun(ctx, args[0])
			if err != nil {
				return notFound(err)
			}
			evs, err := st.Events(ctx, run.ID, 0)
			if err != nil {
				return withCode(ExitFailed, err)
			}
			var found *event.ModelRequestData
			last := 0
			for _, ev := range evs {
				if d, ok := ev.Data.(*event.ModelRequestData); ok {
					last = d.Step
					if step == 0 || d.Step == step {
						found = d
					}
				}
			}
			if found == nil {
				if last == 0 {
					return usageErr("run %s made no model request yet", run.ID)
				}
				return usageErr("run %s has no step %d (steps 1..%d)", run.ID, step, last)
			}
			if asJSON {
				return writeJSON(cmd.OutOrStdout(), found)
			}
			w := cmd.OutOrStdout()
			fmt.Fprintf(w, "run %s, step %d: %d of %d tokens\n\n", run.ID, found.Step, found.Context.TotalTokens, found.Context.Budget)
			tw := tabwriter.NewWriter(w, 2, 4, 2, ' ', 0)
			fmt.Fprintln(tw, "LAYER\tTOKENS\tITEMS\tSHARE")
			for _, l := range found.Context.Layers {
				share := 0.0
				if found.Context.Budget > 0 {
					share = 100 * float64(l.Tokens) / float64(found.Context.Budget)
				}
				fmt.Fprintf(tw, "%s\t%d\t%d\t%.1f%%\n", l.Name, l.Tokens, l.Items, share)
			}
			return tw.Flush()
		},
	}
	c.Flags().BoolVar(&asJSON, "json", false, "print the report as JSON")
	c.Flags().IntVar(&step, "step", 0, "the step (model request) to show; default the last")
	return c
}
