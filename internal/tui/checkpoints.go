package tui

import (
	"context"

	tea "charm.land/bubbletea/v2"

	"agent/internal/app"
	"agent/internal/event"
	"agent/internal/store"
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

// preview computes the diff from a checkpoint to the run's newest one.
func (m *model) preview(id string) tea.Cmd {
	run := m.runID()
	repo, st, ctx := m.svc.Checkpoints(), m.svc.Store(), m.ctx
	return func() tea.Msg {
		head, err := repo.Head(run)
		if err != nil {
			return previewMsg{id: id, diff: "(no preview: " + err.Error() + ")"}
		}
		if head.ID == id {
			// The newest checkpoint is the one a rollback took of the files
			// before it: its preview is what undoing that rollback brings back
			// (the files now are those of the rollback's target).
			if target := rolledBackTo(ctx, st, run, id); target != "" {
				p, err := repo.Patch(ctx, target, id)
				if err != nil {
					return previewMsg{id: id, diff: "(no preview: " + err.Error() + ")"}
				}
				if p == "" {
					p = "(undoing the rollback changes no file)"
				}
				return previewMsg{id: id, diff: p}
			}
			return previewMsg{id: id, diff: "(this is the newest checkpoint: nothing changed since)"}
		}
		p, err := repo.Patch(ctx, id, head.ID)
		if err != nil {
			return previewMsg{id: id, diff: "(no preview: " + err.Error() + ")"}
		}
		if p == "" {
			p = "(no file differs from the newest checkpoint)"
		}
		return previewMsg{id: id, diff: p}
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

// rolledBackTo returns the checkpoint a rollback restored when id is the
// checkpoint it took first ("undo rollback"), or "".
func rolledBackTo(ctx context.Context, st *store.Store, run, id string) string {
	evs, err := st.Events(ctx, run, 0)
	if err != nil {
		return ""
	}
	for i := len(evs) - 1; i >= 0; i-- {
		if d, ok := evs[i].Data.(*event.RollbackData); ok && d.Before == id {
			return d.CheckpointID
		}
	}
	return ""
}
