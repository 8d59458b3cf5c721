package tui

import (
	"fmt"

	tea "charm.land/bubbletea/v2"

	"agent/internal/event"
	"agent/internal/protocol"
	"agent/internal/tui/drawer"
	"agent/internal/tui/textutil"
)

// openContext shows the context report of the last model request.
func (m *model) openContext() {
	m.ctxDrawer.SetContext(drawerContext(m.tr, m.svc.Settings().Window))
	m.overlay = overlayContext
}

// drawerContext is what the context drawer shows of the transcript's last
// report (and of a compaction journaled after it).
func drawerContext(t *transcriptState, window int) drawer.Context {
	c := t.context
	if c.Window > 0 {
		window = c.Window
	}
	dc := drawer.Context{Step: t.lastStep, Budget: c.Budget, Window: window, Reserve: c.Reserve, Margin: c.Margin,
		Ratio: c.Ratio, Total: c.TotalTokens, PrefixHash: c.PrefixHash, Compacted: c.Compacted}
	if c.Counting != "" {
		dc.Counting = protocol.CountingWords(c)
	}
	for _, l := range c.Layers {
		dl := drawer.Layer{ID: string(l.ID), Name: l.Name, Budget: l.Budget, Tokens: l.Tokens, Items: l.Items, Note: l.Note}
		for _, e := range l.Entries {
			if e.Reason != "" {
				dl.Cuts = append(dl.Cuts, drawer.Cut{Reason: protocol.CutWords(e.Reason), What: entryWhat(e), Before: e.TokensBefore, After: e.Tokens})
			}
		}
		if l.ID == c.FirstChanged && l.ID != "" {
			dc.FirstChanged = string(l.ID) + " " + l.Name
		}
		dc.Layers = append(dc.Layers, dl)
	}
	if s := t.since; s != nil {
		dc.Since = fmt.Sprintf("compacted since this request (seq %d, %s): %s → %s tokens; the next request is built from it",
			t.sinceSeq, s.Trigger, textutil.Count(s.TokensBefore), textutil.Count(s.TokensAfter))
	}
	return dc
}

// entryWhat names an entry: count and kind, ref, seq range.
func entryWhat(e event.ContextItem) string {
	s := protocol.ItemWords(e)
	switch {
	case e.FirstSeq > 0 && e.LastSeq > e.FirstSeq:
		s += fmt.Sprintf(", seq %d–%d", e.FirstSeq, e.LastSeq)
	case e.FirstSeq > 0:
		s += fmt.Sprintf(", seq %d", e.FirstSeq)
	}
	return s
}

// compactDoneMsg: a /compact ended.
type compactDoneMsg struct {
	c   *event.CompactionData
	err error
}

// compact is /compact: with the run idle it compacts now (the compaction
// is journaled and shows in the transcript as the loop's would); while a
// turn runs it is asked for the next turn, as resume --compact does: the
// loop owns the run's state until the turn ends, and a compaction in the
// middle of a turn would change the request the model is answering.
func (m *model) compact() tea.Cmd {
	switch {
	case m.run == nil:
		m.tr.notice("nothing to compact yet: no run in this session")
		return nil
	case m.phase == phaseRunning:
		m.run.CompactNext()
		m.tr.notice("a turn is running: the context will be compacted before the first request of your next turn")
		return nil
	case m.phase != phaseIdle:
		m.flash = "busy: try /compact again in a moment"
		return nil
	}
	m.phase = phaseStarting // messages typed meanwhile are queued
	m.life.compacting = true
	m.flash = "compacting the context…"
	r, ctx := m.run, m.ctx
	return func() tea.Msg {
		c, err := r.Compact(ctx)
		return compactDoneMsg{c: c, err: err}
	}
}

func (m *model) onCompactDone(msg compactDoneMsg) tea.Cmd {
	quitting := m.quitting()
	m.phase = phaseIdle
	m.flash = ""
	m.life.compacting = false
	switch {
	case msg.err != nil:
		m.tr.add(&entry{kind: itemError, text: "compact: " + msg.err.Error()})
	case msg.c == nil:
		m.tr.notice("nothing to compact yet: the conversation is still short")
	default:
		// the transcript has the compaction's line from its event
		m.flash = fmt.Sprintf("compacted: %s → %s tokens", textutil.Count(msg.c.TokensBefore), textutil.Count(msg.c.TokensAfter))
	}
	if quitting {
		m.phase = phaseQuitting
		return tea.Quit
	}
	if len(m.queued) > 0 && m.run != nil {
		text := m.queued[0]
		m.queued = m.queued[1:]
		m.phase = phaseRunning
		return m.message(text)
	}
	return nil
}
