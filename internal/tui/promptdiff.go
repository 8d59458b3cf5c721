package tui

import (
	tea "charm.land/bubbletea/v2"

	"agent/internal/tui/approve"
	"agent/internal/tui/diffview"
	"agent/internal/tui/textutil"
)

// The approval prompt's f: the diff being approved over the whole screen,
// in the diff view (t split, ]/[ hunks, scrolling); esc or q goes back to
// the prompt, still undecided. The prompt's keys do not reach it while it
// is open, so no key of the view can decide the call.

// promptDiffID tells this view's messages from the /diff view's.
const promptDiffID = "prompt-diff"

// openPromptDiff shows the prompt's diff fullscreen.
func (m *model) openPromptDiff(msg approve.FullscreenMsg) tea.Cmd {
	m.overlay = overlayDiff
	m.promptDiff = true
	m.diff = diffview.New(msg.Diff, diffview.Options{Theme: m.th, ID: promptDiffID})
	m.diff.SetSize(m.width, max(3, m.height-2))
	return m.diff.Init()
}

// promptDiffOpen reports whether the prompt's diff covers the screen.
func (m *model) promptDiffOpen() bool { return m.promptDiff && m.overlay == overlayDiff }

// promptDiffBottom is the line under the fullscreen diff, in place of the
// prompt.
func (m *model) promptDiffBottom() string {
	return textutil.Fit(m.th.WarnText.Render("approval waiting")+m.th.Faint.Render(" · esc back to the prompt to decide"), m.width)
}
