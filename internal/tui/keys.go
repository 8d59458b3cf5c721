package tui

import (
	"time"

	tea "charm.land/bubbletea/v2"
)

// quitWindow: a second ctrl+c within it quits.
const quitWindow = 2 * time.Second

// quitNotice is the flash shown while a second ctrl+c would quit.
const quitNotice = "press ctrl+c again to quit"

// quitExpiredMsg: the window opened by the ctrl+c at at has closed.
type quitExpiredMsg struct{ at time.Time }

func (m *model) onKey(k tea.KeyPressMsg) (tea.Model, tea.Cmd) {
	key := k.String()
	// ctrl+c twice quits, from anywhere.
	if key == "ctrl+c" {
		if !m.ctrlC.IsZero() && m.now().Sub(m.ctrlC) < quitWindow {
			return m, m.quit()
		}
		at := m.now()
		m.ctrlC = at
		m.flash = quitNotice
		// the notice goes when its window does: a later ctrl+c asks again
		return m, tea.Tick(quitWindow, func(time.Time) tea.Msg { return quitExpiredMsg{at: at} })
	}
	m.ctrlC, m.flash = time.Time{}, "" // any other key: the last notice has been seen
	if m.prefixX {
		m.prefixX = false
		return m, m.drawerKey(key)
	}
	if m.asking() && !m.promptDiffOpen() {
		var cmd tea.Cmd
		m.approve, cmd = m.approve.Update(k)
		return m, cmd
	}
	if m.overlay != overlayNone {
		return m, m.overlayKey(k)
	}
	switch key {
	case "ctrl+x":
		m.prefixX = true
		return m, nil
	case "shift+tab":
		if !m.input.PopupOpen() {
			return m, m.cycleMode()
		}
	case "pgup", "pgdown", "ctrl+o", "alt+up", "alt+down":
		_, cmd := m.tr.view.Update(k)
		return m, cmd
	case "home", "end":
		if m.input.Empty() {
			_, cmd := m.tr.view.Update(k)
			return m, cmd
		}
	case "?":
		if m.input.Empty() {
			m.overlay = overlayHelp
			return m, nil
		}
	}
	if key == "alt+esc" && m.phase == phaseIdle {
		// two Esc bytes read together (a fast double press)
		return m, m.openRewind()
	}
	cmd := m.updateInput(k)
	if key == "esc" && !m.input.Consumed() {
		return m, m.escape()
	}
	return m, cmd
}

// escape interrupts the step being driven; Esc Esc, when nothing runs,
// opens the rewind list (the person's messages).
func (m *model) escape() tea.Cmd {
	if m.phase == phaseRunning && m.run != nil {
		m.run.Interrupt()
		m.flash = "interrupting…"
		return nil
	}
	if !m.lastEsc.IsZero() && m.now().Sub(m.lastEsc) < 500*time.Millisecond {
		m.lastEsc = time.Time{}
		return m.openRewind()
	}
	m.lastEsc = m.now()
	return nil
}

// drawerKey handles the key after ctrl+x.
func (m *model) drawerKey(key string) tea.Cmd {
	switch key {
	case "c":
		m.openContext()
	case "k":
		return m.openCheckpoints()
	case "m":
		m.mouse = !m.mouse
	case "s":
		m.openChild()
	}
	return nil
}

// overlayKey hands a key to the open drawer or the help.
func (m *model) overlayKey(k tea.KeyPressMsg) tea.Cmd {
	var cmd tea.Cmd
	switch m.overlay {
	case overlayHelp:
		m.help, cmd = m.help.Update(k)
	case overlayContext:
		m.ctxDrawer, cmd = m.ctxDrawer.Update(k)
	case overlayCheckpoints:
		m.cpDrawer, cmd = m.cpDrawer.Update(k)
	case overlayPicker:
		m.picker, cmd = m.picker.Update(k)
	case overlayDiff:
		cmd = m.diffKey(k)
	case overlayRewind:
		m.rw, cmd = m.rw.Update(k)
	case overlayChild:
		cmd = m.childKey(k)
	}
	return cmd
}

// quit ends the session: a run being driven is interrupted first (it stays
// resumable), then the program exits.
func (m *model) quit() tea.Cmd {
	// A prompt still open stays undecided: the interrupt below ends the
	// wait (the run's context), nothing is journaled for it, and a resume
	// asks again. Quitting is not the person's denial.
	for id := range m.asks {
		m.approve.Drop(id)
		delete(m.asks, id)
	}
	if m.phase == phaseRunning || m.phase == phaseStarting {
		m.phase = phaseQuitting
		if m.run != nil {
			m.run.Interrupt()
		}
		m.flash = "quitting: stopping the run…"
		return nil
	}
	m.phase = phaseQuitting
	return tea.Quit
}
