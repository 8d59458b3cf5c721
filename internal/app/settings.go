package app

import (
	"fmt"
	"os"
	"path/filepath"
	"time"

	"agent/internal/agent"
	"agent/internal/budget"
	"agent/internal/config"
	"agent/internal/event"
	"agent/internal/hooks"
	"agent/internal/pricing"
	"agent/internal/sandbox"
	"agent/internal/store"
)

// Flags are what a frontend was told on its command line; empty means
// "not given".
type Flags struct {
	Dir      string // -C: the workspace
	Model    string
	Provider string // --provider: openai or anthropic
	BaseURL  string
	Approval string
	Allow    []string
	Deny     []string
	// Replay plays model turns from a script file instead of calling a model.
	Replay string
	// MaxSteps bounds the model requests of each stretch of a run (0: default).
	MaxSteps int
	// CommandTimeoutSec is run_command's default timeout (0: 120).
	CommandTimeoutSec int
	// Sandbox is --sandbox: workspace-write, read-only or off.
	Sandbox string
	// PriorSandbox, when continuing a run, is the sandbox mode it started
	// with (Home.Peek); it stands in for file and default values.
	PriorSandbox string
	// Budget is --budget-tokens/--budget-usd/--budget-time (zero fields:
	// not given).
	Budget budget.Limits
}

// Settings is the effective configuration of one session.
type Settings struct {
	Workspace string
	Home      string
	Model     string
	Provider  event.Provider
	BaseURL   string
	APIKey    string
	Approval  event.ApprovalMode
	Allow     []string
	Deny      []string
	// Window is the context window the config sets (0: not set; the
	// builder asks the model table and the provider).
	Window int
	// ModelSummary lets compaction ask the model for a summary.
	ModelSummary bool

	RedactPII       bool
	InternalDomains []string
	Retention       time.Duration
	Sample          float64
	RunGrantTTL     time.Duration
	// OTelEndpoint is the OTLP/HTTP receiver of the runs' traces ("":
	// none); OTelContent adds prompt and output text (redacted).
	OTelEndpoint string
	OTelContent  bool

	Replay            string
	MaxSteps          int
	CommandTimeoutSec int

	// Sandbox is the OS sandbox of commands as configured; SandboxSource
	// says where its mode came from.
	Sandbox       config.Sandbox
	SandboxSource string
	// MCPServers are the configured MCP servers (started at the first
	// request of a run).
	MCPServers []config.MCPServer
	// Hooks are the user file's [[hooks]].
	Hooks []hooks.Hook

	// Prices is the price table: built in, with the user's
	// [models."NAME"] overrides.
	Prices *pricing.Table
	// Budget is a new run's budget: [budget] of the files, then the
	// flags. BudgetFlags are the flags alone: a continued run keeps its
	// own budget, with the limits they set replaced (raised or lowered).
	Budget      budget.Limits
	BudgetFlags budget.Limits
	// Subagents are the limits of task calls' children ([subagents]).
	Subagents config.Subagents
}

// Prior is what a continued run started with.
type Prior struct {
	Model    string
	Approval event.ApprovalMode
	Provider event.Provider // "" for a run from before providers were recorded
}

// priorOf is the prior of a run from its row and, when the caller has it,
// its folded journal (st nil: the provider follows from the model's name).
func priorOf(row store.Run, st *agent.State) *Prior {
	p := &Prior{Model: row.Model, Approval: row.Approval, Provider: event.Provider(config.ProviderOfModel(row.Model))}
	if st != nil && st.Provider != "" {
		if pp, err := config.ParseProvider(string(st.Provider)); err == nil {
			p.Provider = event.Provider(pp)
		}
	}
	return p
}

// LoadSettings resolves flag > environment > project file > user file >
// default (internal/config). prior, when continuing a run, supplies the
// run's own model, approval mode and provider in place of file and default
// values. The warnings are for the person (a project file that tried to
// loosen approval, say).
func LoadSettings(f Flags, prior *Prior) (*Settings, []string, error) {
	ws, err := ResolveWorkspace(f.Dir)
	if err != nil {
		return nil, nil, err
	}
	src := config.Sources{Flags: config.Flags{
		Model: f.Model, Provider: f.Provider, BaseURL: f.BaseURL, Approval: f.Approval, Allow: f.Allow, Deny: f.Deny, Sandbox: f.Sandbox,
	}}
	if prior != nil {
		src.PriorProvider = config.Provider(prior.Provider)
	}
	cfg, warnings, err := config.Load(ws, src)
	if err != nil {
		return nil, nil, &UsageError{Err: err}
	}
	s := &Settings{
		Workspace: ws, Home: cfg.Home, Model: cfg.Model, Provider: event.Provider(cfg.Provider), BaseURL: cfg.BaseURL, APIKey: cfg.APIKey,
		Approval: event.ApprovalMode(cfg.Approval.String()), Allow: cfg.Allow, Deny: cfg.Deny, Window: cfg.ContextWindow, ModelSummary: cfg.ModelSummary,
		RedactPII: cfg.RedactPII, InternalDomains: cfg.InternalDomains, Retention: cfg.Retention,
		Sample: cfg.Sample, RunGrantTTL: cfg.RunGrantTTL, OTelEndpoint: cfg.OTelEndpoint, OTelContent: cfg.OTelContent,
		Replay: f.Replay, MaxSteps: f.MaxSteps, CommandTimeoutSec: f.CommandTimeoutSec,
		Sandbox: cfg.Sandbox, SandboxSource: cfg.Origin["sandbox.mode"],
		MCPServers: cfg.MCPServers, Hooks: cfg.Hooks, Subagents: cfg.Subagents,
		Prices: cfg.Prices(), Budget: cfg.Budget.Over(f.Budget), BudgetFlags: f.Budget,
	}
	if cfg.Origin["context.window"] == config.FromDefault {
		s.Window = 0
	}
	if prior != nil {
		if o := cfg.Origin["model"]; o != config.FromFlag && o != config.FromEnv && prior.Model != "" {
			s.Model = prior.Model
		}
		if o := cfg.Origin["approval"]; o != config.FromFlag && o != config.FromEnv && prior.Approval != "" {
			s.Approval = prior.Approval
			if s.SandboxSource == config.FromDefault {
				s.Sandbox.Mode = sandbox.DefaultFor(s.Approval) // the default follows the run's approval mode
			}
		}
	}
	if w := s.Prices.Window(s.Model); w > 0 {
		s.Window = w // [models."NAME"] window is the model's own
	}
	if o := s.SandboxSource; prior != nil && f.PriorSandbox != "" && o != config.FromFlag && o != config.FromEnv {
		if m, err := sandbox.ParseMode(f.PriorSandbox); err == nil {
			s.Sandbox.Mode, s.SandboxSource = m, "the run"
		}
	}
	if f.Replay == "" {
		if err := cfg.CheckAPIKey(); err != nil {
			return nil, warnings, &UsageError{Err: err}
		}
	}
	return s, warnings, nil
}

// StateHome is $AGENT_HOME, else $XDG_STATE_HOME/agent, else
// ~/.local/state/agent.
func StateHome() (string, error) {
	if h := os.Getenv("AGENT_HOME"); h != "" {
		return h, nil
	}
	base := os.Getenv("XDG_STATE_HOME")
	if base == "" {
		h, err := os.UserHomeDir()
		if err != nil {
			return "", usage("cannot find the state directory: set AGENT_HOME")
		}
		base = filepath.Join(h, ".local", "state")
	}
	return filepath.Join(base, "agent"), nil
}

// ResolveWorkspace returns the absolute, symlink-resolved workspace: dir
// (-C), else the git top-level of the current directory, else the current
// directory.
func ResolveWorkspace(dir string) (string, error) {
	explicit := dir != ""
	if !explicit {
		wd, err := os.Getwd()
		if err != nil {
			return "", fmt.Errorf("current directory: %w", err)
		}
		dir = wd
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", usage("workspace %s: %v", dir, err)
	}
	abs, err = filepath.EvalSymlinks(abs)
	if err != nil {
		return "", usage("workspace %s does not exist (fix the -C path)", dir)
	}
	st, err := os.Stat(abs)
	if err != nil || !st.IsDir() {
		return "", usage("workspace %s is not a directory (fix the -C path)", dir)
	}
	if explicit {
		return abs, nil
	}
	for d := abs; ; {
		if _, err := os.Stat(filepath.Join(d, ".git")); err == nil {
			return d, nil
		}
		parent := filepath.Dir(d)
		if parent == d {
			return abs, nil
		}
		d = parent
	}
}
