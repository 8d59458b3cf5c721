package tui

import (
	"fmt"
	"path/filepath"
	"time"

	tea "charm.land/bubbletea/v2"

	"agent/internal/app"
	"agent/internal/protocol"
	"agent/internal/tui/picker"
)

// pickKind is what the picker overlay lists.
type pickKind uint8

const (
	pickRuns   pickKind = iota + 1 // /resume: the workspace's runs
	pickGrants                     // /approvals: the run's grants
)

type (
	// runsMsg carries the workspace's runs into the /resume picker.
	runsMsg struct {
		runs []protocol.RunInfo
		from map[string]string // run id → where it came from ("fork of …"), for lineage
		err  error
	}
	// grantsMsg carries the run's grants into the /approvals picker.
	grantsMsg struct {
		grants []protocol.GrantInfo
		err    error
	}
	// revokedMsg says a grant was revoked (or why not).
	revokedMsg struct {
		rule string
		err  error
	}
	// exportedMsg says where /export wrote the run's trace.
	exportedMsg struct {
		path   string
		events int
		err    error
	}
)

// openPicker shows the picker of kind k and starts loading its rows.
func (m *model) openPicker(k pickKind) tea.Cmd {
	m.overlay, m.pick = overlayPicker, k
	svc, ctx := m.svc, m.ctx
	switch k {
	case pickRuns:
		m.picker = picker.New(picker.Options{Theme: m.th, Title: "Runs of this workspace", Empty: "no runs yet",
			Choose: "open", Note: "a run that stopped mid-step is resumed: nothing with a side effect is run twice"})
		ws := svc.Settings().Workspace
		m.layout()
		return func() tea.Msg {
			all, err := svc.Home().RunTree(ctx) // newest first, each run's forks and children after it
			var mine []protocol.RunInfo
			from := map[string]string{}
			for _, n := range all {
				if filepath.Clean(n.Workspace) == filepath.Clean(ws) {
					mine = append(mine, n.RunInfo)
					if l := lineage(n); l != "" {
						from[n.ID] = l
					}
				}
			}
			return runsMsg{runs: mine, from: from, err: err}
		}
	case pickGrants:
		m.picker = picker.New(picker.Options{Theme: m.th, Title: "Approvals · mode " + string(svc.Mode()),
			Empty: "no grants: every call that needs approval asks", Actions: []picker.Action{{Key: "d", Label: "revoke"}},
			Note: "grants come from \"allow for this run\"; a revoked grant asks again, and the revocation is journaled"})
		m.layout()
		r := m.run
		if r == nil {
			return nil
		}
		return func() tea.Msg {
			gs, err := r.Grants(ctx)
			return grantsMsg{grants: gs, err: err}
		}
	}
	return nil
}

// onPicked acts on the row the person chose.
func (m *model) onPicked(c picker.ChosenMsg) tea.Cmd {
	if cmd, ok := m.onSwitchPicked(c); ok {
		return cmd
	}
	switch m.pick {
	case pickRuns:
		if m.phase != phaseIdle {
			m.flash = "a run is in progress: Esc interrupts it first"
			return nil
		}
		if m.run != nil && m.run.ID() == c.Item.ID {
			m.overlay = overlayNone
			return nil
		}
		m.overlay = overlayNone
		if m.run != nil {
			m.run.Close()
			m.run = nil
		}
		m.tr = newTranscript(m.th, m.renderDiff)
		m.phase = phaseStarting
		return m.openRun(c.Item.ID, nil, "", false)
	case pickGrants:
		if c.Action != "d" || m.run == nil {
			return nil
		}
		r, ctx, rule := m.run, m.ctx, c.Item.ID
		return func() tea.Msg { return revokedMsg{rule: rule, err: r.RevokeGrant(ctx, rule)} }
	}
	return nil
}

// onPickerData fills the picker with what its command loaded.
func (m *model) onPickerData(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case runsMsg:
		if msg.err != nil {
			m.flash = "runs: " + msg.err.Error()
		}
		items := make([]picker.Item, len(msg.runs))
		for i, r := range msg.runs {
			items[i] = picker.Item{ID: r.ID, Title: fmt.Sprintf("%s  %-11s", r.ID, r.Status),
				Detail: fmt.Sprintf("%s%s · %d steps · %s", msg.from[r.ID], ago(m.now(), r.Updated), r.Steps, r.Prompt),
				Warn:   r.Status == "running" || r.Status == "interrupted"}
		}
		if m.pick == pickRuns && m.picker != nil {
			m.picker.SetItems(items)
		}
	case grantsMsg:
		if msg.err != nil {
			m.flash = "grants: " + msg.err.Error()
		}
		items := make([]picker.Item, len(msg.grants))
		for i, g := range msg.grants {
			items[i] = picker.Item{ID: g.Rule, Title: g.Rule, Detail: "until " + g.Expires.Local().Format("15:04")}
		}
		if m.pick == pickGrants && m.picker != nil {
			m.picker.SetItems(items)
		}
	case revokedMsg:
		if msg.err != nil {
			m.flash = "not revoked: " + msg.err.Error()
			return nil
		}
		m.flash = "revoked: " + msg.rule
		return m.openPicker(pickGrants)
	case exportedMsg:
		if msg.err != nil {
			m.tr.add(&entry{kind: itemError, text: "export failed: " + msg.err.Error()})
			return nil
		}
		m.tr.notice("exported %d events (redacted) to %s", msg.events, msg.path)
	}
	return nil
}

// export writes the run's redacted trace to path ("" : <run>.jsonl in the
// workspace).
func (m *model) export(path string) tea.Cmd {
	if m.run == nil {
		m.flash = "no run yet: there is nothing to export"
		return nil
	}
	svc, ctx, id := m.svc, m.ctx, m.run.ID()
	return func() tea.Msg {
		p, n, err := svc.ExportFile(ctx, id, path)
		return exportedMsg{path: p, events: n, err: err}
	}
}

// ago says how long before now t was, briefly.
func ago(now, t time.Time) string {
	d := now.Sub(t)
	switch {
	case d < time.Minute:
		return "just now"
	case d < time.Hour:
		return fmt.Sprintf("%dm ago", int(d.Minutes()))
	case d < 48*time.Hour:
		return fmt.Sprintf("%dh ago", int(d.Hours()))
	}
	return t.Local().Format("2006-01-02")
}

// lineage says where a run came from, for the /resume picker ("" : a run
// of its own).
func lineage(n app.RunNode) string {
	switch {
	case n.ParentCall != "":
		return "task " + n.ParentCall + " of " + n.ParentRun + " · "
	case n.ParentRun != "":
		id := n.ParentCheckpoint
		if len(id) > 12 {
			id = id[:12]
		}
		return "fork of " + n.ParentRun + " @" + id + " · "
	}
	return ""
}
