package cmd

import (
	"agent/internal/termtext"
	"fmt"
	"text/tabwriter"

	"github.com/spf13/cobra"
)

func newAuditCmd() *cobra.Command {
	var asJSON bool
	var runID string
	c := &cobra.Command{
		Use:   "audit",
		Short: "Show the audit log: approval decisions, rollbacks, exports, deletions (newest last)",
		Long: `Show the audit log. Every approval decision (by a person, a rule or the mode) is
written in the same transaction as its approval event, before the call runs;
rollbacks, exports and deletions are recorded too. The log is append-only.`,
		Example: `  agent audit
  agent audit --run 20261129T203216-3f9a1c --json | jq -r '.[] | [.action, .call_id, .detail] | @tsv'`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx := cmd.Context()
			h, err := openHomeRead(cmd)
			if err != nil {
				return err
			}
			defer h.Close()
			rows, err := h.Audit(ctx, runID) // a deleted run keeps its rows: its exact id works

			if err != nil {
				return withCode(ExitFailed, err)
			}
			if asJSON {
				return writeJSON(cmd.OutOrStdout(), rows)
			}
			tw := tabwriter.NewWriter(cmd.OutOrStdout(), 2, 4, 2, ' ', 0)
			fmt.Fprintln(tw, "TIME\tRUN\tACTION\tCALL\tDETAIL")
			for _, r := range rows {
				fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", r.Time.Local().Format("2006-01-02 15:04:05"), dash(r.RunID), termtext.Field(string(r.Action)), dash(r.CallID), termtext.Field(r.Detail))
			}
			return tw.Flush()
		},
	}
	c.Flags().BoolVar(&asJSON, "json", false, "print one JSON array")
	c.Flags().StringVar(&runID, "run", "", "only this run's rows")
	return c
}
