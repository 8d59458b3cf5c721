// Package cmd owns the command line: cobra commands, flags, exit codes and the
// headless renderers of the event stream. It wires the internal packages
// together and must hold no logic of theirs.
package cmd

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/spf13/cobra"

	"agent/internal/termtext"
)

// Exit codes of the contract.
const (
	ExitOK          = 0
	ExitFailed      = 1
	ExitUsage       = 2
	ExitPaused      = 3
	ExitBudget      = 4
	ExitInterrupted = 130
)

// exitError carries an exit code out of a command.
type exitError struct {
	code int
	err  error
}

func (e *exitError) Error() string {
	if e.err == nil {
		return fmt.Sprintf("exit %d", e.code)
	}
	return e.err.Error()
}
func (e *exitError) Unwrap() error { return e.err }

// usageErr is a usage or configuration error (exit 2); msg should name the fix.
func usageErr(format string, a ...any) error {
	return &exitError{code: ExitUsage, err: fmt.Errorf(format, a...)}
}

func withCode(code int, err error) error { return &exitError{code: code, err: err} }

// warn prints a warning on w; its text (a path, a config value, a server's
// message) is made visible first.
func warn(w io.Writer, msg string) {
	fmt.Fprintln(w, "agent: warning:", termtext.Visible(msg))
}

// Execute runs the command line and returns the process exit code.
func Execute() int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	root := newRoot()
	err := root.ExecuteContext(ctx)
	if err == nil {
		return ExitOK
	}
	var ee *exitError
	if errors.As(err, &ee) {
		if ee.err != nil {
			fmt.Fprintln(os.Stderr, "agent:", termtext.Visible(ee.err.Error()))
		}
		return ee.code
	}
	// cobra's own errors: unknown flag, wrong argument count.
	fmt.Fprintln(os.Stderr, "agent:", termtext.Visible(err.Error()))
	fmt.Fprintln(os.Stderr, "run 'agent --help' for usage")
	return ExitUsage
}

func newRoot() *cobra.Command {
	var f runFlags
	root := &cobra.Command{
		Use:   "agent",
		Short: "A terminal coding agent you can stop, inspect, rewind and resume",
		Long: `agent reads your repository, calls a model through an OpenAI-compatible API,
edits files and runs commands with your approval. Every step is journaled in
SQLite under $AGENT_HOME, so runs can be traced, resumed and audited.

Run alone on a terminal, agent opens its interactive session: type a request,
watch the answer stream, approve edits and commands with their diffs, look at
the context and the checkpoints, roll back. Headless, 'agent run' does one
request; a call that needs your approval pauses it (exit 3) and
'agent resume RUN_ID --approve CALL_ID' continues it.`,
		Example: `  agent                                  # the interactive session in this repository
  agent run "add a --verbose flag to cmd/serve.go"
  OPENAI_BASE_URL=http://localhost:11434/v1 AGENT_MODEL=qwen2.5-coder agent run --approval full-auto "fix the failing test"
  agent runs
  agent trace 20261129T203216-3f9a1c`,
		SilenceUsage:  true,
		SilenceErrors: true,
		Args:          cobra.NoArgs,
		// Every command gets its collector setting (gc.go) before it runs;
		// no subcommand has a PersistentPreRun of its own.
		PersistentPreRun: func(c *cobra.Command, _ []string) { tuneGC(c, os.Getenv) },
		RunE: func(cmd *cobra.Command, _ []string) error {
			if !onTerminal() {
				return cmd.Help()
			}
			set, err := settingsFor(&f, nil)
			if err != nil {
				return err
			}
			return runTUI(cmd, set, "", "")
		},
	}
	loopGC(root) // the TUI
	f.register(root, true)
	root.Flags().MarkHidden("json")
	root.SetFlagErrorFunc(func(c *cobra.Command, err error) error {
		return usageErr("%v (see 'agent %s --help')", err, c.Name())
	})
	root.AddCommand(loopGC(newRunCmd()), loopGC(newResumeCmd()), newRunsCmd(), newTraceCmd(), newCheckpointsCmd(), newRollbackCmd(), newAuditCmd(), newContextCmd(), newRepomapCmd(), newVersionCmd(), newEvalCmd())
	root.AddCommand(newRedactCmd(), newExportCmd(), newSandboxExecCmd(), newSandboxSpawnerCmd(), newMCPCmd())
	root.AddCommand(newDemoCmd())
	root.AddCommand(newACPCmd())
	root.AddCommand(loopGC(newForkCmd()))
	return root
}
