package cmd

import (
	"strings"

	"github.com/spf13/cobra"

	"agent/internal/app"
	"agent/internal/event"
	"agent/internal/protocol"
)

// runFlags are the flags of commands that drive the loop (run, resume).
type runFlags struct {
	dir        string
	model      string
	provider   string
	baseURL    string
	approval   string
	allow      []string
	deny       []string
	maxSteps   int
	json       bool
	replay     string
	verbose    bool
	timeoutSec int
	sandbox    string
	// priorSandbox is the resumed run's own sandbox mode (not a flag).
	priorSandbox string
	budget       budgetFlags
}

// appFlags is what the app needs of the flags.
func (f *runFlags) appFlags() app.Flags {
	return app.Flags{Dir: f.dir, Model: f.model, Provider: f.provider, BaseURL: f.baseURL, Approval: f.approval, Allow: f.allow, Deny: f.deny,
		Replay: f.replay, MaxSteps: f.maxSteps, CommandTimeoutSec: f.timeoutSec, Sandbox: f.sandbox, PriorSandbox: f.priorSandbox}
}

// register adds the flags; rules adds --allow/--deny (resume uses --deny for a call id).
func (f *runFlags) register(c *cobra.Command, rules bool) {
	fl := c.Flags()
	fl.StringVarP(&f.dir, "dir", "C", "", "workspace directory (default: the git top-level of the current directory)")
	fl.StringVar(&f.model, "model", "", "model name (env AGENT_MODEL)")
	fl.StringVar(&f.provider, "provider", "", "model API: openai or anthropic (env AGENT_PROVIDER; default openai, or anthropic for a claude-* model)")
	fl.StringVar(&f.baseURL, "base-url", "", "the provider's endpoint (env OPENAI_BASE_URL, or ANTHROPIC_BASE_URL for --provider anthropic)")
	fl.StringVar(&f.approval, "approval", "", "approval mode: read-only, plan, ask, auto-edit, full-auto (env AGENT_APPROVAL; default ask)")
	if rules {
		fl.StringArrayVar(&f.allow, "allow", nil, "allow rule, e.g. 'run_command(go test *)' (repeatable)")
		fl.StringArrayVar(&f.deny, "deny", nil, "deny rule, e.g. 'run_command(rm *)' (repeatable)")
	}
	fl.IntVar(&f.maxSteps, "max-steps", app.DefaultMaxSteps, "stop with an error after this many model requests")
	fl.BoolVar(&f.json, "json", false, "print the event stream as JSON lines on stdout")
	fl.StringVar(&f.replay, "replay", "", "replay model turns from a script file instead of calling a model (tests, demos, evals)")
	fl.BoolVarP(&f.verbose, "verbose", "v", false, "stream the model's text to stderr as it arrives")
	fl.IntVar(&f.timeoutSec, "command-timeout", 120, "default run_command timeout in seconds")
	fl.StringVar(&f.sandbox, "sandbox", "", "OS sandbox of commands: workspace-write, read-only, off (env AGENT_SANDBOX; default workspace-write, read-only under --approval read-only)")
	f.budget.register(c)
}

func newRunCmd() *cobra.Command {
	var f runFlags
	c := &cobra.Command{
		Use:   "run [flags] PROMPT",
		Short: "Run one request headlessly: progress on stderr, the final answer on stdout",
		Long: `Run one request headlessly. The first line on stderr is "run: RUN_ID"; progress
follows on stderr and the final answer is printed on stdout. With --json the event
stream is printed on stdout instead, one JSON object a line.

Exit codes: 0 done, 1 the run failed, 2 usage or configuration error,
3 paused awaiting approval (resume it), 4 the run reached its budget (resume
it with a raised --budget-*), 130 interrupted (resume it).`,
		Example: `  agent run "add a --verbose flag to cmd/serve.go"
  agent run -C ~/src/app --approval full-auto "make the tests pass"
  OPENAI_BASE_URL=http://127.0.0.1:8080/v1 agent run --model local "explain main.go"
  agent run --json "list the TODOs" | jq -c 'select(.type=="tool_call")'`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 || strings.TrimSpace(strings.Join(args, " ")) == "" {
				return usageErr("agent run needs a prompt, e.g. agent run \"fix the failing test\"")
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			prompt := strings.Join(args, " ")
			return runPrompt(cmd, &f, prompt)
		},
	}
	f.register(c, true)
	return c
}

func runPrompt(cmd *cobra.Command, f *runFlags, prompt string) error {
	ctx := cmd.Context()
	set, err := settingsFor(f, nil)
	if err != nil {
		return err
	}
	if _, err := pruneRetention(ctx, set.Home, set.Retention); err != nil {
		return err
	}
	s, err := openSession(ctx, set, f, cmd)
	if err != nil {
		return err
	}
	defer s.close()
	run, err := s.svc.NewRun(ctx, prompt, s.started)
	if err != nil {
		return appErr(err)
	}
	defer run.Close()
	return s.finish(cmd, run.Drive(ctx))
}

// exitFor maps how a run ended to the contract's exit code.
func exitFor(out protocol.Outcome) int {
	switch out.Status {
	case event.StatusCompleted, event.StatusStopped:
		return ExitOK
	case event.StatusAwaitingApproval:
		return ExitPaused
	case event.StatusInterrupted:
		return ExitInterrupted
	case event.StatusBudgetExhausted:
		return ExitBudget
	}
	return ExitFailed
}
