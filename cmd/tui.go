package cmd

import (
	"fmt"
	"os"

	"github.com/charmbracelet/x/term"
	"github.com/spf13/cobra"

	"agent/internal/agent"
	"agent/internal/app"
	"agent/internal/tui"
)

// onTerminal: stdin and stdout are both terminals (the TUI can run).
func onTerminal() bool {
	return term.IsTerminal(os.Stdin.Fd()) && term.IsTerminal(os.Stdout.Fd())
}

// runTUI opens the interactive session; resumeID reopens that run. When it
// ends, the terminal is clean and the last line says how to continue.
func runTUI(cmd *cobra.Command, set *app.Settings, resumeID string, opt agent.ResumeOptions, message string) error {
	res := tui.Run(cmd.Context(), tui.Options{Settings: set, ResumeID: resumeID, Resume: opt, Message: message})
	if res.RunID != "" {
		fmt.Fprintf(cmd.OutOrStdout(), "run %s — continue it with: agent resume %s\n", res.RunID, res.RunID)
	}
	if res.Err != nil {
		return appErr(res.Err)
	}
	return nil
}
