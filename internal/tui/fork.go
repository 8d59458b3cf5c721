package tui

// Fork from here (issue 22): from the rewind list (f on a message) or the
// checkpoint drawer (f on a checkpoint), a new run whose conversation and
// files are those of that checkpoint, in this workspace (agent fork --here):
// the present state is checkpointed first, so the fork is undone like a
// rollback; the run it came from stays resumable. The session goes on in
// the fork.

import (
	"fmt"

	tea "charm.land/bubbletea/v2"

	"agent/internal/app"
	"agent/internal/event"
	"agent/internal/tui/theme"
)

// forkDoneMsg: a fork ended; on failure, back is the run forked from,
// reopened.
type forkDoneMsg struct {
	fork    *app.Fork
	run     *app.Run
	history []event.Event
	err     error
	back    *app.Run
}

// forkFrom forks the session's run at checkpoint cp, here.
func (m *model) forkFrom(cp string) tea.Cmd {
	m.overlay = overlayNone
	switch {
	case m.phase != phaseIdle || m.run == nil:
		m.flash = "a run is in progress: Esc interrupts it first"
		return nil
	case cp == "":
		m.flash = "no checkpoint since this message (no file changed after it): nothing to fork from; rewind instead"
		return nil
	}
	parent := m.run
	m.run, m.phase = nil, phaseStarting
	svc, ctx, pid := m.svc, m.ctx, parent.ID()
	return func() tea.Msg {
		parent.Close() // the fork takes the parent's lock while it puts the files back
		fail := func(err error) tea.Msg {
			back, _, rerr := svc.OpenRunHistory(ctx, pid)
			if rerr != nil {
				err = fmt.Errorf("%w; and run %s could not be reopened: %v (agent resume %s)", err, pid, rerr, pid)
			}
			return forkDoneMsg{err: err, back: back}
		}
		fk, err := svc.Home().PrepareFork(ctx, cp, app.ForkOptions{Here: true})
		if err != nil {
			return fail(err)
		}
		r, err := svc.StartFork(ctx, fk, nil)
		if err != nil {
			fk.Discard()
			return fail(err)
		}
		hist, err := svc.Home().Events(ctx, r.ID())
		return forkDoneMsg{fork: fk, run: r, history: hist, err: err}
	}
}

// forked moves the session to the fork and says how to undo it.
func (m *model) forked(d forkDoneMsg) {
	m.phase = phaseIdle
	if d.run == nil {
		m.run = d.back
		m.tr.add(&entry{kind: itemError, text: "fork failed: " + d.err.Error()})
		return
	}
	m.run = d.run
	m.tr = newTranscript(m.th, m.renderDiff)
	m.subs = subagents{}
	m.orient()
	for _, ev := range d.history {
		m.tr.apply(ev)
		m.pastChild(ev)
	}
	f := d.fork
	m.tr.notice("%s forked run %s at checkpoint %s, here: this is run %s, with the files and the conversation of that instant; "+
		"run %s stays resumable (agent resume %s). Undo the fork's files with: agent rollback %s (or ↶ in ctrl+x k). "+
		"For a fork in its own git worktree instead: agent fork %s",
		theme.GlyphUndo, f.ParentRun, short(f.Checkpoint), f.RunID, f.ParentRun, f.ParentRun, f.Before, f.Checkpoint)
	if d.err != nil {
		m.tr.warn("the fork's journal could not be read back: %v", d.err)
	}
}
