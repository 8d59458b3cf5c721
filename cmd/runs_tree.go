package cmd

import (
	"fmt"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"agent/internal/app"
	"agent/internal/event"
	"agent/internal/protocol"
	"agent/internal/termtext"
)

// runTreeJSON is one run of `agent runs --tree --json`: the runs object
// with its lineage. The array is flat, in tree order; children are ids.
type runTreeJSON struct {
	runJSON
	ParentRun        string   `json:"parent_run,omitempty"`
	ParentCheckpoint string   `json:"parent_checkpoint,omitempty"`
	ParentCall       string   `json:"parent_call,omitempty"`
	Worktree         string   `json:"worktree,omitempty"`
	Children         []string `json:"children"`
	Depth            int      `json:"depth"`
}

func printRunTree(cmd *cobra.Command, h *app.Home, asJSON bool) error {
	nodes, err := h.RunTree(cmd.Context())
	if err != nil {
		return withCode(ExitFailed, err)
	}
	for i := range nodes {
		if nodes[i].Status == event.StatusRunning && !app.RunIsLive(h.Dir(), nodes[i].ID) {
			nodes[i].Status = event.StatusInterrupted
		}
	}
	if asJSON {
		infos := make([]protocol.RunInfo, len(nodes))
		for i, n := range nodes {
			infos[i] = n.RunInfo
		}
		costs, err := runCosts(cmd, h, infos)
		if err != nil {
			return err
		}
		out := make([]runTreeJSON, 0, len(nodes))
		for i, n := range nodes {
			r := n.RunInfo
			out = append(out, runTreeJSON{
				runJSON:   runJSON{r.ID, string(r.Status), r.Workspace, r.Started, r.Steps, r.TokensIn + r.TokensOut, firstLine(r.Prompt), costs[i]},
				ParentRun: n.ParentRun, ParentCheckpoint: n.ParentCheckpoint, ParentCall: n.ParentCall,
				Worktree: n.Worktree, Children: n.Children, Depth: n.Depth,
			})
		}
		return writeJSON(cmd.OutOrStdout(), out)
	}
	tw := tabwriter.NewWriter(cmd.OutOrStdout(), 2, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "RUN\tSTATUS\tFROM\tSTARTED\tSTEPS\tTOKENS\tPROMPT")
	for _, n := range nodes {
		indent := ""
		if n.Depth > 0 {
			indent = strings.Repeat("  ", n.Depth-1) + "└ "
		}
		from := "-"
		switch {
		case n.ParentCall != "":
			from = "task " + n.ParentCall
		case n.ParentCheckpoint != "":
			from = "fork @" + shortID(n.ParentCheckpoint)
		}
		if n.Depth == 0 && n.ParentRun != "" {
			from += " of " + n.ParentRun + " (deleted)"
		}
		fmt.Fprintf(tw, "%s%s\t%s\t%s\t%s\t%d\t%d\t%s\n", indent, termtext.Field(n.ID), n.Status, termtext.Field(from),
			n.Started.Local().Format("2006-01-02 15:04"), n.Steps, n.TokensIn+n.TokensOut, oneLine(firstLine(n.Prompt), 50))
	}
	return tw.Flush()
}
