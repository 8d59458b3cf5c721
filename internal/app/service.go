package app

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"agent/internal/agent"
	"agent/internal/agent/anthropic"
	"agent/internal/agent/openai"
	"agent/internal/approval"
	"agent/internal/checkpoint"
	"agent/internal/contextbuild"
	"agent/internal/event"
	"agent/internal/hooks"
	"agent/internal/otlp"
	"agent/internal/policy"
	"agent/internal/protocol"
	"agent/internal/redact"
	"agent/internal/replay"
	"agent/internal/sandbox"
	"agent/internal/store"
	"agent/internal/tools"
)

// Options configure a Service.
type Options struct {
	Settings *Settings
	// Decides: a frontend answers the calls that need a person while the
	// run waits (the TUI, an editor): each is published as an
	// UpdateApproval and answered with Run.Decide. False: headless, such a
	// call pauses the run (awaiting_approval).
	Decides bool
	// Warn receives warnings for the person (nil: dropped).
	Warn func(string)
	// Live: publish running commands' output as UpdateOutput (a frontend
	// that shows it; others spare the redaction of a second copy).
	Live bool
}

// Service is one process's session: the journal, the shadow repository of
// the workspace, the redactor, the model provider and the loop, with the
// runs it drives (one at a time) and the subscribers of their updates.
type Service struct {
	set    *Settings
	warn   func(string)
	store  *store.Store
	cps    *checkpoint.Store
	red    *redact.Redactor
	sb     *sandbox.Sandbox
	runner *agent.Runner
	tools  *toolbox
	hub    hub
	decide decisions
	otel   *otlp.Live    // the live trace export, when [otel] endpoint is set
	hooks  *hooks.Runner // the user's [[hooks]] (nil: none)
	// cbOpt are the context builder's options, for children's builders.
	cbOpt contextbuild.Options
	// subs is the state of task calls' children (subagents.go).
	subs subagentState

	sw switches // the mode and model switched to in the session

	mu       sync.Mutex
	home     *Home
	policies map[string]*policy.Policy
	repoMap  *repoMapper
	// the background warm-up of the repo map (Close stops it and waits)
	warmOnce sync.Once
	warmStop func()
	warmDone chan struct{}
}

// Open wires a session for the settings' workspace.
func Open(ctx context.Context, opt Options) (*Service, error) {
	set := opt.Settings
	if set == nil {
		return nil, errors.New("app: no settings")
	}
	warn := opt.Warn
	if warn == nil {
		warn = func(string) {}
	}
	var retry retryNotices
	prov, err := newProvider(set, retry.notice)
	if err != nil {
		return nil, err
	}
	st, err := openJournal(ctx, set.Home)
	if err != nil {
		return nil, err
	}
	red, err := newRedactor(set)
	if err != nil {
		st.Close()
		return nil, err
	}
	cps, err := checkpoint.Open(set.Home, set.Workspace)
	if err != nil {
		st.Close()
		return nil, fmt.Errorf("open the checkpoint repository: %w", err)
	}
	addMCPSecrets(red, set.MCPServers)
	s := &Service{set: set, warn: warn, store: st, cps: cps, red: red, policies: map[string]*policy.Policy{}}
	sb, cmdEnv := commandSandbox(set, warn)
	s.sb = sb
	env := &tools.Env{Workspace: set.Workspace, DefaultTimeoutSec: set.CommandTimeoutSec,
		Sandbox: sb, CommandEnv: cmdEnv, Escalation: set.Approval != event.ApprovalReadOnly && sb.Active()}
	reg := tools.Default()
	if set.Subagents.MaxDepth >= 1 {
		if err := reg.Add(tools.Task{}, tools.ApplyTaskChanges{}); err != nil {
			st.Close()
			return nil, err
		}
	}
	rm := &repoMapper{root: set.Workspace, store: st, warn: warn, red: red}
	s.repoMap = rm
	cbOpt := contextbuild.Options{
		Workspace: set.Workspace, Model: set.Model, Window: set.Window, Redactor: red,
		RepoMap:            rm,
		GlobalInstructions: globalInstructions(),
	}
	if p, ok := prov.(*openai.Provider); ok && !strings.HasPrefix(p.BaseURL(), openai.DefaultBaseURL) {
		cbOpt.WindowLookup = p.ContextWindow // OpenAI's own list has no window
	}
	if set.ModelSummary {
		cbOpt.Summarizer = providerSummarizer{prov}
	}
	s.cbOpt = cbOpt
	// The tool specs, MCP servers' included, are known once the servers have
	// started: the builder is made then (toolbox.ensure), from the registry.
	s.tools = &toolbox{reg: reg, mcp: newMCP(set, red, cmdEnv, sb, warn), newBuilder: func(specs []agent.ToolSpec) (*contextbuild.Builder, error) {
		o := cbOpt
		o.Tools = specs
		return contextbuild.New(o)
	}}
	if s.tools.mcp == nil { // nothing to wait for: a bad option is an error now
		if err := s.tools.ensure(ctx); err != nil {
			st.Close()
			return nil, err
		}
	}
	s.runner = &agent.Runner{
		Provider:     prov,
		Tools:        reg,
		Journal:      st,
		Redactor:     red,
		Checkpointer: checkpoint.Checkpointer{Store: cps},
		Context:      s.tools,
		Model:        set.Model,
		ProviderName: providerName(set),
		Processes:    agent.OSProcesses{},
		MaxSteps:     set.MaxSteps,
		ToolEnv:      env,
		Prices:       set.Prices,
		Approver: &approval.Approver{
			PolicyFor: s.policyFor, Grants: st, TTL: set.RunGrantTTL,
			Tools: reg, ToolEnv: env,
		},
		Observer: agent.Observer{
			Event: func(ev event.Event) {
				s.hub.publish(protocol.Update{Kind: protocol.UpdateEvent, RunID: ev.RunID, Event: ev})
			},
			Delta:     func(text string) { s.hub.publish(protocol.Update{Kind: protocol.UpdateText, Text: text}) },
			CallDelta: func(d protocol.CallDelta) { s.hub.publish(protocol.Update{Kind: protocol.UpdateCall, Call: d}) },
		},
	}
	s.decide.hub = &s.hub
	retry.attach(&s.hub, set.Provider)
	if opt.Live {
		s.runner.Observer.Output = func(o protocol.CommandOutput) {
			s.hub.publish(protocol.Update{Kind: protocol.UpdateOutput, Output: &o})
		}
	}
	if opt.Decides {
		s.runner.Decider = &s.decide
	}
	s.installHooks(cmdEnv)
	if set.Subagents.MaxDepth >= 1 {
		s.runner.Subagents = &subagents{s: s, runner: s.runner}
		s.runner.CallIDs = s.subs.topID
	}
	env.Kept = keptFiles(set.Hooks, env.Workspace)
	env.Hidden = func(rel string) bool {
		for _, p := range s.activePolicies() {
			if _, denied := p.PathDenied("read_file", rel); denied {
				return true
			}
		}
		return false
	}
	if err := s.startOTel(); err != nil {
		s.Close()
		return nil, err
	}
	return s, nil
}

// WarmRepoMap builds the repo map once in the background, so that the
// first request of an interactive session does not wait for a cold parse
// of the workspace while the person is still typing. Close stops it.
func (s *Service) WarmRepoMap() {
	s.warmOnce.Do(func() {
		ctx, stop := context.WithCancel(context.Background())
		s.warmStop, s.warmDone = stop, make(chan struct{})
		go func() {
			defer close(s.warmDone)
			// the tokenizer's vocabulary, which the first request would
			// load (MCP servers are left to start with that request)
			if s.tools.mcp == nil && s.tools.ensure(ctx) == nil {
				_ = s.tools.cb.Warm()
			}
			// an error is the first refresh's to report; this only fills caches
			_, _ = s.repoMap.Map(ctx, contextbuild.RepoMapQuery{Tokens: 256})
		}()
	})
}

// openJournal opens the journal, with a permission problem of the state
// directory as a *UsageError (its message names the chmod that fixes it).
func openJournal(ctx context.Context, home string) (*store.Store, error) {
	return openStore(ctx, home, store.Open)
}

// openJournalRead is openJournal for a command that only reads the journal: on
// a state directory that cannot be written it opens the journal read-only,
// without creating or migrating anything (store.OpenRead).
func openJournalRead(ctx context.Context, home string) (*store.Store, error) {
	return openStore(ctx, home, store.OpenRead)
}

func openStore(ctx context.Context, home string, open func(context.Context, string) (*store.Store, error)) (*store.Store, error) {
	st, err := open(ctx, home)
	if err != nil {
		var pe *store.PermError
		if errors.As(err, &pe) {
			return nil, &UsageError{Err: err}
		}
		return nil, fmt.Errorf("open the journal: %w", err)
	}
	return st, nil
}

func newProvider(set *Settings, onRetry func(int, time.Duration, error)) (agent.Provider, error) {
	if set.Replay != "" {
		sc, err := replay.Load(set.Replay)
		if err != nil {
			return nil, usage("--replay: %v", err)
		}
		p := replay.NewScripted(sc)
		p.FollowConversation = true // so that resuming with the same script carries on
		return p, nil
	}
	var p agent.Provider
	var err error
	switch set.Provider {
	case event.ProviderAnthropic:
		p, err = anthropic.New(anthropic.Config{BaseURL: set.BaseURL, APIKey: set.APIKey, Model: set.Model, OnRetry: onRetry})
	default:
		p, err = openai.New(openai.Config{BaseURL: set.BaseURL, APIKey: set.APIKey, Model: set.Model, OnRetry: onRetry})
	}
	if err != nil {
		return nil, &UsageError{Err: err}
	}
	return p, nil
}

// providerName is what run_started records of the model adapter ("" for
// a replayed script).
func providerName(set *Settings) event.Provider {
	if set.Replay != "" {
		return ""
	}
	return set.Provider
}

// Close releases the session.
func (s *Service) Close() {
	s.warmOnce.Do(func() {}) // no warm-up starts after Close
	if s.warmStop != nil {
		s.warmStop()
		<-s.warmDone
	}
	s.sb.Close()
	s.tools.close() // the MCP servers end with the session
	s.closeOTel()
	s.mu.Lock()
	h := s.home
	s.mu.Unlock()
	if h != nil {
		h.Close() // the repositories it opened; the journal is the session's
	}
	s.cps.Close()
	s.store.Close()
}

// Settings are the session's settings.
func (s *Service) Settings() *Settings { return s.set }

// Redact redacts text with the session's redactor.
func (s *Service) Redact(text string) string { return s.red.Redact(text) }

// Notice is the one-time notice about the state directory, if any (a
// directory others can read), and records that it was shown.
func (s *Service) Notice() string {
	n := s.store.Notice()
	if n != "" {
		if err := s.store.NoticeShown(); err != nil {
			s.warn(fmt.Sprintf("could not record that the notice was shown: %v", err))
		}
	}
	return n
}

// setPolicy makes the approval policy of a run from its mode and rules.
func (s *Service) setPolicy(runID string, mode event.ApprovalMode, allow, deny []string) error {
	m, err := policy.ParseMode(string(mode))
	if err != nil {
		return usage("%v (set --approval or AGENT_APPROVAL)", err)
	}
	p, err := policy.New(m, allow, deny, s.set.Workspace)
	if err != nil {
		return usage("%v (fix the --allow/--deny flag or the [permissions] of your config file)", err)
	}
	s.mu.Lock()
	s.policies[runID] = p
	s.mu.Unlock()
	return nil
}

func (s *Service) policyFor(runID string) *policy.Policy {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.policies[runID]
}

func (s *Service) activePolicies() []*policy.Policy {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]*policy.Policy, 0, len(s.policies))
	for _, p := range s.policies {
		out = append(out, p)
	}
	return out
}

func (s *Service) dropPolicy(runID string) {
	s.mu.Lock()
	delete(s.policies, runID)
	s.mu.Unlock()
}
