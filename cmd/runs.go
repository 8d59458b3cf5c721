package cmd

import (
	"encoding/json"
	"fmt"
	"io"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"agent/internal/app"
	"agent/internal/event"
	"agent/internal/termtext"
)

// runJSON is the contract's shape of one run in `agent runs --json`.
type runJSON struct {
	RunID     string    `json:"run_id"`
	Status    string    `json:"status"`
	Workspace string    `json:"workspace"`
	Started   time.Time `json:"started"`
	Steps     int       `json:"steps"`
	Tokens    int       `json:"tokens"`
	Prompt    string    `json:"prompt"`
}

func newRunsCmd() *cobra.Command {
	var asJSON bool
	var tree bool // STUB (issue 23): the fork helper's --tree replaces it
	c := &cobra.Command{
		Use:   "runs",
		Short: "List runs: id, status, workspace, started, steps, tokens, prompt",
		Example: `  agent runs
  agent runs --json | jq -r '.[] | select(.status=="failed") | .run_id'`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			h, err := openHomeRead(cmd)
			if err != nil {
				return err
			}
			defer h.Close()
			runs, err := h.Runs(cmd.Context())
			if err != nil {
				return withCode(ExitFailed, err)
			}
			for i := range runs {
				// A run marked running whose process is gone was cut short:
				// show it as interrupted (resumable), as a signal would leave it.
				if runs[i].Status == event.StatusRunning && !app.RunIsLive(h.Dir(), runs[i].ID) {
					runs[i].Status = event.StatusInterrupted
				}
			}
			if asJSON {
				out := make([]runJSON, 0, len(runs))
				for _, r := range runs {
					out = append(out, runJSON{r.ID, string(r.Status), r.Workspace, r.Started, r.Steps, r.TokensIn + r.TokensOut, firstLine(r.Prompt)})
				}
				if tree { // STUB (issue 23)
					return printRunsTreeStub(cmd, h, out)
				}
				return writeJSON(cmd.OutOrStdout(), out)
			}
			tw := tabwriter.NewWriter(cmd.OutOrStdout(), 2, 4, 2, ' ', 0)
			fmt.Fprintln(tw, "RUN\tSTATUS\tWORKSPACE\tSTARTED\tSTEPS\tTOKENS\tPROMPT")
			for _, r := range runs {
				fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%d\t%d\t%s\n", termtext.Field(r.ID), r.Status, termtext.Field(r.Workspace),
					r.Started.Local().Format("2006-01-02 15:04"), r.Steps, r.TokensIn+r.TokensOut, oneLine(firstLine(r.Prompt), 60))
			}
			return tw.Flush()
		},
	}
	c.Flags().BoolVar(&asJSON, "json", false, "print one JSON array")
	c.Flags().BoolVar(&tree, "tree", false, "with --json: each run's parent_run, parent_call and children (STUB, issue 23)")
	c.AddCommand(newRunsRmCmd(), newRunsPruneCmd())
	return c
}

func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

func firstLine(s string) string {
	for i, r := range s {
		if r == '\n' {
			return s[:i]
		}
	}
	return s
}

// openHome opens the state directory's read and maintenance side, for a
// command that may write it.
func openHome(cmd *cobra.Command) (*app.Home, error) {
	h, err := app.OpenHome(cmd.Context(), "")
	if err != nil {
		return nil, appErr(err)
	}
	return h, nil
}

// openHomeRead opens the state directory for a command that only reads it.
func openHomeRead(cmd *cobra.Command) (*app.Home, error) {
	h, err := app.OpenHomeRead(cmd.Context(), "")
	if err != nil {
		return nil, appErr(err)
	}
	return h, nil
}
