package cmd

import (
	"fmt"
	"os"
	"path/filepath"
	"time"

	"agent/internal/config"
	"agent/internal/store"
)

// settings is the effective configuration of one command that drives a run.
type settings struct {
	Workspace string
	Home      string
	Model     string
	BaseURL   string
	APIKey    string
	Approval  string
	Allow     []string
	Deny      []string
	Window    int

	RedactPII       bool
	InternalDomains []string
	Retention       time.Duration
	Sample          float64
	RunGrantTTL     time.Duration
}

// loadSettings resolves flag > environment > project file > user file >
// default (internal/config). prior, when resuming, supplies the run's own
// model and approval mode in place of file and default values.
func loadSettings(f *runFlags, prior *store.Run) (*settings, error) {
	ws, err := resolveWorkspace(f.dir)
	if err != nil {
		return nil, err
	}
	cfg, warnings, err := config.Load(ws, config.Sources{Flags: config.Flags{
		Model: f.model, BaseURL: f.baseURL, Approval: f.approval, Allow: f.allow, Deny: f.deny,
	}})
	if err != nil {
		return nil, usageErr("%v", err)
	}
	for _, w := range warnings {
		fmt.Fprintln(os.Stderr, "agent: warning:", w)
	}
	s := &settings{
		Workspace: ws, Home: cfg.Home, Model: cfg.Model, BaseURL: cfg.BaseURL, APIKey: cfg.APIKey,
		Approval: cfg.Approval.String(), Allow: cfg.Allow, Deny: cfg.Deny, Window: cfg.ContextWindow,
		RedactPII: cfg.RedactPII, InternalDomains: cfg.InternalDomains, Retention: cfg.Retention,
		Sample: cfg.Sample, RunGrantTTL: cfg.RunGrantTTL,
	}
	if prior != nil {
		if o := cfg.Origin["model"]; o != config.FromFlag && o != config.FromEnv && prior.Model != "" {
			s.Model = prior.Model
		}
		if o := cfg.Origin["approval"]; o != config.FromFlag && o != config.FromEnv && prior.Approval != "" {
			s.Approval = prior.Approval
		}
	}
	if f.replay == "" {
		if err := cfg.CheckAPIKey(); err != nil {
			return nil, usageErr("%v", err)
		}
	}
	return s, nil
}

// stateHome is $AGENT_HOME, else $XDG_STATE_HOME/agent, else ~/.local/state/agent.
func stateHome() (string, error) {
	if h := os.Getenv("AGENT_HOME"); h != "" {
		return h, nil
	}
	base := os.Getenv("XDG_STATE_HOME")
	if base == "" {
		h, err := os.UserHomeDir()
		if err != nil {
			return "", usageErr("cannot find the state directory: set AGENT_HOME")
		}
		base = filepath.Join(h, ".local", "state")
	}
	return filepath.Join(base, "agent"), nil
}
