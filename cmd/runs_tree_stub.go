package cmd

// STUB for issue 23 (subagents): a flat `agent runs --tree --json`, to
// test before the fork helper's real one is merged. The LEAD DROPS THIS
// FILE (with internal/app/runs_tree_stub.go and the --tree lines in
// cmd/runs.go).

import (
	"github.com/spf13/cobra"

	"agent/internal/app"
)

type runTreeStubJSON struct {
	runJSON
	ParentRun        string   `json:"parent_run,omitempty"`
	ParentCall       string   `json:"parent_call,omitempty"`
	ParentCheckpoint string   `json:"parent_checkpoint,omitempty"`
	Children         []string `json:"children"`
}

func printRunsTreeStub(cmd *cobra.Command, h *app.Home, runs []runJSON) error {
	ids := make([]string, len(runs))
	for i, r := range runs {
		ids[i] = r.RunID
	}
	lin, err := h.LineageStub(cmd.Context(), ids)
	if err != nil {
		return withCode(ExitFailed, err)
	}
	kids := map[string][]string{}
	for _, r := range runs {
		if l, ok := lin[r.RunID]; ok {
			kids[l.ParentRun] = append(kids[l.ParentRun], r.RunID)
		}
	}
	out := make([]runTreeStubJSON, 0, len(runs))
	for _, r := range runs {
		l := lin[r.RunID]
		c := kids[r.RunID]
		if c == nil {
			c = []string{}
		}
		out = append(out, runTreeStubJSON{r, l.ParentRun, l.ParentCall, l.ParentCheckpoint, c})
	}
	return writeJSON(cmd.OutOrStdout(), out)
}
