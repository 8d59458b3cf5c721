package cmd

import (
	"os"

	"agent/internal/store"
	"path/filepath"
)

// settings is the effective configuration of one command.
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
}

// loadSettings resolves flags over environment over defaults. prior, when
// resuming, supplies the run's own model and approval mode as defaults.
func loadSettings(f *runFlags, prior *store.Run) (*settings, error) {
	ws, err := resolveWorkspace(f.dir)
	if err != nil {
		return nil, err
	}
	s := &settings{Workspace: ws, Model: "gpt-4.1", BaseURL: "https://api.openai.com/v1", Approval: "ask"}
	if prior != nil {
		s.Model, s.Approval = prior.Model, prior.Approval
	}
	pick := func(dst *string, flag, env string) {
		if v := os.Getenv(env); v != "" {
			*dst = v
		}
		if flag != "" {
			*dst = flag
		}
	}
	pick(&s.Model, f.model, "AGENT_MODEL")
	pick(&s.BaseURL, f.baseURL, "OPENAI_BASE_URL")
	pick(&s.Approval, f.approval, "AGENT_APPROVAL")
	s.APIKey = os.Getenv("OPENAI_API_KEY")
	s.Home = os.Getenv("AGENT_HOME")
	if s.Home == "" {
		base := os.Getenv("XDG_STATE_HOME")
		if base == "" {
			h, _ := os.UserHomeDir()
			base = filepath.Join(h, ".local", "state")
		}
		s.Home = filepath.Join(base, "agent")
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
