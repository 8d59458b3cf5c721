package cmd

import (
	"errors"
	"fmt"

	"github.com/spf13/cobra"

	"agent/internal/event"
	"agent/internal/store"
)

func newTraceCmd() *cobra.Command {
	var asJSON bool
	c := &cobra.Command{
		Use:   "trace RUN_ID",
		Short: "Show a run's timeline and, for a failed run, its failure class",
		Example: `  agent trace 20261129T203216-3f9a1c
  agent trace 20261129T2032 --json | jq -c 'select(.type=="tool_result")'`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			st, err := openStore(cmd)
			if err != nil {
				return err
			}
			defer st.Close()
			run, err := st.GetRun(cmd.Context(), args[0])
			if err != nil {
				return notFound(err)
			}
			evs, err := st.Events(cmd.Context(), run.ID, 0)
			if err != nil {
				return withCode(ExitFailed, err)
			}
			w := cmd.OutOrStdout()
			if asJSON {
				if evs == nil {
					evs = []event.Event{}
				}
				return writeJSON(w, evs)
			}
			fmt.Fprintf(w, "run %s  %s  %s\nprompt: %s\n\n", run.ID, run.Status, run.Workspace, oneLine(run.Prompt, 200))
			for _, ev := range evs {
				if line := describe(ev); line != "" {
					fmt.Fprintf(w, "%4d %s  %s\n", ev.Seq, ev.Time.Local().Format("15:04:05.000"), line)
				}
			}
			if run.Status == event.StatusFailed && run.Failure != "" {
				fmt.Fprintf(w, "\nfailure class: %s\n", run.Failure)
			}
			return nil
		},
	}
	c.Flags().BoolVar(&asJSON, "json", false, "print the events as one JSON array")
	return c
}

func notFound(err error) error {
	if errors.Is(err, store.ErrNotFound) {
		return usageErr("%v", err)
	}
	return withCode(ExitFailed, err)
}
