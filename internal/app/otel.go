package app

// Traces over OTLP: the live export of a session's runs ([otel] endpoint),
// and agent export RUN --otlp URL. The mapping and the wire are
// internal/otlp's; here are the settings, the sampling, the redactor and
// the audit rows.

import (
	"context"
	"fmt"
	"net/http"
	"path/filepath"
	"runtime/debug"
	"strconv"
	"strings"

	"agent/internal/config"
	"agent/internal/event"
	"agent/internal/otlp"
	"agent/internal/protocol"
	"agent/internal/redact"
	"agent/internal/store"
)

// startOTel subscribes the live exporter when [otel] endpoint is set.
func (s *Service) startOTel() error {
	if s.set.OTelEndpoint == "" {
		return nil
	}
	ep, err := otlp.ParseEndpoint(s.set.OTelEndpoint)
	if err != nil {
		return usage("[otel] endpoint: %v", err)
	}
	key, err := redact.LoadOrCreateKey(filepath.Join(s.set.Home, "redact.key"))
	if err != nil {
		return usage("redaction key: %v", err)
	}
	by := Whoami()
	provider := genAIProvider(s.set.Model)
	if s.set.Provider != "" {
		provider = string(s.set.Provider)
	}
	if s.set.Replay != "" {
		provider = "replay"
	}
	live := otlp.NewLive(otlp.LiveOptions{
		Endpoint: ep, Resource: otelResource(), Scope: otelScope(), Model: s.set.Model, Provider: provider,
		Content: func(runID string) bool { return s.set.OTelContent && SampledFull(key, runID, s.set.Sample) },
		Redact:  s.red.Redact, Warn: s.warn, UserAgent: userAgent(),
		Lineage: func(runID string) (string, string, bool) {
			rs, err := s.store.Start(context.Background(), runID)
			if err != nil || rs == nil || rs.ParentRun == "" {
				return "", "", false
			}
			return rs.ParentRun, rs.ParentCall, true
		},
		Audit: func(runID, detail string) error {
			return s.store.Audit(context.Background(), store.AuditEntry{RunID: runID, Action: "export", Detail: s.red.Redact("by " + by + " " + detail)})
		},
	})
	s.otel = live
	s.Subscribe(func(u protocol.Update) {
		if u.Kind == protocol.UpdateEvent || u.Kind == protocol.UpdateChild { // a child's spans nest under its task call's
			live.Observe(u.Event)
		}
	})
	return nil
}

// closeOTel sends what is left and records the exports (before the store
// closes).
func (s *Service) closeOTel() {
	if s.otel != nil {
		s.otel.Close()
	}
}

// OTLPOptions configure ExportOTLP.
type OTLPOptions struct {
	// By names the person in the audit row; default Whoami().
	By string
	// Warn receives the warnings of the workspace's configuration.
	Warn func(string)
	// HTTP is the client (nil: http.DefaultClient; ctx bounds the export).
	HTTP *http.Client
}

// OTLPResult says what ExportOTLP sent.
type OTLPResult struct {
	RunID   string
	Where   string // the traces URL, any password masked
	Spans   int    // spans accepted by the receiver
	Content bool   // prompt and output text included
}

// exportOTLP sends the trace of the run with that id (or unique id prefix)
// to an OTLP/HTTP receiver, and records the export in the audit log. The
// spans carry prompt and output text only when [otel] content = true in
// the configuration of the run's workspace and the run is sampled for full
// exports ([trace] sample); every string is redacted with the secrets
// known now. The audit row is written before anything is sent; a failure
// adds a second row saying how far it got. A bad URL is a *UsageError; a receiver that
// refuses or cannot be reached is an error naming it.
func exportOTLP(ctx context.Context, st *store.Store, runID, endpoint string, opt OTLPOptions) (OTLPResult, error) {
	ep, err := otlp.ParseEndpoint(endpoint)
	if err != nil {
		return OTLPResult{}, usage("--otlp: %v", err)
	}
	run, err := st.GetRun(ctx, runID)
	if err != nil {
		return OTLPResult{}, err
	}
	cfg, warnings, err := config.Load(run.Workspace, config.Sources{})
	if err != nil {
		return OTLPResult{}, &UsageError{Err: err}
	}
	for _, w := range warnings {
		if opt.Warn != nil {
			opt.Warn(w)
		}
	}
	key, err := redact.LoadOrCreateKey(filepath.Join(st.Home(), "redact.key"))
	if err != nil {
		return OTLPResult{}, usage("redaction key: %v", err)
	}
	red, err := newRedactor(&Settings{Home: st.Home(), Workspace: run.Workspace, RedactPII: cfg.RedactPII, InternalDomains: cfg.InternalDomains})
	if err != nil {
		return OTLPResult{}, err
	}
	evs, err := st.Events(ctx, run.ID, 0)
	if err != nil {
		return OTLPResult{}, err
	}
	res := OTLPResult{RunID: run.ID, Where: ep.String(), Content: cfg.OTelContent && SampledFull(key, run.ID, cfg.Sample)}
	provider := genAIProvider(run.Model)
	for _, ev := range evs {
		if d, ok := ev.Data.(*event.RunStartedData); ok && d.Provider != "" {
			provider = string(d.Provider) // journaled since the Anthropic adapter
			break
		}
	}
	spans := otlp.Trace(otlp.TraceOptions{RunID: run.ID, Model: run.Model, Provider: provider, Content: res.Content}, evs)

	by := opt.By
	if by == "" {
		by = Whoami()
	}
	audit := func(detail string) error {
		return st.Audit(context.WithoutCancel(ctx), store.AuditEntry{RunID: run.ID, Action: "export", Detail: red.Redact("by " + by + " " + detail)})
	}
	what := fmt.Sprintf("to OTLP %s: %d spans, %s ([otel] content = %t, [trace] sample = %s)", res.Where, len(spans),
		contentNote(res.Content), cfg.OTelContent, strconv.FormatFloat(cfg.Sample, 'g', -1, 64))
	// The intent is on record before anything leaves.
	if err := audit(what); err != nil {
		return OTLPResult{}, fmt.Errorf("export of run %s not sent: it could not be recorded in the audit log: %w", run.ID, err)
	}
	c := otlp.Client{Endpoint: ep, HTTP: opt.HTTP, UserAgent: userAgent()}
	res.Spans, err = c.Send(ctx, otelResource(), otelScope(), spans, red.Redact)
	if err != nil {
		_ = audit(fmt.Sprintf("to OTLP %s: failed after %d of %d spans: %v", res.Where, res.Spans, len(spans), err))
		return res, fmt.Errorf("export of run %s over OTLP: %w", run.ID, err)
	}
	return res, nil
}

func contentNote(content bool) string {
	if content {
		return "with prompt and output text"
	}
	return "metadata only"
}

// genAIProvider guesses the GenAI provider of a model from its name, for
// runs that did not journal their provider.
func genAIProvider(model string) string {
	if strings.HasPrefix(strings.ToLower(model), "claude") {
		return string(event.ProviderAnthropic)
	}
	return string(event.ProviderOpenAI)
}

func buildVersion() (version, revision string) {
	version = "dev"
	if bi, ok := debug.ReadBuildInfo(); ok {
		if v := bi.Main.Version; v != "" && v != "(devel)" {
			version = v
		}
		for _, s := range bi.Settings {
			if s.Key == "vcs.revision" {
				revision = s.Value
			}
		}
	}
	return version, revision
}

func otelResource() otlp.Resource {
	v, rev := buildVersion()
	attrs := []otlp.Attr{otlp.String("service.name", "agent"), otlp.String("service.version", v)}
	if rev != "" {
		attrs = append(attrs, otlp.String("vcs.ref.head.revision", rev))
	}
	return otlp.Resource{Attrs: attrs}
}

func otelScope() otlp.Scope {
	v, _ := buildVersion()
	return otlp.Scope{Name: "agent/internal/otlp", Version: v}
}

func userAgent() string {
	v, _ := buildVersion()
	return "agent/" + v
}
