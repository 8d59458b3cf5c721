package tui

import (
	"fmt"
	"strings"

	tea "charm.land/bubbletea/v2"
)

func (m *model) slash(name, args string) tea.Cmd {
	if !strings.HasPrefix(name, "/") {
		name = "/" + name
	}
	switch name {
	case "/help":
		m.overlay = overlayHelp
	case "/context":
		m.openContext()
	case "/compact":
		return m.compact()
	case "/checkpoints":
		return m.openCheckpoints()
	case "/rewind":
		return m.openRewind()
	case "/new":
		if m.phase != phaseIdle {
			m.flash = "a run is in progress: Esc interrupts it first"
			return nil
		}
		m.tr = newTranscript(m.th, m.renderDiff)
		if m.run != nil {
			m.tr.notice("a new run starts with your next message; run %s stays resumable: agent resume %s", m.run.ID(), m.run.ID())
			m.run.Close()
			m.run = nil
		}
	case "/quit", "/exit":
		return m.quit()
	case "/diff":
		return m.openDiff()
	case "/approvals":
		return m.openPicker(pickGrants)
	case "/resume":
		return m.openPicker(pickRuns)
	case "/export":
		return m.export(strings.TrimSpace(args))
	case "/mode":
		return m.modeCommand(args)
	case "/model":
		return m.modelCommand(args)
	case "/status":
		m.showStatus()
	case "/budget":
		return m.budgetCommand(strings.TrimSpace(args))
	default:
		m.flash = fmt.Sprintf("unknown command %s: /help lists them", name)
	}
	return nil
}

func orNone(s string) string {
	if s == "" {
		return "none yet"
	}
	return s
}
