package cmd

import (
	"os"

	"github.com/spf13/cobra"

	"agent/internal/acp"
)

func newACPCmd() *cobra.Command {
	var f runFlags
	c := &cobra.Command{
		Use:   "acp",
		Short: "Speak the Agent Client Protocol on stdio, for editors (Zed, Neovim, JetBrains)",
		Long: `Run as an ACP agent: an editor starts 'agent acp' and speaks JSON-RPC 2.0 to it
on stdin/stdout, one message a line (stdout carries protocol messages only; logs go
to stderr). Each ACP session is a run in the session's workspace (its cwd), journaled
like any other: 'agent runs', 'agent trace' and 'agent resume' see it, and
session/load continues it in a later process.

Calls that need a person ask the editor (session/request_permission): allow once,
allow for this run (a scoped, expiring, revocable grant), reject, reject for this
run. session/cancel interrupts as Esc does in the TUI (the run stays resumable).
Session modes are the approval modes. Extension methods: _agent/checkpoints,
_agent/rollback (files, conversation or both; undoable), _agent/context.

The flags set what every session starts with; the editor's cwd is the workspace.`,
		Example: `  agent acp
  agent acp --approval auto-edit
  # Zed settings.json:
  #   "agent_servers": { "agent": { "command": "agent", "args": ["acp"] } }`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			v, _ := buildInfo()
			af := f.appFlags()
			af.Dir = "" // each session's cwd
			return acp.Serve(cmd.Context(), acp.Options{In: os.Stdin, Out: os.Stdout, Log: os.Stderr, Flags: af, Version: v})
		},
	}
	fl := c.Flags()
	fl.StringVar(&f.model, "model", "", "model name (env AGENT_MODEL)")
	fl.StringVar(&f.provider, "provider", "", "model API: openai or anthropic (env AGENT_PROVIDER)")
	fl.StringVar(&f.baseURL, "base-url", "", "the provider's endpoint (env OPENAI_BASE_URL, or ANTHROPIC_BASE_URL)")
	fl.StringVar(&f.approval, "approval", "", "approval mode sessions start in: read-only, plan, ask, auto-edit, full-auto (env AGENT_APPROVAL; default ask)")
	fl.StringArrayVar(&f.allow, "allow", nil, "allow rule, e.g. 'run_command(go test *)' (repeatable)")
	fl.StringArrayVar(&f.deny, "deny", nil, "deny rule, e.g. 'run_command(rm *)' (repeatable)")
	fl.IntVar(&f.maxSteps, "max-steps", 0, "stop a prompt with max_turn_requests after this many model requests (0: the default)")
	fl.StringVar(&f.replay, "replay", "", "replay model turns from a script file instead of calling a model (tests, demos)")
	fl.IntVar(&f.timeoutSec, "command-timeout", 120, "default run_command timeout in seconds")
	fl.StringVar(&f.sandbox, "sandbox", "", "OS sandbox of commands: workspace-write, read-only, off (env AGENT_SANDBOX)")
	return c
}
