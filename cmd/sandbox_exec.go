package cmd

import (
	"github.com/spf13/cobra"

	"agent/internal/sandbox"
)

// newSandboxExecCmd is the hidden helper the agent re-executes itself as for
// every sandboxed command: it applies the sandbox's rules to itself, then
// execs the command (internal/sandbox.Exec). People do not run it.
func newSandboxExecCmd() *cobra.Command {
	return &cobra.Command{
		Use:                "sandbox-exec RULES -- PROGRAM [ARGS...]",
		Short:              "internal: run a command under the OS sandbox",
		Hidden:             true,
		DisableFlagParsing: true,
		SilenceUsage:       true,
		RunE: func(cmd *cobra.Command, args []string) error {
			err := sandbox.Exec(args, cmd.ErrOrStderr())
			return withCode(sandbox.HelperExit, err)
		},
	}
}

// newSandboxSpawnerCmd is the hidden per-run spawner: the agent starts it
// once per run, with its socket as fd 3; it confines itself and forks each
// sandboxed command from inside (internal/sandbox.Serve).
func newSandboxSpawnerCmd() *cobra.Command {
	return &cobra.Command{
		Use:                "sandbox-spawner RULES",
		Short:              "internal: start the sandboxed commands of a run",
		Hidden:             true,
		DisableFlagParsing: true,
		SilenceUsage:       true,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := sandbox.Serve(args); err != nil {
				return withCode(sandbox.HelperExit, err)
			}
			return nil
		},
	}
}
