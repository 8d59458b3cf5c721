package config

import (
	"fmt"
	"regexp"
	"sort"
	"strings"
	"time"
)

// Defaults of an MCP server's timeouts.
const (
	// DefaultMCPStartupTimeout bounds starting a server and listing its
	// tools (an npx download can take a while the first time).
	DefaultMCPStartupTimeout = 30 * time.Second
	// DefaultMCPToolTimeout bounds one tool call, like run_command's.
	DefaultMCPToolTimeout = 120 * time.Second
)

// MCPServer is one [mcp.servers.NAME] table of the user file: a Model
// Context Protocol server whose tools the model is offered, either a local
// command spoken to over stdio or a streamable-HTTP URL.
type MCPServer struct {
	Name    string
	Command string   // stdio: the program to start
	Args    []string // stdio: its arguments
	// Env is added to the program's environment, ${VAR} expanded from the
	// agent's own (which the program otherwise gets as commands do: scrubbed
	// of credentials).
	Env map[string]string
	URL string // streamable HTTP: the endpoint
	// Headers are sent with every HTTP request, ${VAR} expanded.
	Headers map[string]string
	Enabled bool
	// ReadOnlyTools names the server's tools (as the server names them)
	// that run without approval: the person vouches that they only read.
	// Every other tool is an exec call.
	ReadOnlyTools  []string
	StartupTimeout time.Duration
	ToolTimeout    time.Duration
	// Writable (writable = true) lets a stdio server write the workspace
	// from inside the OS sandbox; by default it sees it read-only.
	Writable bool
	// Network (network = false turns it off) lets a stdio server reach the
	// network from inside the OS sandbox; on by default, since many
	// servers call an API.
	Network bool
	// Unset lists the ${VAR} references whose variable is not set: the
	// server is not started, and says why.
	Unset []string
	// File is the file that configured it.
	File string
}

// mcpKeys are the keys of an [mcp.servers.NAME] table.
var mcpKeys = []string{"command", "args", "env", "url", "headers", "enabled", "read_only_tools", "startup_timeout", "tool_timeout",
	"writable", "network"}

// mcpServerName: 1 to 32 letters, digits, - and _, not "__" (the tool
// names are mcp__SERVER__TOOL), short enough to leave room for the tool's
// name in the 64 characters a model API allows.
func mcpServerName(name string) bool {
	if len(name) == 0 || len(name) > 32 || strings.Contains(name, "__") {
		return false
	}
	for _, c := range []byte(name) {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-') {
			return false
		}
	}
	return true
}

// mcpLayer is what one file says about one server, with the keys it set.
type mcpLayer struct {
	MCPServer
	set map[string]bool
}

// parseMCP reads the [mcp] table of a file (v is its decoded value).
func (l *layer) parseMCP(v any) error {
	if v == nil {
		return nil
	}
	top, ok := v.(map[string]any)
	if !ok {
		return l.bad("mcp", "must be a table: write [mcp.servers.NAME] on a line of its own, then its keys")
	}
	for k := range top {
		if k != "servers" {
			return &Error{File: l.path, Key: "mcp." + k, Msg: fmt.Sprintf("unknown key %q: MCP servers go in [mcp.servers.NAME] tables", "mcp."+k)}
		}
	}
	servers, ok := top["servers"].(map[string]any)
	if !ok {
		return l.bad("mcp.servers", "must hold one table per server, e.g. [mcp.servers.github] with command = \"npx\"")
	}
	names := make([]string, 0, len(servers))
	for name := range servers {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		s, err := l.parseMCPServer(name, servers[name])
		if err != nil {
			return err
		}
		l.mcp = append(l.mcp, s)
	}
	return nil
}

func (l *layer) parseMCPServer(name string, v any) (mcpLayer, error) {
	base := "mcp.servers." + name
	s := mcpLayer{MCPServer: MCPServer{Name: name, Enabled: true, File: l.path, Network: true,
		StartupTimeout: DefaultMCPStartupTimeout, ToolTimeout: DefaultMCPToolTimeout}, set: map[string]bool{}}
	if !mcpServerName(name) {
		return s, l.bad(base, "the server name %q must be 1 to 32 letters, digits, - or _ (no \"__\"): its tools are named mcp__%s__TOOL", name, name)
	}
	tab, ok := v.(map[string]any)
	if !ok {
		return s, l.bad(base, "must be a table: write [%s] on a line of its own, then command = ... or url = ...", base)
	}
	for k := range tab {
		if !contains(mcpKeys, k) {
			msg := fmt.Sprintf("unknown key %q (an MCP server takes: %s)", base+"."+k, strings.Join(mcpKeys, ", "))
			return s, &Error{File: l.path, Key: base + "." + k, Msg: msg}
		}
		s.set[k] = true
	}
	key := func(k string) string { return base + "." + k }
	var err error
	if x, ok := tab["command"]; ok {
		str, isStr := x.(string)
		if !isStr || strings.TrimSpace(str) == "" {
			return s, l.bad(key("command"), "must be the program to start, e.g. command = \"npx\" (got %s)", show(x))
		}
		s.Command = str
	}
	if x, ok := tab["args"]; ok {
		if s.Args, ok = strList(x); !ok {
			return s, l.bad(key("args"), "must be a list of strings, e.g. args = [\"-y\", \"@modelcontextprotocol/server-everything\"] (got %s)", show(x))
		}
	}
	if s.Env, err = l.strTable(key("env"), tab["env"], "env = { GITHUB_TOKEN = \"${GITHUB_TOKEN}\" }"); err != nil {
		return s, err
	}
	if x, ok := tab["url"]; ok {
		str, _ := x.(string)
		if err := checkBaseURL(str); err != nil {
			return s, l.bad(key("url"), "%v, e.g. url = \"http://127.0.0.1:8080/mcp\" (got %s)", err, show(x))
		}
		s.URL = str
	}
	if s.Headers, err = l.strTable(key("headers"), tab["headers"], "headers = { Authorization = \"Bearer ${MY_TOKEN}\" }"); err != nil {
		return s, err
	}
	for _, b := range []struct {
		k string
		v *bool
	}{{"enabled", &s.Enabled}, {"writable", &s.Writable}, {"network", &s.Network}} {
		if x, ok := tab[b.k]; ok {
			if *b.v, ok = x.(bool); !ok {
				return s, l.bad(key(b.k), "must be true or false, without quotes (got %s)", show(x))
			}
		}
	}
	if x, ok := tab["read_only_tools"]; ok {
		if s.ReadOnlyTools, ok = strList(x); !ok {
			return s, l.bad(key("read_only_tools"), "must be a list of the server's tool names, e.g. read_only_tools = [\"search\"] (got %s)", show(x))
		}
	}
	for _, t := range []struct {
		k string
		d *time.Duration
	}{{"startup_timeout", &s.StartupTimeout}, {"tool_timeout", &s.ToolTimeout}} {
		if x, ok := tab[t.k]; ok {
			if *t.d, err = duration(x, false); err != nil {
				return s, l.bad(key(t.k), "%v, e.g. %s = \"60s\" (got %s)", err, t.k, show(x))
			}
		}
	}
	return s, nil
}

// checkMCP checks that each server of a user file is either a command or
// a URL (a project file's tables may only turn one off).
func (l *layer) checkMCP() error {
	for _, s := range l.mcp {
		if err := l.checkMCPServer(s.MCPServer); err != nil {
			return err
		}
	}
	return nil
}

func (l *layer) checkMCPServer(s MCPServer) error {
	base := "mcp.servers." + s.Name
	switch {
	case s.Command == "" && s.URL == "":
		return l.bad(base, "needs command = \"PROGRAM\" (a local server over stdio) or url = \"https://...\" (streamable HTTP)")
	case s.Command != "" && s.URL != "":
		return l.bad(base, "has both command and url; a server is either a local program or a URL")
	case s.URL != "" && (len(s.Args) > 0 || len(s.Env) > 0):
		return l.bad(base, "args and env go with command, not with url")
	case s.Command != "" && len(s.Headers) > 0:
		return l.bad(base, "headers go with url, not with command (use env to give a local server a token)")
	case s.URL != "" && (s.Writable || !s.Network):
		return l.bad(base, "writable and network go with command (they confine a local program), not with url")
	}
	return nil
}

// strTable reads a table of strings (env, headers).
func (l *layer) strTable(key string, v any, example string) (map[string]string, error) {
	if v == nil {
		return nil, nil
	}
	tab, ok := v.(map[string]any)
	if !ok {
		return nil, l.bad(key, "must be a table of strings, e.g. %s (got %s)", example, show(v))
	}
	out := make(map[string]string, len(tab))
	for k, x := range tab {
		str, ok := x.(string)
		if !ok {
			return nil, l.bad(key, "the value of %q must be a string in quotes, e.g. %s (got %s)", k, example, show(x))
		}
		out[k] = str
	}
	return out, nil
}

// applyMCPUser takes the user file's servers.
func (c *Config) applyMCPUser(l *layer) {
	for _, s := range l.mcp {
		c.MCPServers = append(c.MCPServers, s.MCPServer)
	}
	if len(l.mcp) > 0 {
		c.Origin["mcp.servers"] = FromUser
	}
}

// applyMCPProject applies a project file's [mcp.servers.NAME] tables: it
// may turn a user server off (enabled = false), nothing else. A server
// from a cloned repository would be a program it runs on your machine; a
// url or headers would choose where your tokens go; read_only_tools would
// let its tools run without asking. A table that turns a server off and
// sets more keys turns it off, and the other keys are ignored with a
// warning naming them.
func (c *Config) applyMCPProject(l *layer) []string {
	var warns []string
	for _, s := range l.mcp {
		i := c.mcpIndex(s.Name)
		var others []string
		for _, k := range mcpKeys {
			if s.set[k] && k != "enabled" {
				others = append(others, k)
			}
		}
		off := i >= 0 && s.set["enabled"] && !s.Enabled
		if off {
			c.MCPServers[i].Enabled = false
			c.Origin["mcp.servers"] = FromProject
			if len(others) == 0 {
				continue
			}
		}
		what := fmt.Sprintf("[mcp.servers.%s]", s.Name)
		if off {
			what = fmt.Sprintf("mcp.servers.%s.%s", s.Name, strings.Join(others, ", "))
		} else if len(others) > 0 {
			what += " (" + strings.Join(others, ", ") + ")"
		}
		why := "a cloned repository cannot add MCP servers, which are programs run on your machine, nor change them"
		if contains(others, "url") || contains(others, "headers") {
			why = "a cloned repository cannot choose where an MCP server's requests and the tokens in their headers go, " +
				"nor add or change servers, which are programs run on your machine"
		}
		warns = append(warns, fmt.Sprintf("config warning: %s: %s ignored: a project file can only turn "+
			"a server of the user file off (enabled = false); %s; put it in %s", l.path, what, why, c.userFileHint()))
	}
	return warns
}

func (c *Config) mcpIndex(name string) int {
	for i, s := range c.MCPServers {
		if s.Name == name {
			return i
		}
	}
	return -1
}

// envRef is a ${VAR} reference; a lone $ is kept as it is.
var envRef = regexp.MustCompile(`\$\{[A-Za-z_][A-Za-z0-9_]*\}`)

// expandMCP expands ${VAR} in the servers' env and headers from env, and
// records the variables that are not set.
func (c *Config) expandMCP(env func(string) string) {
	for i := range c.MCPServers {
		s := &c.MCPServers[i]
		for _, m := range []map[string]string{s.Env, s.Headers} {
			for k, v := range m {
				m[k] = envRef.ReplaceAllStringFunc(v, func(ref string) string {
					name := ref[2 : len(ref)-1]
					val := env(name)
					if val == "" && !contains(s.Unset, name) {
						s.Unset = append(s.Unset, name)
					}
					return val
				})
			}
		}
		sort.Strings(s.Unset)
	}
}

func contains(ss []string, s string) bool {
	for _, x := range ss {
		if x == s {
			return true
		}
	}
	return false
}
