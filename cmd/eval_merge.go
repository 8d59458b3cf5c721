package cmd

import (
	"fmt"

	"github.com/spf13/cobra"

	"agent/internal/evals"
	"agent/internal/termtext"
)

// newEvalMergeCmd is `agent eval merge`; the constructor of `agent eval`
// adds it (c.AddCommand(newEvalMergeCmd())).
func newEvalMergeCmd() *cobra.Command {
	var asJSON, asText bool
	c := &cobra.Command{
		Use:   "merge REPORT.json...",
		Short: "Combine the --json reports of agent eval --shard I/N runs into one report",
		Long: `Combine the --json reports of the shards of one suite (agent eval --shard I/N --json,
each run in its own process or CI job) into the report the unsharded run prints: every
task in name order and the summary over them. The order of the files does not matter.

It refuses, with exit 2, a shard given twice, shards of different suites or counts, a
task in two shards, and a missing shard (the message names it).

The report goes to stdout as the JSON of agent eval --json ({tasks, summary}); --text
prints agent eval's table instead.`,
		Example: `  agent eval evals --shard 1/3 --json > s1.json   # one per CI job
  agent eval merge s1.json s2.json s3.json > report.json
  agent eval merge --text s*.json`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			var parts []evals.ShardReport
			for _, f := range args {
				p, err := evals.LoadShardReport(f)
				if err != nil {
					return usageErr("%v", err)
				}
				parts = append(parts, p)
			}
			rep, err := evals.Merge(parts)
			if err != nil {
				return usageErr("eval merge: %v", err)
			}
			out := cmd.OutOrStdout()
			if asJSON && asText {
				return usageErr("--json and --text: give one")
			}
			if !asText {
				return rep.WriteJSON(out)
			}
			tw, done := termtext.WriterFor(out)
			defer done()
			if err := rep.WriteText(tw, nil); err != nil {
				return fmt.Errorf("write the report: %w", err)
			}
			return nil
		},
	}
	c.Flags().BoolVar(&asJSON, "json", false, "print the merged report as one JSON object {tasks, summary}, as agent eval --json (the default)")
	c.Flags().BoolVar(&asText, "text", false, "print the merged report as agent eval's table")
	return c
}
