package app

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"sync"

	"agent/internal/agent"
	"agent/internal/config"
	"agent/internal/contextbuild"
	"agent/internal/mcp"
	"agent/internal/redact"
	"agent/internal/sandbox"
	"agent/internal/tools"
)

// toolbox is a session's tools: the built-in ones from the start, the MCP
// servers' once they are first needed (ensure: the first request of a run,
// or the resume of one), and the context builder, whose tool specs must
// include them. It is the loop's ContextSource.
type toolbox struct {
	reg        *tools.Registry
	mcp        *mcp.Manager // nil: no server configured
	newBuilder func([]agent.ToolSpec) (*contextbuild.Builder, error)

	once sync.Once
	cb   *contextbuild.Builder
	err  error
}

// ensure starts the MCP servers, adds their tools to the registry and
// builds the context builder with every tool's spec; once per session.
// A server that fails is a warning (the Manager's), not an error.
func (t *toolbox) ensure(ctx context.Context) error {
	t.once.Do(func() {
		if t.mcp != nil {
			mt := t.mcp.Tools(ctx)
			if err := t.reg.Add(mt...); err != nil {
				t.err = fmt.Errorf("MCP tools: %w", err)
				return
			}
		}
		specs, err := contextbuild.Specs(t.reg)
		if err != nil {
			t.err = err
			return
		}
		t.cb, t.err = t.newBuilder(specs)
	})
	return t.err
}

// Build implements agent.ContextSource.
func (t *toolbox) Build(ctx context.Context, st *agent.State, opt agent.BuildOptions) (*agent.Built, error) {
	if err := t.ensure(ctx); err != nil {
		return nil, err
	}
	return t.cb.Build(ctx, st, opt)
}

func (t *toolbox) close() {
	if t.mcp != nil {
		t.mcp.Close()
	}
}

// newMCP returns the manager of the settings' servers, nil when none is
// configured. Stdio servers start in their own directories under the state
// directory with cmdEnv, the environment commands get (scrubbed of
// credentials). What the servers say (descriptions, schemas) is redacted
// before the model sees it.
func newMCP(set *Settings, red *redact.Redactor, cmdEnv []string, sb *sandbox.Sandbox, warn func(string)) *mcp.Manager {
	if len(set.MCPServers) == 0 {
		return nil
	}
	return mcp.New(mcp.Options{Servers: mcpServers(set.MCPServers), Workspace: set.Workspace, StateDir: mcpStateDir(set.Home),
		Environ: cmdEnv, Clean: red.Redact, Wrap: mcpWrap(sb),
		Warn: func(w string) { warn(red.Redact(w)) }}) // a server's stderr may quote its token
}

// mcpWrap starts stdio servers inside the OS sandbox when the session has
// one: the workspace read-only unless the server's writable = true, the
// network unless its network = false (sandbox.ServerLaunch). Without an
// active sandbox (--sandbox off, or none here) servers start as they are.
func mcpWrap(sb *sandbox.Sandbox) func(mcp.ServerConfig, string, []string, []string) (mcp.Start, error) {
	if !sb.Active() {
		return nil
	}
	return func(cfg mcp.ServerConfig, dir string, argv, env []string) (mcp.Start, error) {
		l, err := sb.ServerLaunch(sandbox.ServerSpec{Argv: argv, Env: env, Dir: dir, WriteWorkspace: cfg.Writable, Network: cfg.Network})
		if err != nil {
			return mcp.Start{}, err
		}
		return mcp.Start{Path: l.Path, Args: append([]string{l.Path}, l.Args...), Env: l.Env, NewNetNS: l.NewNetNS, NewMountNS: l.NewMountNS}, nil
	}
}

// mcpStateDir is where stdio servers get their working directories.
func mcpStateDir(home string) string { return filepath.Join(home, "mcp") }

// mcpServers maps the configuration's servers to the client's.
func mcpServers(in []config.MCPServer) []mcp.ServerConfig {
	out := make([]mcp.ServerConfig, 0, len(in))
	for _, s := range in {
		c := mcp.ServerConfig{
			Name: s.Name, Command: s.Command, Args: s.Args, Env: s.Env, URL: s.URL, Headers: s.Headers,
			Disabled: !s.Enabled, ReadOnly: s.ReadOnlyTools, StartupTimeout: s.StartupTimeout, ToolTimeout: s.ToolTimeout,
			Writable: s.Writable, Network: s.Network,
			Origin: fmt.Sprintf("[mcp.servers.%s] of %s", s.Name, s.File),
		}
		if len(s.Unset) > 0 {
			c.Problem = fmt.Sprintf("%s not set in the environment (referenced as ${...} in %s); export it or edit the file",
				plural(s.Unset, "the variable ", "the variables "), c.Origin)
		}
		out = append(out, c)
	}
	return out
}

func plural(names []string, one, many string) string {
	if len(names) == 1 {
		return one + names[0] + " is"
	}
	return many + strings.Join(names, ", ") + " are"
}

// addMCPSecrets makes the redactor know the values the configuration gives
// servers (env and headers whose names look secret, e.g. GITHUB_TOKEN or
// Authorization), so that a server echoing its token does not show it.
func addMCPSecrets(red *redact.Redactor, servers []config.MCPServer) {
	var kv []string
	for _, s := range servers {
		for k, v := range s.Env {
			kv = append(kv, k+"="+v)
		}
		for k, v := range s.Headers {
			kv = append(kv, k+"="+v)
			if _, tok, ok := strings.Cut(v, " "); ok && strings.Contains(strings.ToUpper(k), "AUTH") {
				kv = append(kv, k+"_TOKEN="+strings.TrimSpace(tok)) // "Bearer X": X alone too
			}
		}
	}
	red.AddEnv(kv)
}

// MCPListing is what `agent mcp list` shows.
type MCPListing struct {
	Servers  []mcp.Status
	Warnings []string
}

// ListMCP starts the configured MCP servers of the workspace dir (""
// for the current one), lists them with their tools, and stops them. It
// needs no model key.
func ListMCP(ctx context.Context, dir string) (*MCPListing, error) {
	ws, err := ResolveWorkspace(dir)
	if err != nil {
		return nil, err
	}
	cfg, warnings, err := config.Load(ws, config.Sources{})
	if err != nil {
		return nil, &UsageError{Err: err}
	}
	out := &MCPListing{Warnings: warnings}
	if len(cfg.MCPServers) == 0 {
		return out, nil
	}
	red, err := newRedactor(&Settings{Home: cfg.Home, Workspace: ws, RedactPII: cfg.RedactPII, InternalDomains: cfg.InternalDomains})
	if err != nil {
		return nil, err
	}
	addMCPSecrets(red, cfg.MCPServers)
	var mu sync.Mutex
	mode := cfg.Sandbox.Mode
	if cfg.Origin["sandbox.mode"] == "" || cfg.Origin["sandbox.mode"] == config.FromDefault {
		mode = sandbox.ModeWorkspaceWrite // what a run starts its servers under, whatever its approval mode
	}
	sb, _ := sandbox.New(sandbox.Options{Mode: mode, Workspace: ws, StateDir: cfg.Home})
	defer sb.Close()
	m := mcp.New(mcp.Options{Servers: mcpServers(cfg.MCPServers), Workspace: ws, StateDir: mcpStateDir(cfg.Home),
		Environ: commandEnv(cfg.Sandbox.EnvAllow), Clean: red.Redact, Wrap: mcpWrap(sb), Warn: func(w string) {
			if strings.Contains(w, " is not available, ") || strings.Contains(w, " refused: ") {
				return // the listing says so
			}
			mu.Lock()
			out.Warnings = append(out.Warnings, red.Redact(w))
			mu.Unlock()
		}})
	defer m.Close()
	m.Tools(ctx)
	out.Servers = m.Status()
	for i := range out.Servers { // a command line or URL may hold a token
		s := &out.Servers[i]
		s.Target, s.Err = red.Redact(s.Target), red.Redact(s.Err)
	}
	return out, nil
}
