package tui

import (
	tea "charm.land/bubbletea/v2"

	"agent/internal/tui/diffview"
	"agent/internal/tui/textutil"
)

// diffMsg carries the run's changes so far into the /diff overlay.
type diffMsg struct {
	patch string
	note  string // why there is no patch, when there is none
}

// diffID tells the /diff view's messages from other views'.
const diffID = "run-diff"

// openDiff shows the run's changes so far: the diff from the state before
// its first checkpoint to its newest one.
func (m *model) openDiff() tea.Cmd {
	id := m.runID()
	if id == "" {
		m.flash = "no run yet: nothing has changed"
		return nil
	}
	m.overlay = overlayDiff
	m.diff, m.promptDiff = nil, false
	home, ctx := m.svc.Home(), m.ctx
	return func() tea.Msg {
		p, changed, err := home.Changes(ctx, id)
		switch {
		case err != nil:
			return diffMsg{note: "no diff: " + err.Error()}
		case !changed:
			return diffMsg{note: "the run has changed no file yet"}
		case p == "":
			return diffMsg{note: "no file differs from before the run's first change"}
		}
		return diffMsg{patch: p}
	}
}

// onDiff fills the overlay.
func (m *model) onDiff(msg diffMsg) tea.Cmd {
	if m.overlay != overlayDiff {
		return nil
	}
	if msg.patch == "" {
		m.overlay = overlayNone
		m.flash = msg.note
		return nil
	}
	m.diff = diffview.New(msg.patch, diffview.Options{Theme: m.th, ID: diffID})
	m.diff.SetSize(m.width, max(3, m.height-1))
	return m.diff.Init()
}

// diffKey handles a key while /diff is open: esc and q close it, the rest
// is the view's.
func (m *model) diffKey(k tea.KeyPressMsg) tea.Cmd {
	if s := k.String(); s == "esc" || s == "q" {
		m.overlay, m.diff, m.promptDiff = overlayNone, nil, false
		return nil
	}
	if m.diff == nil {
		return nil
	}
	var cmd tea.Cmd
	m.diff, cmd = m.diff.Update(k)
	return cmd
}

// diffView is the overlay: the diff view over the whole screen but the
// status line, or a line saying it is on its way.
func (m *model) diffView() string {
	if m.diff == nil {
		return textutil.Fit(m.th.Dim.Render("computing the run's changes…"), m.width)
	}
	return m.diff.View()
}
