package app

import (
	"context"
	"os"
	"strings"

	"agent/internal/event"
	"agent/internal/store"

	"agent/internal/redact"
	"agent/internal/sandbox"
)

// commandSandbox makes the session's command sandbox from the settings
// (warnings, such as "not sandboxed here", go to warn) and the environment
// commands get: the agent's own, without the model API keys and the
// variables whose names or values look like credentials, except those the
// user's [sandbox] env_allow names.
func commandSandbox(set *Settings, warn func(string)) (*sandbox.Sandbox, []string) {
	sb, warns := sandbox.New(sandbox.Options{
		Mode: set.Sandbox.Mode, Source: set.SandboxSource, Workspace: set.Workspace,
		Writable: set.Sandbox.Writable, Network: set.Sandbox.Network, StateDir: set.Home,
		Keep: hookFiles(set.Hooks, set.Workspace, false),
	})
	for _, w := range warns {
		warn(w)
	}
	return sb, commandEnv(set.Sandbox.EnvAllow)
}

// commandEnv is the environment commands and MCP servers get: the agent's
// own without the model API keys and the variables whose names or values
// look like credentials, except those envAllow names.
func commandEnv(envAllow []string) []string {
	det := redact.New(redact.Config{}) // the detectors alone: no known values, no PII
	env, _ := sandbox.ScrubEnv(os.Environ(), envAllow, func(name, value string) bool {
		if redact.SecretEnv(name, value) {
			return true
		}
		for _, f := range det.Find([]byte(value)) {
			if !f.Example {
				return true
			}
		}
		return false
	})
	// Where the agent keeps its state is none of a command's business.
	kept := env[:0]
	for _, kv := range env {
		if !strings.HasPrefix(kv, "AGENT_HOME=") {
			kept = append(kept, kv)
		}
	}
	return kept
}

// runSandbox is the sandbox mode a run started with (the one it asked for,
// where the kernel could not enforce it), "" when its journal does not say:
// a resume keeps it unless a flag or the environment sets another.
func runSandbox(ctx context.Context, st *store.Store, runID string) string {
	ev, ok, err := st.FirstEvent(ctx, runID, event.RunStarted)
	if err != nil || !ok {
		return ""
	}
	return sandboxOf([]event.Event{ev})
}

// sandboxOf is runSandbox over a journal already read.
func sandboxOf(evs []event.Event) string {
	for _, ev := range evs {
		if d, ok := ev.Data.(*event.RunStartedData); ok && d.Sandbox != nil {
			if d.Sandbox.Requested != "" {
				return string(d.Sandbox.Requested)
			}
			return string(d.Sandbox.Mode)
		}
	}
	return ""
}
