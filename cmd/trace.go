package cmd

import (
	"fmt"

	"github.com/spf13/cobra"

	"agent/internal/app"
	"agent/internal/budget"
	"agent/internal/diagnose"
	"agent/internal/event"
	"agent/internal/termtext"
)

func newTraceCmd() *cobra.Command {
	var asJSON bool
	c := &cobra.Command{
		Use:   "trace RUN_ID",
		Short: "Show a run's timeline and, for a failed or stopped run, its failure class",
		Long: `Show a run's timeline. A failed or stopped run ends with its diagnosis: the failure
class (model, tool, permission, context, runtime), the seq of the event that decided
it and one line of reason (docs/failure-modes.md, "Failure classes"). With --json the
events are one JSON array, and the last run_finished of such a run carries
"failure": {"class", "seq", "reason"}; a run journaled before the diagnosis existed
is diagnosed from its events on the fly.`,
		Example: `  agent trace 20261129T203216-3f9a1c
  agent trace 20261129T2032 --json | jq -c 'select(.type=="tool_result")'
  agent trace 20261129T2032 --json | jq '.[] | select(.type=="run_finished") | .failure'`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			h, err := openHomeRead(cmd)
			if err != nil {
				return err
			}
			defer h.Close()
			run, err := h.Run(cmd.Context(), args[0])
			if err != nil {
				return notFound(err)
			}
			evs, err := h.Events(cmd.Context(), run.ID)
			if err != nil {
				return withCode(ExitFailed, err)
			}
			failure := diagnoseOlder(evs)
			w := cmd.OutOrStdout()
			if asJSON {
				if evs == nil {
					evs = []event.Event{}
				}
				return writeJSON(w, evs)
			}
			fmt.Fprintf(w, "run %s  %s  %s\nprompt: %s\n", run.ID, run.Status, termtext.Line(run.Workspace), oneLine(run.Prompt, 200))
			var t budget.Tally
			for _, ev := range evs {
				t.Apply(ev)
			}
			fmt.Fprintln(w, spendLine(t, userPrices()))
			fmt.Fprintln(w)
			for _, ev := range evs {
				if line := describe(ev); line != "" {
					fmt.Fprintf(w, "%4d %s  %s\n", ev.Seq, ev.Time.Local().Format("15:04:05.000"), line)
				}
			}
			switch {
			case failure != nil:
				fmt.Fprintf(w, "\nfailure class: %s (decided at seq %d)\nreason: %s\n", failure.Class, failure.Seq, termtext.Line(failure.Reason))
			case run.Status == event.StatusFailed && run.Failure != "":
				fmt.Fprintf(w, "\nfailure class: %s\n", termtext.Line(run.Failure))
			}
			return nil
		},
	}
	c.Flags().BoolVar(&asJSON, "json", false, "print the events as one JSON array")
	return c
}

// diagnoseOlder returns the diagnosis of a run whose last stretch failed or
// stopped. A run journaled before run_finished carried one is diagnosed now
// from its events, and its last run_finished gets the diagnosis in memory
// (the journal is not rewritten), so --json shows it the same way.
func diagnoseOlder(evs []event.Event) *event.FailureInfo {
	f := diagnose.Diagnose(evs)
	if f == nil {
		return nil
	}
	for i := len(evs) - 1; i >= 0; i-- {
		if d, ok := evs[i].Data.(*event.RunFinishedData); ok {
			if d.Failure == nil {
				cp := *d
				cp.Failure = f
				evs[i].Data = &cp
			}
			break
		}
	}
	return f
}

func notFound(err error) error {
	if app.IsNotFound(err) {
		return usageErr("%v", err)
	}
	return withCode(ExitFailed, err)
}
