package config

import (
	"errors"
	"fmt"
	"io/fs"
	"math"
	"net"
	"net/url"
	"os"
	"path"
	"sort"
	"strings"
	"time"

	"github.com/BurntSushi/toml"

	"agent/internal/hooks"
	"agent/internal/policy"
	"agent/internal/sandbox"
)

// fileData mirrors the file's layout. Leaves are `any` so that a value of the
// wrong type becomes our own error naming the key and the fix, while
// MetaData.Undecoded still reports unknown keys.
type fileData struct {
	Model       any `toml:"model"`
	Provider    any `toml:"provider"`
	BaseURL     any `toml:"base_url"`
	Approval    any `toml:"approval"`
	Permissions struct {
		Allow any `toml:"allow"`
		Deny  any `toml:"deny"`
	} `toml:"permissions"`
	Context struct {
		Window       any `toml:"window"`
		ModelSummary any `toml:"model_summary"`
	} `toml:"context"`
	Redact struct {
		PII             any `toml:"pii"`
		InternalDomains any `toml:"internal_domains"`
	} `toml:"redact"`
	Trace struct {
		Retention any `toml:"retention"`
		Sample    any `toml:"sample"`
	} `toml:"trace"`
	Approvals struct {
		RunGrantTTL any `toml:"run_grant_ttl"`
	} `toml:"approvals"`
	Sandbox struct {
		Mode     any `toml:"mode"`
		Writable any `toml:"writable"`
		Network  any `toml:"network"`
		EnvAllow any `toml:"env_allow"`
	} `toml:"sandbox"`
	// MCP is read by parseMCP (mcp.go), which names its own unknown keys;
	// Hooks by parseHooks (hooks.go); Models and Budget likewise by
	// parseModels and parseBudget (cost.go).
	MCP    any `toml:"mcp"`
	Hooks  any `toml:"hooks"`
	Models any `toml:"models"`
	Budget any `toml:"budget"`
	OTel   struct {
		Endpoint any `toml:"endpoint"`
		Content  any `toml:"content"`
	} `toml:"otel"`
	// Subagents is read by fillSubagents (subagents.go).
	Subagents any `toml:"subagents"`
}

// knownKeys lists every key a file may set, as dotted paths.
var knownKeys = []string{"model", "provider", "base_url", "approval", "permissions.allow", "permissions.deny",
	"context.window", "context.model_summary", "redact.pii", "redact.internal_domains", "trace.retention", "trace.sample",
	"approvals.run_grant_ttl", "sandbox.mode", "sandbox.writable", "sandbox.network", "sandbox.env_allow", "mcp.servers",
	"otel.endpoint", "otel.content", "hooks", "models", "budget.tokens", "budget.usd", "budget.time",
	"subagents.max_parallel", "subagents.max_depth", "subagents.budget_share"}

var sections = []string{"permissions", "context", "redact", "trace", "approvals", "sandbox", "mcp", "otel", "models", "budget", "subagents"}

// layer is what one file sets; nil pointers are keys it leaves alone.
type layer struct {
	path            string
	model           *string
	provider        *Provider
	baseURL         *string
	approval        *policy.Mode
	allow, deny     []string
	hasAllow        bool
	window          *int
	modelSummary    *bool
	pii             *bool
	internalDomains []string
	retention       *time.Duration
	sample          *float64
	runGrantTTL     *time.Duration
	sandboxMode     *sandbox.Mode
	writable        []string
	network         *bool
	envAllow        []string
	mcp             []mcpLayer
	hooks           []hooks.Hook
	otelEndpoint    *string
	otelContent     *bool
	cost            costLayer
	subagents       subagentsLayer
}

// readLayer reads one file; a missing file is an empty layer.
func readLayer(path string) (*layer, error) {
	l := &layer{path: path}
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return l, nil
	}
	if err != nil {
		return nil, &Error{File: path, Msg: fmt.Sprintf("cannot read the file: %v", err), Err: err}
	}
	text := string(b)
	var raw map[string]any
	if _, err := toml.Decode(text, &raw); err != nil {
		msg := err.Error()
		var pe toml.ParseError
		if errors.As(err, &pe) {
			msg = fmt.Sprintf("line %d: %s (TOML syntax)", pe.Position.Line, pe.Message)
		}
		return nil, &Error{File: path, Msg: msg, Err: err}
	}
	for _, s := range sections {
		if v, ok := raw[s]; ok {
			if _, isTable := v.(map[string]any); !isTable {
				return nil, &Error{File: path, Key: s, Msg: fmt.Sprintf("key %q must be a table: write [%s] on a line of its own, then its keys", s, s)}
			}
		}
	}
	var fd fileData
	md, err := toml.Decode(text, &fd)
	if err != nil {
		return nil, &Error{File: path, Msg: err.Error(), Err: err}
	}
	var und []toml.Key
	for _, k := range md.Undecoded() {
		if k[0] != "mcp" && k[0] != "hooks" && k[0] != "models" && k[0] != "budget" && k[0] != "subagents" { // parsed with their own unknown keys named
			und = append(und, k)
		}
	}
	if len(und) > 0 {
		k := und[0].String()
		msg := fmt.Sprintf("unknown key %q (known keys: %s)", k, strings.Join(knownKeys, ", "))
		if strings.Contains(strings.ToLower(k), "key") && strings.Contains(strings.ToLower(k), "api") {
			msg += "; the API key is read from the environment only (OPENAI_API_KEY, or ANTHROPIC_API_KEY for provider anthropic), never from a file"
		} else if s := suggest(k); s != "" {
			msg += fmt.Sprintf("; did you mean %q?", s)
		}
		return nil, &Error{File: path, Key: k, Msg: msg}
	}
	return l, l.fill(&fd)
}

func (l *layer) bad(key, format string, a ...any) error {
	return &Error{File: l.path, Key: key, Msg: fmt.Sprintf("key %q: ", key) + fmt.Sprintf(format, a...)}
}

func (l *layer) fill(fd *fileData) error {
	var err error
	if fd.Model != nil {
		s, ok := fd.Model.(string)
		if !ok || strings.TrimSpace(s) == "" || strings.ContainsAny(s, " \t\n") {
			return l.bad("model", "must be a model name in quotes, e.g. model = %q (got %s)", DefaultModel, show(fd.Model))
		}
		l.model = &s
	}
	if fd.Provider != nil {
		s, _ := fd.Provider.(string)
		p, err := ParseProvider(s)
		if err != nil {
			return l.bad("provider", "must be one of %s, e.g. provider = \"anthropic\" (got %s)", strings.Join(ProviderNames(), ", "), show(fd.Provider))
		}
		l.provider = &p
	}
	if fd.BaseURL != nil {
		s, _ := fd.BaseURL.(string)
		if err := checkBaseURL(s); err != nil {
			return l.bad("base_url", "%v, e.g. base_url = %q (got %s)", err, DefaultBaseURL, show(fd.BaseURL))
		}
		l.baseURL = &s
	}
	if fd.Approval != nil {
		s, _ := fd.Approval.(string)
		m, err := policy.ParseMode(s)
		if err != nil {
			return l.bad("approval", "must be one of %s, e.g. approval = \"ask\" (got %s)",
				strings.Join(policy.ModeNames(), ", "), show(fd.Approval))
		}
		l.approval = &m
	}
	if l.allow, err = l.rules("permissions.allow", fd.Permissions.Allow); err != nil {
		return err
	}
	l.hasAllow = fd.Permissions.Allow != nil
	if l.deny, err = l.rules("permissions.deny", fd.Permissions.Deny); err != nil {
		return err
	}
	if v := fd.Context.Window; v != nil {
		n, ok := v.(int64)
		if !ok || n < minWindow || n > maxWindow {
			return l.bad("context.window", "must be a whole number of tokens between %d and %d, e.g. window = %d (got %s)",
				minWindow, maxWindow, DefaultContextWindow, show(v))
		}
		w := int(n)
		l.window = &w
	}
	if v := fd.Context.ModelSummary; v != nil {
		b, ok := v.(bool)
		if !ok {
			return l.bad("context.model_summary", "must be true or false, without quotes (got %s)", show(v))
		}
		l.modelSummary = &b
	}
	if v := fd.Redact.PII; v != nil {
		b, ok := v.(bool)
		if !ok {
			return l.bad("redact.pii", "must be true or false, without quotes (got %s)", show(v))
		}
		l.pii = &b
	}
	if v := fd.Redact.InternalDomains; v != nil {
		ds, ok := strList(v)
		if !ok {
			return l.bad("redact.internal_domains", "must be a list of domain names, e.g. internal_domains = [\"corp.example.com\"] (got %s)", show(v))
		}
		for i, d := range ds {
			d = strings.TrimPrefix(strings.TrimPrefix(strings.ToLower(strings.TrimSpace(d)), "*."), ".")
			if d == "" || strings.ContainsAny(d, " /:@\t") {
				return l.bad("redact.internal_domains", "item %d (%q) is not a domain name; write a bare name such as \"corp.example.com\"", i+1, ds[i])
			}
			l.internalDomains = append(l.internalDomains, d)
		}
	}
	if v := fd.Trace.Retention; v != nil {
		d, err := duration(v, true)
		if err != nil {
			return l.bad("trace.retention", "%v, e.g. retention = \"720h\" for 30 days (\"0\" keeps runs forever) (got %s)", err, show(v))
		}
		l.retention = &d
	}
	if v := fd.Trace.Sample; v != nil {
		var f float64
		switch x := v.(type) {
		case float64:
			f = x
		case int64:
			f = float64(x)
		default:
			f = math.NaN()
		}
		if math.IsNaN(f) || f < 0 || f > 1 {
			return l.bad("trace.sample", "must be a number from 0 to 1 (the fraction of runs whose exports carry full tool output), e.g. sample = 0.25 (got %s)", show(v))
		}
		l.sample = &f
	}
	if v := fd.Approvals.RunGrantTTL; v != nil {
		d, err := duration(v, false)
		if err != nil {
			return l.bad("approvals.run_grant_ttl", "%v, e.g. run_grant_ttl = \"1h\" (got %s)", err, show(v))
		}
		l.runGrantTTL = &d
	}
	if err := l.fillSandbox(fd); err != nil {
		return err
	}
	if err := l.fillOTel(fd); err != nil {
		return err
	}
	if err := l.parseHooks(fd.Hooks); err != nil {
		return err
	}
	if err := l.parseModels(fd.Models); err != nil {
		return err
	}
	if err := l.fillSubagents(fd.Subagents); err != nil {
		return err
	}
	if err := l.parseBudget(fd.Budget); err != nil {
		return err
	}
	return l.parseMCP(fd.MCP)
}

func (l *layer) fillSandbox(fd *fileData) error {
	if v := fd.Sandbox.Mode; v != nil {
		str, _ := v.(string)
		m, err := sandbox.ParseMode(str)
		if err != nil {
			return l.bad("sandbox.mode", "must be one of %q, %q or %q, e.g. mode = %q (got %s)",
				sandbox.NameWorkspaceWrite, sandbox.NameReadOnly, sandbox.NameOff, sandbox.NameWorkspaceWrite, show(v))
		}
		l.sandboxMode = &m
	}
	if v := fd.Sandbox.Writable; v != nil {
		ps, ok := strList(v)
		if !ok {
			return l.bad("sandbox.writable", "must be a list of directories, e.g. writable = [\"~/.cargo\", \"/var/tmp/build\"] (got %s)", show(v))
		}
		for i, p := range ps {
			if strings.TrimSpace(p) == "" || strings.ContainsRune(p, 0) {
				return l.bad("sandbox.writable", "item %d is not a path; write an absolute path, ~/..., or a path relative to the workspace", i+1)
			}
		}
		l.writable = ps
	}
	if v := fd.Sandbox.Network; v != nil {
		b, ok := v.(bool)
		if !ok {
			return l.bad("sandbox.network", "must be true or false, without quotes (got %s)", show(v))
		}
		l.network = &b
	}
	if v := fd.Sandbox.EnvAllow; v != nil {
		ns, ok := strList(v)
		if !ok {
			return l.bad("sandbox.env_allow", "must be a list of variable names (globs allowed), e.g. env_allow = [\"MY_TOKEN\", \"CI_*\"] (got %s)", show(v))
		}
		for i, n := range ns {
			if _, err := path.Match(n, ""); err != nil || strings.TrimSpace(n) == "" || strings.ContainsAny(n, "= ") {
				return l.bad("sandbox.env_allow", "item %d (%q) is not a variable name or glob", i+1, n)
			}
		}
		l.envAllow = ns
	}
	return nil
}

func (l *layer) fillOTel(fd *fileData) error {
	if v := fd.OTel.Endpoint; v != nil {
		s, isStr := v.(string)
		err := checkOTelEndpoint(s)
		if !isStr {
			err = errors.New("must be an http:// or https:// URL in quotes")
		}
		if err != nil {
			return l.bad("otel.endpoint", "%v, e.g. endpoint = \"http://127.0.0.1:4318\" (an OTLP/HTTP receiver; traces go to its /v1/traces) (got %s)", err, show(v))
		}
		l.otelEndpoint = &s
	}
	if v := fd.OTel.Content; v != nil {
		b, ok := v.(bool)
		if !ok {
			return l.bad("otel.content", "must be true or false, without quotes (got %s)", show(v))
		}
		l.otelContent = &b
	}
	return nil
}

// checkOTelEndpoint: an http(s) base URL without query or fragment ("" is
// allowed: no export).
func checkOTelEndpoint(s string) error {
	if s == "" {
		return nil
	}
	if err := checkBaseURL(s); err != nil {
		return err
	}
	if u, _ := url.Parse(strings.TrimSpace(s)); u.RawQuery != "" || u.Fragment != "" {
		return errors.New("must be a URL without a query or fragment")
	}
	return nil
}

func (l *layer) rules(key string, v any) ([]string, error) {
	if v == nil {
		return nil, nil
	}
	ss, ok := strList(v)
	if !ok {
		return nil, l.bad(key, "must be a list of rules, e.g. %s = [\"run_command(go test *)\"] (got %s)",
			key[strings.IndexByte(key, '.')+1:], show(v))
	}
	for i, s := range ss {
		if _, err := policy.ParseRule(s); err != nil {
			return nil, &Error{File: l.path, Key: key, Msg: fmt.Sprintf("key %q: item %d: %v", key, i+1, err), Err: err}
		}
	}
	return ss, nil
}

const (
	minWindow = 1024
	maxWindow = 100_000_000
)

func strList(v any) ([]string, bool) {
	arr, ok := v.([]any)
	if !ok {
		return nil, false
	}
	out := make([]string, 0, len(arr))
	for _, x := range arr {
		s, ok := x.(string)
		if !ok {
			return nil, false
		}
		out = append(out, s)
	}
	return out, true
}

// duration parses a Go duration string. zeroOK allows "0".
func duration(v any, zeroOK bool) (time.Duration, error) {
	s, ok := v.(string)
	if !ok {
		return 0, errors.New("must be a Go duration in quotes")
	}
	d, err := time.ParseDuration(strings.TrimSpace(s))
	if err != nil {
		if strings.HasSuffix(s, "d") || strings.HasSuffix(s, "w") {
			return 0, errors.New("is not a Go duration (no d or w units: use hours)")
		}
		return 0, errors.New("is not a Go duration (units: s, m, h)")
	}
	if d < 0 || d == 0 && !zeroOK {
		return 0, errors.New("must be a positive duration")
	}
	return d, nil
}

// show renders a TOML value for an error message.
func show(v any) string {
	switch x := v.(type) {
	case string:
		return fmt.Sprintf("%q", x)
	case []any:
		return "a list"
	case map[string]any:
		return "a table"
	default:
		return fmt.Sprintf("%v", x)
	}
}

func checkBaseURL(s string) error {
	u, err := url.Parse(strings.TrimSpace(s))
	if s == "" || err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return errors.New("must be an http:// or https:// URL")
	}
	return nil
}

// IsLoopback reports whether a base URL points at this machine (localhost,
// 127.0.0.0/8, ::1): such an endpoint needs no API key.
func IsLoopback(baseURL string) bool {
	u, err := url.Parse(baseURL)
	if err != nil {
		return false
	}
	h := strings.ToLower(u.Hostname())
	if h == "localhost" || strings.HasSuffix(h, ".localhost") {
		return true
	}
	ip := net.ParseIP(h)
	return ip != nil && ip.IsLoopback()
}

// suggest returns the known key closest to an unknown one, if close.
func suggest(k string) string {
	best, bestD := "", 4
	for _, c := range knownKeys {
		for i, cand := range []string{c, c[strings.LastIndexByte(c, '.')+1:]} {
			d := editDistance(k, cand)
			if i == 1 && cand != c {
				d++ // a key's bare name is a step further than a key of the same level
			}
			if d < bestD || (d == bestD && c < best) {
				best, bestD = c, d
			}
		}
	}
	if bestD > len(k)/2 {
		return ""
	}
	return best
}

func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

func init() { sort.Strings(knownKeys) }
