package tui

import (
	"fmt"
	"strings"

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
	s := m.svc.Session()
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
	m.tr.info(title, rows)
}

// showStatus is /status: the whole session in one block.
func (m *model) showStatus() {
	m.tr.info("session", m.statusRows())
}

// statusRows are /status's rows.
func (m *model) statusRows() []transcript.InfoRow {
	s := m.svc.Session()
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
	set := m.svc.Settings()
	ctxLine := "no model request yet"
	if used := m.tr.context.TotalTokens; used > 0 {
		ctxLine = textutil.Count(used) + " tokens"
		if w := contextWindow(set.Window, m.tr.context.Budget); w > 0 {
			ctxLine += fmt.Sprintf(" of %s (%d%%)", textutil.Count(w), used*100/w)
		}
	}
	rows := []transcript.InfoRow{
		{Key: "workspace", Value: s.Workspace},
		{Key: "branch", Value: branch},
		{Key: "provider", Value: endpoint},
		{Key: "model", Value: m.svc.Model()},
		{Key: "approval", Value: string(m.svc.Mode())},
		{Key: "sandbox", Value: sandbox},
		{Key: "tokens", Value: fmt.Sprintf("%s in · %s out", textutil.Count(m.tr.tokens.Input), textutil.Count(m.tr.tokens.Output))},
	}
	// cost: the row of the run's cost goes here (statusCost, once prices
	// are known).
	if c := m.statusCost(); c != "" {
		rows = append(rows, transcript.InfoRow{Key: "cost", Value: c})
	}
	rows = append(rows,
		transcript.InfoRow{Key: "context", Value: ctxLine},
		transcript.InfoRow{Key: "run", Value: orNone(m.runID())},
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
