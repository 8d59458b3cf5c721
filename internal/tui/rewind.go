package tui

import (
	"fmt"

	tea "charm.land/bubbletea/v2"

	"agent/internal/app"
	"agent/internal/termtext"
	"agent/internal/tui/drawer"
	"agent/internal/tui/rewind"
	"agent/internal/tui/textutil"
	"agent/internal/tui/theme"
)

// Messages of the rewind list.
type (
	// promptsMsg carries the run's messages into the list.
	promptsMsg struct {
		list []rewind.Prompt
		err  error
	}
	// rewindDoneMsg: a rewind ended.
	rewindDoneMsg struct {
		req rewind.RewindMsg
		res app.RollbackResult
		err error
	}
)

// openRewind opens the list of the person's messages (esc esc, /rewind)
// and loads them with the files changed since each.
func (m *model) openRewind() tea.Cmd {
	m.overlay = overlayRewind
	m.rw = rewind.New(m.th)
	m.layout()
	id := m.runID()
	if id == "" {
		m.rw.SetPrompts(nil)
		return nil
	}
	home, ctx := m.svc.Home(), m.ctx
	return func() tea.Msg {
		ps, err := home.Prompts(ctx, id)
		out := make([]rewind.Prompt, 0, len(ps))
		for _, p := range ps {
			out = append(out, rewind.Prompt{Seq: p.Seq, Text: foldAttachments(p.Text), Time: p.Time.Local(), Files: p.Files, Checkpoint: p.Checkpoint})
		}
		return promptsMsg{list: out, err: err}
	}
}

// rewindUpdate handles the rewind list's messages; ok is false for any
// other message.
func (m *model) rewindUpdate(msg tea.Msg) (tea.Cmd, bool) {
	switch msg := msg.(type) {
	case promptsMsg:
		if m.rw != nil {
			m.rw.SetPrompts(msg.list)
		}
		if msg.err != nil {
			m.flash = "rewind: " + msg.err.Error()
		}
		return nil, true
	case rewind.CloseMsg:
		m.overlay = overlayNone
		return nil, true
	case rewind.CheckpointsMsg:
		return m.openCheckpoints(), true
	case rewind.RewindMsg:
		if msg.Target == rewind.Fork {
			return m.forkFrom(msg.Checkpoint), true
		}
		return m.rewindTo(msg), true
	case drawer.ForkMsg:
		return m.forkFrom(msg.ID), true
	case forkDoneMsg:
		m.forked(msg)
		return nil, true
	case rewindDoneMsg:
		m.rewound(msg)
		return nil, true
	}
	return nil, false
}

// rewindTo rolls the run back to just before a message of the person's.
func (m *model) rewindTo(r rewind.RewindMsg) tea.Cmd {
	if m.phase != phaseIdle || m.run == nil {
		m.flash = "a run is in progress: Esc interrupts it first"
		return nil
	}
	svc, run, ctx := m.svc, m.run, m.ctx
	opt := app.RollbackOptions{Files: r.Target != rewind.Conversation, Conversation: r.Target != rewind.Code}
	return func() tea.Msg {
		res, err := svc.Rewind(ctx, run, r.Seq, opt)
		return rewindDoneMsg{req: r, res: res, err: err}
	}
}

// rewound says what a rewind did; after a rewind of the conversation the
// message is back in the composer, to edit and send again.
func (m *model) rewound(d rewindDoneMsg) {
	m.overlay = overlayNone
	what := textutil.Shorten(termtext.OneLine(d.req.Text), 60)
	switch {
	case d.err != nil:
		m.tr.add(&entry{kind: itemError, text: "rewind failed: " + d.err.Error()})
		return
	case d.res.Incomplete():
		m.tr.add(&entry{kind: itemError, text: fmt.Sprintf("rewind incomplete: %d paths are not as they were (move them out of the way and rewind again):\n%s",
			len(d.res.NotRestored), d.res.NotRestoredText())})
	}
	files := fmt.Sprintf("%d files restored", len(d.res.Files))
	if len(d.res.Files) == 1 {
		files = "1 file restored"
	}
	switch d.req.Target {
	case rewind.Code:
		m.tr.notice("%s rewound the files to just before %q: %s; %s undo it from k in the rewind list", theme.GlyphUndo, what, files, theme.GlyphUndo)
	case rewind.Conversation:
		m.tr.notice("%s rewound the conversation to just before %q; the message is back in the composer", theme.GlyphUndo, what)
	default:
		m.tr.notice("%s rewound the files and the conversation to just before %q: %s; the message is back in the composer", theme.GlyphUndo, what, files)
	}
	if d.req.Target != rewind.Code && m.input.Empty() {
		m.input.SetValue(d.req.Text)
	}
}
