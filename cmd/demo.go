package cmd

import (
	"fmt"
	"os"

	"github.com/spf13/cobra"

	"agent/internal/demo"
)

func newDemoCmd() *cobra.Command {
	var o demo.Options
	var plain bool
	c := &cobra.Command{
		Use:   "demo",
		Short: "A scripted offline session: approval with a diff, a crash and a resume, a rollback undone",
		Long: `Show what the agent's runtime does, offline, in about half a minute, with no model
and no API key: a local stand-in model plays canned answers through the real loop,
tools, journal and checkpoints, in a temporary repository that is removed at the end.

  1. an edit that needs your approval, with its diff, approved;
  2. a command, allowed by a rule, journaled before and after it runs;
  3. the demo's own child 'agent run' killed with SIGKILL mid-command, and the
     'agent resume' that does not run the command again;
  4. a rollback of the edit, and the undo of that rollback.

On a terminal the approval and the resume are shown in the TUI and the demo answers
the approval after a pause (--interactive: you answer it); otherwise, or with --plain,
each step is narrated as text. Nothing is written outside the temporary directory
(--keep keeps it and prints where it is) and no process is left behind.`,
		Example: `  agent demo
  agent demo --interactive     # answer the approval yourself
  agent demo --plain --keep    # text only; keep the repository and journal to look at`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			exe, err := os.Executable()
			if err != nil {
				return fmt.Errorf("agent demo runs this binary as its child, but cannot find it: %w", err)
			}
			o.Exe, o.Out, o.Form = exe, cmd.OutOrStdout(), demo.Plain
			if !plain && onTerminal() {
				o.Form, o.Out = demo.TUI, os.Stdout
			} else if o.Interactive {
				return usageErr("--interactive needs a terminal (stdin and stdout); drop it, or run agent demo on a terminal")
			}
			if err := demo.Run(cmd.Context(), o); err != nil {
				if cmd.Context().Err() != nil {
					return withCode(ExitInterrupted, err)
				}
				return withCode(ExitFailed, err)
			}
			return nil
		},
	}
	fl := c.Flags()
	fl.BoolVar(&o.Interactive, "interactive", false, "in the TUI, wait for your keys at the approval instead of answering it")
	fl.BoolVar(&o.Keep, "keep", false, "keep the temporary repository and journal, and print where they are")
	fl.BoolVar(&plain, "plain", false, "narrate in plain text even on a terminal")
	return c
}
