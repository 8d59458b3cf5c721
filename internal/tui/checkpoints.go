package tui

import (
	tea "charm.land/bubbletea/v2"

	"agent/internal/app"
	"agent/internal/tui/drawer"
)

// checkpointsMsg carries the run's checkpoints into the drawer.
type checkpointsMsg struct {
	list []drawer.Checkpoint
	err  error
}

// previewMsg carries a checkpoint's diff to the newest state.
type previewMsg struct{ id, diff string }

// openCheckpoints opens the drawer and loads the run's checkpoints, each
// with the lines its call added and removed.
func (m *model) openCheckpoints() tea.Cmd {
	m.overlay = overlayCheckpoints
	id := m.runID()
	if id == "" {
		m.cpDrawer.SetCheckpoints(nil)
		return nil
	}
	home, ctx := m.svc.Home(), m.ctx
	tools := map[string]string{}
	for cid, e := range m.tr.cards {
		tools[cid] = e.tool
	}
	return func() tea.Msg {
		rows, err := home.Checkpoints(ctx, id, app.CheckpointOptions{Counts: true})
		if err != nil {
			return checkpointsMsg{err: err}
		}
		out := make([]drawer.Checkpoint, 0, len(rows))
		for _, c := range rows {
			tool := c.Tool
			if t, ok := tools[c.CallID]; ok {
				tool = t
			}
			out = append(out, drawer.Checkpoint{ID: c.ID, Step: c.Step, CallID: c.CallID, Tool: tool,
				Kind: c.Kind, Files: c.Files, Time: c.Created, Added: c.Added, Removed: c.Removed})
		}
		return checkpointsMsg{list: out}
	}
}

// preview computes what rolling back to a checkpoint would change: the
// diff from the run's newest checkpoint back to it.
func (m *model) preview(id string) tea.Cmd {
	run, home, ctx := m.runID(), m.svc.Home(), m.ctx
	return func() tea.Msg {
		pv, err := home.Preview(ctx, run, id)
		switch {
		case err != nil:
			return previewMsg{id: id, diff: "(no preview: " + err.Error() + ")"}
		case pv.UndoesRollback && pv.Patch == "":
			return previewMsg{id: id, diff: "(undoing the rollback changes no file)"}
		case pv.Newest && !pv.UndoesRollback:
			return previewMsg{id: id, diff: "(this is the newest checkpoint: nothing changed since)"}
		case pv.Patch == "":
			return previewMsg{id: id, diff: "(no file differs from the newest checkpoint)"}
		}
		return previewMsg{id: id, diff: pv.Patch}
	}
}

// rollback rolls the run back to a checkpoint: its files, its
// conversation, or both.
func (m *model) rollback(r drawer.RollbackMsg) tea.Cmd {
	if m.phase != phaseIdle || m.run == nil {
		m.flash = "a run is in progress: Esc interrupts it first"
		return nil
	}
	svc, run, ctx := m.svc, m.run, m.ctx
	return func() tea.Msg {
		res, err := svc.Rollback(ctx, r.ID, app.RollbackOptions{Files: r.Code, Conversation: r.Conversation}, run)
		return rollbackDoneMsg{res: res, err: err}
	}
}
