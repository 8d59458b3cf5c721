// Package mcp owns the agent's Model Context Protocol client: it starts the
// servers the configuration names (a local program spoken to over stdio, or
// a streamable-HTTP endpoint) when their tools are first needed, lists their
// tools and checks each as untrusted input (a name a model API takes, a
// schema that is a JSON object and resolves, a description of reasonable
// size), and offers each as a tools.Tool named mcp__SERVER__TOOL whose calls
// go to the server, within a timeout; a server that dies gives a tool error,
// and is started again for the next call. A stdio server starts outside the
// workspace: in its own directory under the state directory, in a new
// session with no terminal, its command looked up on a PATH without the
// workspace's directories, with the command environment (scrubbed) and its
// own variables, and through Options.Wrap (the OS sandbox) when set.
//
// It must not journal, approve, redact, checkpoint or decide risk beyond
// the configuration's word: the loop does all of that for MCP tools as for
// the built-in ones. It trusts nothing a server says about itself (a
// readOnlyHint does not make a tool a read).
package mcp

import (
	"context"
	"fmt"
	"os"
	"sort"
	"sync"
	"time"

	"agent/internal/tools"
)

// ServerConfig is one configured server.
type ServerConfig struct {
	Name    string
	Command string   // stdio: the program
	Args    []string // stdio: its arguments
	Env     map[string]string
	URL     string // streamable HTTP: the endpoint
	Headers map[string]string
	// Disabled servers are listed, never started.
	Disabled bool
	// ReadOnly names the server's tools (its own names) whose risk is read;
	// every other tool is exec.
	ReadOnly       []string
	StartupTimeout time.Duration // 0: DefaultStartupTimeout
	ToolTimeout    time.Duration // 0: DefaultToolTimeout
	// Problem, when set, is why the server cannot start (an unset
	// variable): it is reported instead of starting it.
	Problem string
	// Origin names where it was configured, for messages ("[mcp.servers.x]
	// in ~/.config/agent/config.toml").
	Origin string
	// Writable and Network are how the OS sandbox confines a stdio server
	// (Options.Wrap applies them): the workspace writable (else
	// read-only), the network reachable.
	Writable bool
	Network  bool
}

// Start is a stdio server's start as Options.Wrap returns it: the program
// to execute, its full argv and its environment, and the namespaces to
// start it in (a new user namespace with a mount and/or network namespace,
// Linux only).
type Start struct {
	Path       string
	Args       []string
	Env        []string
	NewNetNS   bool
	NewMountNS bool
}

// Defaults of ServerConfig's timeouts.
const (
	DefaultStartupTimeout = 30 * time.Second
	DefaultToolTimeout    = 120 * time.Second
)

// Limits on what a server may offer.
const (
	// MaxDescription is the longest tool description taken (bytes): a
	// longer one is refused, not cut, since it may hide instructions.
	MaxDescription = 4096
	// MaxSchema is the largest input schema taken (bytes of JSON).
	MaxSchema = 32 << 10
	// MaxTools is how many tools one server may offer.
	MaxTools = 128
	// DefaultMaxMessage is the largest message (one JSON-RPC line) read
	// from a stdio server; a longer one is an "answer too large" error and
	// the server is started again for the next call.
	DefaultMaxMessage = 16 << 20
	// maxRestarts is how often a server that died is started again.
	maxRestarts = 3
)

// Options configure a Manager.
type Options struct {
	Servers []ServerConfig
	// Workspace is the workspace: stdio servers never start in it, and
	// their command is not looked up in it (PATH entries inside it, and
	// relative ones, are passed over).
	Workspace string
	// StateDir is where each stdio server gets its own working directory,
	// STATEDIR/NAME, made 0700 (the agent's state directory's mcp/).
	StateDir string
	// Environ is the environment stdio servers start from, already
	// scrubbed of credentials: the one commands get. AGENT_HOME is removed,
	// PATH and the interpreters' search paths (PYTHONPATH, NODE_PATH, ...)
	// lose their entries inside the workspace, and the server's own Env is
	// added. nil: only the basic variables of the agent's environment
	// (PATH, HOME, locale, proxies, ...).
	Environ []string
	// Wrap, when set, wraps a stdio server's start in the OS sandbox: given
	// the server, its own directory, its argv (argv[0] the resolved
	// absolute program) and environment, it returns what to start. An
	// error keeps the server from starting.
	Wrap func(cfg ServerConfig, dir string, argv, env []string) (Start, error)
	// Warn receives a warning for each server that fails and each tool
	// refused (nil: dropped).
	Warn func(string)
	// Clean redacts what a server says before the model sees it (tool
	// descriptions and schemas); nil: as it is.
	Clean func(string) string
	// Version is the client version reported to servers.
	Version string
	// MaxMessage is the largest message read from a stdio server, in bytes
	// (0: DefaultMaxMessage).
	MaxMessage int
}

// Manager holds a session's servers. Tools starts them; Close stops them.
type Manager struct {
	opt     Options
	servers []*server

	once  sync.Once
	tools []tools.Tool
}

// New returns a Manager; nothing starts before Tools.
func New(opt Options) *Manager {
	if opt.Environ == nil {
		opt.Environ = os.Environ()
	}
	if opt.Warn == nil {
		opt.Warn = func(string) {}
	}
	if opt.Clean == nil {
		opt.Clean = func(s string) string { return s }
	}
	if opt.Version == "" {
		opt.Version = "dev"
	}
	if opt.MaxMessage <= 0 {
		opt.MaxMessage = DefaultMaxMessage
	}
	m := &Manager{opt: opt}
	cfgs := append([]ServerConfig(nil), opt.Servers...)
	sort.Slice(cfgs, func(i, j int) bool { return cfgs[i].Name < cfgs[j].Name })
	for _, c := range cfgs {
		if c.StartupTimeout <= 0 {
			c.StartupTimeout = DefaultStartupTimeout
		}
		if c.ToolTimeout <= 0 {
			c.ToolTimeout = DefaultToolTimeout
		}
		m.servers = append(m.servers, &server{cfg: c, opt: &m.opt, state: StateIdle})
	}
	return m
}

// Configured reports whether any server is configured and enabled.
func (m *Manager) Configured() bool {
	for _, s := range m.servers {
		if !s.cfg.Disabled {
			return true
		}
	}
	return false
}

// Tools starts every enabled server, concurrently, at its first call, and
// returns the tools that passed the checks, sorted by name. A server that
// fails to start and a tool refused are warnings: the run goes on without
// them. Later calls return the same tools.
func (m *Manager) Tools(ctx context.Context) []tools.Tool {
	m.once.Do(func() {
		var wg sync.WaitGroup
		for _, s := range m.servers {
			if s.cfg.Disabled {
				s.setState(StateDisabled, nil)
				continue
			}
			wg.Add(1)
			go func() {
				defer wg.Done()
				s.load(ctx)
			}()
		}
		wg.Wait()
		for _, s := range m.servers {
			for _, w := range s.warnings {
				m.opt.Warn(w)
			}
			m.tools = append(m.tools, s.tools...)
		}
		sort.Slice(m.tools, func(i, j int) bool { return m.tools[i].Name() < m.tools[j].Name() })
	})
	return m.tools
}

// State is where a server is.
type State int

const (
	StateIdle     State = iota // configured, not started yet
	StateDisabled              // enabled = false
	StateRunning               // started; its tools are offered
	StateFailed                // it could not start, or died and could not start again
	StateExited                // it died; the next call starts it again
	StateClosed                // stopped by Close
)

var stateNames = [...]string{"not started", "disabled", "running", "failed", "exited", "closed"}

func (s State) String() string {
	if int(s) < len(stateNames) {
		return stateNames[s]
	}
	return fmt.Sprintf("State(%d)", int(s))
}

// Status is what `agent mcp list` shows of a server.
type Status struct {
	Name      string
	Transport string // "stdio" or "http"
	Target    string // the command line, or the URL
	State     State
	Err       string // why it failed, or exited
	Tools     []ToolStatus
}

// ToolStatus is one tool a server offered.
type ToolStatus struct {
	Name    string // mcp__SERVER__TOOL
	Risk    string // read or exec; "" when refused
	Refused string // why it is not offered, or ""
}

// Status reports every configured server, sorted by name.
func (m *Manager) Status() []Status {
	out := make([]Status, 0, len(m.servers))
	for _, s := range m.servers {
		out = append(out, s.status())
	}
	return out
}

// Close stops every server that was started and waits for them to exit.
func (m *Manager) Close() {
	var wg sync.WaitGroup
	for _, s := range m.servers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s.close()
		}()
	}
	wg.Wait()
}
