package tui

import (
	"fmt"
	"strings"

	"agent/internal/event"
	"agent/internal/protocol"
	"agent/internal/tui/textutil"
	"agent/internal/tui/transcript"
)

// helpHint is the first screen's pointer to the keys.
const helpHint = "? for help · / for commands · @ to attach a file · esc interrupts · ctrl+c twice quits"

// noGitWarning says what working outside a git repository means.
const noGitWarning = "not a git repository: /checkpoints can still roll back what the agent changes, " +
	"but nothing else keeps a history of these files (git init gives you one)"

// orient puts the session's orientation at the top of the transcript: the
// workspace and its branch, the model, the approval mode, the sandbox and
// where help is.
func (m *model) orient() {
	m.tr.info(orientBlock(m.svc.Session()))
}

// orientBlock is the first screen's block for session s: its title and
// rows.
func orientBlock(s protocol.SessionInfo) (string, []transcript.InfoRow) {
	title := "agent · " + s.Name
	if s.Branch != "" {
		title += " · " + s.Branch
	}
	rows := []transcript.InfoRow{{Value: fmt.Sprintf("model %s · approval %s · sandbox %s", s.Model, s.Approval, s.Sandbox)}}
	if !s.Git {
		rows = append(rows, transcript.InfoRow{Value: noGitWarning, Warn: true})
	}
	if s.SandboxNote != "" {
		rows = append(rows, transcript.InfoRow{Value: "sandbox: " + s.SandboxNote, Warn: true})
	}
	rows = append(rows, transcript.InfoRow{Value: helpHint})
	return title, rows
}

// showStatus is /status: the whole session in one block.
func (m *model) showStatus() {
	m.tr.info("session", m.statusRows())
}

// statusRows are /status's rows.
func (m *model) statusRows() []transcript.InfoRow {
	return statusRowsOf(statusFacts{Session: m.svc.Session(), Model: m.svc.Model(), Mode: m.svc.Mode(),
		Tokens: m.tr.tokens, Cost: m.statusCost(), Used: m.tr.context.TotalTokens,
		Window: contextWindow(m.svc.Settings().Window, m.tr.context.Budget), Run: m.runID()})
}

// statusFacts are what /status shows: the session, and what the session
// has switched to and spent so far.
type statusFacts struct {
	Session protocol.SessionInfo
	Model   string
	Mode    event.ApprovalMode
	Tokens  event.TokenCount
	// Cost is the session's cost in words ("": nothing priced yet).
	Cost string
	// Used are the tokens of the last model request, Window the context
	// window (0: unknown).
	Used, Window int
	Run          string
}

// statusRowsOf are /status's rows for f.
func statusRowsOf(f statusFacts) []transcript.InfoRow {
	s := f.Session
	branch := s.Branch
	switch {
	case !s.Git:
		branch = "none (not a git repository)"
	case branch == "":
		branch = "unknown"
	}
	endpoint := s.Provider
	if s.Endpoint != "" {
		endpoint += " at " + s.Endpoint
	}
	sandbox := s.Sandbox
	if s.SandboxNote != "" {
		sandbox += " (" + s.SandboxNote + ")"
	}
	ctxLine := "no model request yet"
	if f.Used > 0 {
		ctxLine = textutil.Count(f.Used) + " tokens"
		if f.Window > 0 {
			ctxLine += fmt.Sprintf(" of %s (%d%%)", textutil.Count(f.Window), f.Used*100/f.Window)
		}
	}
	rows := []transcript.InfoRow{
		{Key: "workspace", Value: s.Workspace},
		{Key: "branch", Value: branch},
		{Key: "provider", Value: endpoint},
		{Key: "model", Value: f.Model},
		{Key: "approval", Value: string(f.Mode)},
		{Key: "sandbox", Value: sandbox},
		{Key: "tokens", Value: fmt.Sprintf("%s in · %s out", textutil.Count(f.Tokens.Input), textutil.Count(f.Tokens.Output))},
	}
	if f.Cost != "" {
		rows = append(rows, transcript.InfoRow{Key: "cost", Value: f.Cost})
	}
	rows = append(rows,
		transcript.InfoRow{Key: "context", Value: ctxLine},
		transcript.InfoRow{Key: "run", Value: orNone(f.Run)},
		transcript.InfoRow{Key: "journal", Value: s.Journal},
	)
	return rows
}

// statusCost is the session's cost for /status, with the run's budget
// ("": nothing spent yet).
func (m *model) statusCost() string {
	return strings.TrimPrefix(strings.TrimPrefix(m.costWords(), " · "), "cost ")
}

// info adds a block of facts to the transcript.
func (t *transcriptState) info(title string, rows []transcript.InfoRow) {
	e := &entry{kind: itemNotice, text: title}
	e.item = transcript.NewInfo(title, rows)
	t.entries = append(t.entries, e)
	t.view.Append(e.item)
}
