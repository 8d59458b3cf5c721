package cmd

import (
	"fmt"
	"os"

	"github.com/charmbracelet/x/term"
	"github.com/spf13/cobra"

	"agent/internal/app"
	"agent/internal/tui"
)

// onTerminal: stdin and stdout are both terminals (the TUI can run).
func onTerminal() bool {
	return term.IsTerminal(os.Stdin.Fd()) && term.IsTerminal(os.Stdout.Fd())
}

// runTUI opens the interactive session; resumeID reopens that run. When it
// ends, the terminal is clean and the last line says how to continue.
func runTUI(cmd *cobra.Command, set *app.Settings, resumeID string, message string) error {
	return runTUIWith(cmd, set, tui.Options{ResumeID: resumeID, Message: message})
}

// runTUIWith is runTUI with the session's options whole (resume --compact).
func runTUIWith(cmd *cobra.Command, set *app.Settings, o tui.Options) error {
	o.Settings = set
	res := tui.Run(cmd.Context(), o)
	if res.RunID != "" {
		fmt.Fprintf(cmd.OutOrStdout(), "run %s — continue it with: agent resume %s\n", res.RunID, res.RunID)
	}
	if res.Err != nil {
		return appErr(res.Err)
	}
	return nil
}
