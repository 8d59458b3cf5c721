// Package config owns the agent's configuration: the two TOML files (user
// `$XDG_CONFIG_HOME/agent/config.toml`, project `<workspace>/.agent/config.toml`),
// the environment variables and the flags, merged with precedence
// flag > environment > project file > user file > default into one Config.
// It validates every key and value, and enforces that a project file (which
// arrives with a cloned repository) can only make the agent more careful: it
// cannot add an MCP server ([mcp.servers.NAME], mcp.go), only turn one off.
//
// It must not touch anything else: it parses no command line (cmd/ hands it
// the flag values), prints nothing (it returns warnings), creates no
// directory and opens no database. Approval semantics live in
// internal/policy; this package only collects the mode and rule texts.
package config

import (
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"agent/internal/budget"
	"agent/internal/event"
	"agent/internal/hooks"
	"agent/internal/policy"
	"agent/internal/pricing"
	"agent/internal/sandbox"
)

// Defaults.
const (
	DefaultModel         = "gpt-4.1"
	DefaultBaseURL       = "https://api.openai.com/v1"
	DefaultApproval      = policy.ModeAsk
	DefaultContextWindow = 128_000
	DefaultSample        = 1.0
	DefaultRunGrantTTL   = time.Hour
	// DefaultRetention 0: runs are kept until deleted (agent runs prune).
	DefaultRetention time.Duration = 0
)

// Environment variables read.
const (
	EnvBaseURL  = "OPENAI_BASE_URL"
	EnvAPIKey   = "OPENAI_API_KEY"
	EnvModel    = "AGENT_MODEL"
	EnvHome     = "AGENT_HOME"
	EnvApproval = "AGENT_APPROVAL"
	EnvSandbox  = "AGENT_SANDBOX"
)

// Origins of a value, in Config.Origin.
const (
	FromDefault = "default"
	FromUser    = "user file"
	FromProject = "project file"
	FromEnv     = "environment"
	FromFlag    = "flag"
)

// Config is the effective configuration.
type Config struct {
	Model string
	// Subagents is the [subagents] section (subagents.go).
	Subagents Subagents
	// Provider is the wire protocol of the model endpoint; BaseURL and
	// APIKey are that provider's.
	Provider      Provider
	BaseURL       string
	APIKey        string // from OPENAI_API_KEY or ANTHROPIC_API_KEY only; never from a file
	Approval      policy.Mode
	Allow         []string // user file + flags (a project file cannot add any)
	Deny          []string // user file + project file + flags
	ContextWindow int      // tokens
	// ModelSummary lets compaction ask the model for a summary when
	// masking old outputs is not enough (at most once per turn).
	ModelSummary    bool
	RedactPII       bool
	InternalDomains []string
	Retention       time.Duration // 0: keep runs until deleted
	Sample          float64       // fraction of runs whose exports carry full tool output
	RunGrantTTL     time.Duration // how long an "allow for this run" grant lasts
	Home            string        // state directory (database, shadow repositories)
	// Sandbox is the OS sandbox of commands ([sandbox], AGENT_SANDBOX,
	// --sandbox); its mode defaults by approval mode (sandbox.DefaultFor).
	Sandbox Sandbox
	// MCPServers are the user file's [mcp.servers.NAME], sorted by name (a
	// project file may only turn one off).
	MCPServers []MCPServer
	// OTelEndpoint is the OTLP/HTTP receiver a run's trace goes to as it
	// runs ("": none); OTelContent adds prompt and output text to it.
	OTelEndpoint string
	OTelContent  bool
	// Hooks are the user file's [[hooks]], in file order (a project file
	// cannot add any).
	Hooks []hooks.Hook
	// Models are the user file's [models."NAME"] overrides of the price
	// list (and windows, which a project file may also set).
	Models map[string]pricing.Override
	// Budget is [budget] of the user file, lowered by the project file's.
	Budget budget.Limits

	Workspace   string
	UserFile    string // the user file's path ("" when no home directory is known)
	ProjectFile string // the project file's path ("" without a workspace)
	// Origin says where each key's value came from ("approval": "flag"),
	// keyed by the file keys plus "api_key" and "home".
	Origin map[string]string
}

// Sandbox is the [sandbox] section, merged.
type Sandbox struct {
	Mode sandbox.Mode
	// Writable are extra writable paths (user file only).
	Writable []string
	// Network lets commands reach the network.
	Network bool
	// EnvAllow names variables that stay in commands' environment although
	// they look like credentials (user file only).
	EnvAllow []string

	user, project, explicit *sandbox.Mode // the layers' modes, resolved in Load
	explicitFrom            string
}

// Flags are the command-line values; "" and nil mean not given.
type Flags struct {
	Model    string
	Provider string
	BaseURL  string
	Approval string
	Allow    []string
	Deny     []string
	Sandbox  string
}

// Sources are the inputs besides the files.
type Sources struct {
	Flags Flags
	// Env looks up an environment variable; nil means os.Getenv. Besides the
	// agent's variables it is asked for HOME, XDG_CONFIG_HOME and XDG_STATE_HOME.
	Env func(string) string
	// PriorProvider, when continuing a run, is the provider it started
	// with: it wins over the files, the model's name and the default.
	PriorProvider Provider
}

// Error is a configuration error: a bad file, key, value, variable or flag.
// The CLI exits 2 on it.
type Error struct {
	File string // the file's path, "environment variable X" or "flag --x"
	Key  string // the key at fault, when there is one
	Msg  string // what is wrong and how to fix it
	Err  error  // the cause, if any
}

func (e *Error) Error() string { return "config error: " + e.File + ": " + e.Msg }
func (e *Error) Unwrap() error { return e.Err }

// ErrNoAPIKey: the endpoint is not on this machine and the provider's key
// (OPENAI_API_KEY, ANTHROPIC_API_KEY) is unset.
var ErrNoAPIKey = errors.New("no API key")

// CheckAPIKey reports a clear *Error wrapping ErrNoAPIKey when a model
// request would go to a non-loopback endpoint without a key. Commands that
// talk to the model call it; the others need no key.
func (c *Config) CheckAPIKey() error {
	if c.APIKey != "" || IsLoopback(c.BaseURL) {
		return nil
	}
	p := c.Provider
	if p == "" {
		p = DefaultProvider
	}
	return &Error{File: "environment variable " + p.keyEnv(), Key: "api_key", Err: ErrNoAPIKey,
		Msg: fmt.Sprintf("not set, and the %s endpoint %s is not on this machine; export %s=... "+
			"(or point %s / --base-url at a local server)", p, c.BaseURL, p.keyEnv(), p.baseEnv())}
}

// Policy builds the approval policy the configuration describes.
func (c *Config) Policy() (*policy.Policy, error) {
	return policy.New(c.Approval, c.Allow, c.Deny, c.Workspace)
}

// UserFilePath is $XDG_CONFIG_HOME/agent/config.toml, else
// ~/.config/agent/config.toml; "" when neither is known.
func UserFilePath(env func(string) string) string {
	if x := env("XDG_CONFIG_HOME"); filepath.IsAbs(x) {
		return filepath.Join(x, "agent", "config.toml")
	}
	if h := homeDir(env); h != "" {
		return filepath.Join(h, ".config", "agent", "config.toml")
	}
	return ""
}

// ProjectFilePath is <workspace>/.agent/config.toml.
func ProjectFilePath(workspace string) string {
	if workspace == "" {
		return ""
	}
	return filepath.Join(workspace, ".agent", "config.toml")
}

func homeDir(env func(string) string) string {
	if h := env("HOME"); h != "" {
		return h
	}
	h, _ := os.UserHomeDir()
	return h
}

// stateHome: AGENT_HOME, else $XDG_STATE_HOME/agent, else ~/.local/state/agent.
func stateHome(env func(string) string) (string, string, error) {
	if h := env(EnvHome); h != "" {
		abs, err := filepath.Abs(h)
		if err != nil {
			return "", "", &Error{File: "environment variable " + EnvHome, Key: "home", Msg: err.Error(), Err: err}
		}
		return abs, FromEnv, nil
	}
	if x := env("XDG_STATE_HOME"); filepath.IsAbs(x) {
		return filepath.Join(x, "agent"), FromDefault, nil
	}
	if h := homeDir(env); h != "" {
		return filepath.Join(h, ".local", "state", "agent"), FromDefault, nil
	}
	return "", "", &Error{File: "environment variable " + EnvHome, Key: "home",
		Msg: "no home directory is known; set " + EnvHome + " to the directory for the agent's state"}
}

// Load reads the files and merges everything into the effective Config.
// Warnings (settings a project file may not make, and so were ignored) are
// for the caller to print on stderr. Missing files are fine; a bad file,
// key, value, variable or flag is an *Error.
func Load(workspace string, src Sources) (*Config, []string, error) {
	env := src.Env
	if env == nil {
		env = os.Getenv
	}
	c := &Config{
		Model: DefaultModel, Provider: DefaultProvider, BaseURL: DefaultBaseURL, Approval: DefaultApproval,
		ContextWindow: DefaultContextWindow, Sample: DefaultSample, RunGrantTTL: DefaultRunGrantTTL,
		Retention: DefaultRetention, Workspace: workspace, Origin: map[string]string{},
		UserFile: UserFilePath(env), ProjectFile: ProjectFilePath(workspace),
		Subagents: DefaultSubagentsConfig(),
	}
	for _, k := range knownKeys {
		c.Origin[k] = FromDefault
	}
	c.Origin["api_key"] = FromDefault
	if c.ProjectFile != "" && c.UserFile != "" && filepath.Clean(c.ProjectFile) == filepath.Clean(c.UserFile) {
		c.ProjectFile = "" // one file cannot be both
	}
	var warnings []string
	var projectWants *Provider
	if c.UserFile != "" {
		l, err := readLayer(c.UserFile)
		if err != nil {
			return nil, nil, err
		}
		if err := l.checkMCP(); err != nil {
			return nil, nil, err
		}
		c.applyUser(l)
		c.applySubagents(l, false)
	}
	if c.ProjectFile != "" {
		l, err := readLayer(c.ProjectFile)
		if err != nil {
			return nil, nil, err
		}
		warnings = c.applyProject(l)
		warnings = append(warnings, c.applySubagents(l, true)...)
		projectWants = l.provider
	}
	if err := c.applyEnv(env); err != nil {
		return nil, nil, err
	}
	ee, err := readEndpointEnv(env)
	if err != nil {
		return nil, nil, err
	}
	if err := c.applyFlags(src.Flags); err != nil {
		return nil, nil, err
	}
	warnings = append(warnings, c.resolveSandbox()...)
	warnings = append(warnings, c.resolveProvider(src.PriorProvider, projectWants, ee)...)
	home, origin, err := stateHome(env)
	if err != nil {
		return nil, nil, err
	}
	c.Home, c.Origin["home"] = home, origin
	c.expandMCP(env)
	c.Allow, c.Deny = dedup(c.Allow), dedup(c.Deny)
	return c, warnings, nil
}

func (c *Config) applyUser(l *layer) {
	set := func(key string, ok bool) {
		if ok {
			c.Origin[key] = FromUser
		}
	}
	if l.model != nil {
		c.Model = *l.model
	}
	set("model", l.model != nil)
	if l.provider != nil {
		c.Provider = *l.provider
	}
	set("provider", l.provider != nil)
	if l.baseURL != nil {
		c.BaseURL = *l.baseURL
	}
	set("base_url", l.baseURL != nil)
	if l.approval != nil {
		c.Approval = *l.approval
	}
	set("approval", l.approval != nil)
	c.Allow = append(c.Allow, l.allow...)
	set("permissions.allow", len(l.allow) > 0)
	c.Deny = append(c.Deny, l.deny...)
	set("permissions.deny", len(l.deny) > 0)
	if l.window != nil {
		c.ContextWindow = *l.window
	}
	set("context.window", l.window != nil)
	if l.modelSummary != nil {
		c.ModelSummary = *l.modelSummary
	}
	set("context.model_summary", l.modelSummary != nil)
	if l.pii != nil {
		c.RedactPII = *l.pii
	}
	set("redact.pii", l.pii != nil)
	c.InternalDomains = append(c.InternalDomains, l.internalDomains...)
	set("redact.internal_domains", len(l.internalDomains) > 0)
	if l.retention != nil {
		c.Retention = *l.retention
	}
	set("trace.retention", l.retention != nil)
	if l.sample != nil {
		c.Sample = *l.sample
	}
	set("trace.sample", l.sample != nil)
	if l.runGrantTTL != nil {
		c.RunGrantTTL = *l.runGrantTTL
	}
	set("approvals.run_grant_ttl", l.runGrantTTL != nil)
	c.Sandbox.user = l.sandboxMode
	if l.network != nil {
		c.Sandbox.Network = *l.network
	}
	set("sandbox.network", l.network != nil)
	c.Sandbox.Writable = append(c.Sandbox.Writable, l.writable...)
	set("sandbox.writable", len(l.writable) > 0)
	c.Sandbox.EnvAllow = append(c.Sandbox.EnvAllow, l.envAllow...)
	set("sandbox.env_allow", len(l.envAllow) > 0)
	c.applyMCPUser(l)
	c.applyHooksUser(l)
	c.applyCostUser(l)
	if l.otelEndpoint != nil {
		c.OTelEndpoint = *l.otelEndpoint
	}
	set("otel.endpoint", l.otelEndpoint != nil)
	if l.otelContent != nil {
		c.OTelContent = *l.otelContent
	}
	set("otel.content", l.otelContent != nil)
}

// DefaultSandboxFor is the sandbox mode when no file, variable or flag sets
// one (see sandbox.DefaultFor).
func DefaultSandboxFor(approval policy.Mode) sandbox.Mode {
	return sandbox.DefaultFor(event.ApprovalMode(approval.String()))
}

// resolveSandbox settles the sandbox mode once the approval mode is known:
// flag or environment, else the project file's if it is stricter than the
// user file's (or the default for the approval mode), else that.
func (c *Config) resolveSandbox() []string {
	sb := &c.Sandbox
	if sb.explicit != nil {
		sb.Mode, c.Origin["sandbox.mode"] = *sb.explicit, sb.explicitFrom
		return nil
	}
	base, from := DefaultSandboxFor(c.Approval), FromDefault
	if sb.user != nil {
		base, from = *sb.user, FromUser
	}
	sb.Mode, c.Origin["sandbox.mode"] = base, from
	if p := sb.project; p != nil && *p != base {
		if p.StricterThan(base) {
			sb.Mode, c.Origin["sandbox.mode"] = *p, FromProject
		} else {
			return []string{fmt.Sprintf("config warning: %s: sandbox.mode = %q ignored: a project file may only make the sandbox stricter "+
				"than %q (from the %s); set it in %s, %s or --sandbox", c.ProjectFile, p.String(), base.String(), from, c.userFileHint(), EnvSandbox)}
		}
	}
	return nil
}

// applyProject applies a project file, which may only make things stricter:
// a stricter mode, more deny rules, more redaction, shorter grants, fewer
// full exports. Anything that would loosen them, grant permissions, choose
// where the API key and the conversation go (provider, base_url, MCP
// servers' commands, URLs and headers), or delete runs sooner is ignored
// with a warning.
func (c *Config) applyProject(l *layer) []string {
	var warns []string
	warn := func(key, format string, a ...any) {
		warns = append(warns, fmt.Sprintf("config warning: %s: %s ignored: ", l.path, key)+fmt.Sprintf(format, a...))
	}
	take := func(key string) { c.Origin[key] = FromProject }
	if l.model != nil {
		c.Model = *l.model
		take("model")
	}
	if l.baseURL != nil && *l.baseURL != c.BaseURL {
		// Not even a loopback one: that may be the repository's own dev
		// server, which would get the API key and the whole conversation.
		warn(fmt.Sprintf("base_url = %q", maskURL(*l.baseURL)), "a project file cannot choose where your API key and conversation go "+
			"(a cloned repository could name its own server, local or not); set base_url in %s, or %s or --base-url",
			c.userFileHint(), EnvBaseURL)
	}
	if l.approval != nil && *l.approval != c.Approval {
		if l.approval.LooserThan(c.Approval) {
			warn(fmt.Sprintf("approval = %q", l.approval.String()), "a project file may only make approval stricter "+
				"than %q (from the %s); set it in %s, %s or --approval", c.Approval.String(), c.Origin["approval"],
				c.userFileHint(), EnvApproval)
		} else {
			c.Approval = *l.approval
			take("approval")
		}
	}
	if l.hasAllow && len(l.allow) > 0 {
		warn("[permissions] allow", "a cloned repository cannot grant itself permissions; put allow rules in %s or pass --allow",
			c.userFileHint())
	}
	if len(l.deny) > 0 {
		c.Deny = append(c.Deny, l.deny...)
		take("permissions.deny")
	}
	if l.window != nil {
		c.ContextWindow = *l.window
		take("context.window")
	}
	if l.modelSummary != nil {
		c.ModelSummary = *l.modelSummary
		take("context.model_summary")
	}
	if l.pii != nil && *l.pii != c.RedactPII {
		if *l.pii {
			c.RedactPII = true
			take("redact.pii")
		} else {
			warn("redact.pii = false", "a project file cannot turn redaction off")
		}
	}
	if len(l.internalDomains) > 0 {
		c.InternalDomains = append(c.InternalDomains, l.internalDomains...)
		take("redact.internal_domains")
	}
	if l.retention != nil && *l.retention != c.Retention {
		if keepsLonger(*l.retention, c.Retention) {
			c.Retention = *l.retention
			take("trace.retention")
		} else {
			warn(fmt.Sprintf("trace.retention = %q", l.retention.String()), "a project file cannot make runs be deleted sooner")
		}
	}
	if l.sample != nil && *l.sample != c.Sample {
		if *l.sample < c.Sample {
			c.Sample = *l.sample
			take("trace.sample")
		} else {
			warn(fmt.Sprintf("trace.sample = %v", *l.sample), "a project file may only lower the share of full exports (now %v)", c.Sample)
		}
	}
	if l.runGrantTTL != nil && *l.runGrantTTL != c.RunGrantTTL {
		if *l.runGrantTTL < c.RunGrantTTL {
			c.RunGrantTTL = *l.runGrantTTL
			take("approvals.run_grant_ttl")
		} else {
			warn(fmt.Sprintf("approvals.run_grant_ttl = %q", l.runGrantTTL.String()), "a project file may only shorten run grants (now %s)", c.RunGrantTTL)
		}
	}
	if l.otelEndpoint != nil && *l.otelEndpoint != c.OTelEndpoint {
		if *l.otelEndpoint == "" || IsLoopback(*l.otelEndpoint) {
			c.OTelEndpoint = *l.otelEndpoint
			take("otel.endpoint")
		} else {
			warn(fmt.Sprintf("otel.endpoint = %q", maskURL(*l.otelEndpoint)), "a project file may only send traces to this machine, "+
				"so that a cloned repository cannot send your runs elsewhere; set it in %s", c.userFileHint())
		}
	}
	if l.otelContent != nil && *l.otelContent != c.OTelContent {
		if !*l.otelContent {
			c.OTelContent = false
			take("otel.content")
		} else {
			warn("otel.content = true", "a project file cannot add prompt and output text to traces; set it in %s", c.userFileHint())
		}
	}
	warns = append(warns, c.applyProjectSandbox(l, warn, take)...)
	warns = append(warns, c.applyHooksProject(l)...)
	warns = append(warns, c.applyCostProject(l)...)
	return append(warns, c.applyMCPProject(l)...)
}

// applyProjectSandbox: a project file may make the sandbox stricter (its
// mode, network = false) but not open it (writable paths, network = true,
// env_allow are the user's to set).
func (c *Config) applyProjectSandbox(l *layer, warn func(key, format string, a ...any), take func(string)) []string {
	c.Sandbox.project = l.sandboxMode
	if l.network != nil && *l.network != c.Sandbox.Network {
		if !*l.network {
			c.Sandbox.Network = false
			take("sandbox.network")
		} else {
			warn("sandbox.network = true", "a cloned repository cannot give its commands the network; set it in %s", c.userFileHint())
		}
	}
	if len(l.writable) > 0 {
		warn("[sandbox] writable", "a cloned repository cannot make more paths writable for its commands; set it in %s", c.userFileHint())
	}
	if len(l.envAllow) > 0 {
		warn("[sandbox] env_allow", "a cloned repository cannot let its commands see credential variables; set it in %s", c.userFileHint())
	}
	return nil
}

// keepsLonger: retention a keeps runs at least as long as b (0 is forever).
func keepsLonger(a, b time.Duration) bool {
	if a == 0 {
		return true
	}
	return b != 0 && a >= b
}

func (c *Config) userFileHint() string {
	if c.UserFile != "" {
		return c.UserFile
	}
	return "the user config file"
}

func (c *Config) applyEnv(env func(string) string) error {
	bad := func(name, format string, a ...any) error {
		return &Error{File: "environment variable " + name, Msg: fmt.Sprintf(format, a...)}
	}
	if v := env(EnvModel); v != "" {
		if strings.ContainsAny(v, " \t\n") {
			return bad(EnvModel, "%q is not a model name, e.g. %s=%s", v, EnvModel, DefaultModel)
		}
		c.Model, c.Origin["model"] = v, FromEnv
	}
	if v := env(EnvProvider); v != "" {
		p, err := ParseProvider(v)
		if err != nil {
			return &Error{File: "environment variable " + EnvProvider, Msg: err.Error(), Err: err}
		}
		c.Provider, c.Origin["provider"] = p, FromEnv
	}
	if v := env(EnvApproval); v != "" {
		m, err := policy.ParseMode(v)
		if err != nil {
			return &Error{File: "environment variable " + EnvApproval, Msg: err.Error(), Err: err}
		}
		c.Approval, c.Origin["approval"] = m, FromEnv
	}
	if v := env(EnvSandbox); v != "" {
		m, err := sandbox.ParseMode(v)
		if err != nil {
			return &Error{File: "environment variable " + EnvSandbox, Msg: err.Error(), Err: err}
		}
		c.Sandbox.explicit, c.Sandbox.explicitFrom = &m, FromEnv
	}
	return nil
}

func (c *Config) applyFlags(f Flags) error {
	bad := func(name string, err error, format string, a ...any) error {
		return &Error{File: "flag --" + name, Msg: fmt.Sprintf(format, a...), Err: err}
	}
	if f.Model != "" {
		if strings.ContainsAny(f.Model, " \t\n") {
			return bad("model", nil, "%q is not a model name, e.g. --model %s", f.Model, DefaultModel)
		}
		c.Model, c.Origin["model"] = f.Model, FromFlag
	}
	if f.Provider != "" {
		p, err := ParseProvider(f.Provider)
		if err != nil {
			return bad("provider", err, "%v", err)
		}
		c.Provider, c.Origin["provider"] = p, FromFlag
	}
	if f.BaseURL != "" {
		if err := checkBaseURL(f.BaseURL); err != nil {
			return bad("base-url", err, "%q %v, e.g. --base-url %s", f.BaseURL, err, DefaultBaseURL)
		}
		c.BaseURL, c.Origin["base_url"] = f.BaseURL, FromFlag
	}
	if f.Approval != "" {
		m, err := policy.ParseMode(f.Approval)
		if err != nil {
			return bad("approval", err, "%v", err)
		}
		c.Approval, c.Origin["approval"] = m, FromFlag
	}
	for _, r := range f.Allow {
		if _, err := policy.ParseRule(r); err != nil {
			return bad("allow", err, "%v", err)
		}
	}
	for _, r := range f.Deny {
		if _, err := policy.ParseRule(r); err != nil {
			return bad("deny", err, "%v", err)
		}
	}
	if f.Sandbox != "" {
		m, err := sandbox.ParseMode(f.Sandbox)
		if err != nil {
			return bad("sandbox", err, "%v", err)
		}
		c.Sandbox.explicit, c.Sandbox.explicitFrom = &m, FromFlag
	}
	if len(f.Allow) > 0 {
		c.Allow, c.Origin["permissions.allow"] = append(c.Allow, f.Allow...), FromFlag
	}
	if len(f.Deny) > 0 {
		c.Deny, c.Origin["permissions.deny"] = append(c.Deny, f.Deny...), FromFlag
	}
	return nil
}

// maskURL hides a password in a URL shown in a message.
func maskURL(s string) string {
	if u, err := url.Parse(s); err == nil {
		return u.Redacted()
	}
	return s
}

func dedup(ss []string) []string {
	var out []string
	for _, s := range ss {
		if !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	return out
}
