package tui

import (
	"fmt"

	"agent/internal/event"
	"agent/internal/protocol"
	"agent/internal/tui/approve"
)

// onAsk queues an approval request the run waits on.
func (m *model) onAsk(req protocol.ApprovalRequest) {
	if c := m.tr.cards[req.CallID]; c != nil {
		c.status = cardAwaiting // the prompt shows the diff; the card gets it with the result
		m.tr.sync(c)
	}
	if req.ChildRun != "" {
		m.childAsks(req.ChildRun, true)
	}
	m.askSeq++
	id := fmt.Sprintf("%s#%d", req.CallID, m.askSeq)
	m.asks[id] = req
	risk := approve.RiskExec
	if req.Risk == event.RiskWrite {
		risk = approve.RiskWrite
	}
	label := "this call only: it runs outside the OS sandbox"
	if !req.Escalation {
		label = fmt.Sprintf("for this run: adds the rule %s until %s", req.Grant, req.GrantExpires.Local().Format("15:04"))
	}
	m.approve.Push(approve.Request{ID: id, RunID: req.RunID, Step: req.Step, CallID: req.CallID, Tool: req.Tool,
		Risk: risk, Summary: summarize(req.Tool, req.Arguments), Arguments: req.Arguments, Diff: req.Diff,
		Reason: req.Reason, GrantLabel: label, SuggestRule: suggestRule(req), Subagent: req.Subagent})
}

// decided answers the approval the person decided: the run's Decide, the
// one command every frontend answers with.
func (m *model) decided(d approve.DecisionMsg) {
	req, ok := m.asks[d.ID]
	if !ok {
		return
	}
	delete(m.asks, d.ID)
	if req.ChildRun != "" {
		m.childAsks(req.ChildRun, false)
	}
	dec := protocol.DenyCall("")
	switch d.Choice {
	case approve.AllowOnce:
		dec = protocol.AllowOnce()
	case approve.AllowRun:
		dec = protocol.AllowRun()
		dec.Rule = d.Rule
	case approve.DenyWithNote:
		dec = protocol.DenyCall(d.Note)
	}
	if c := m.tr.cards[req.CallID]; c != nil && c.status == cardAwaiting {
		c.status = cardPending
		if dec.Verdict == protocol.Deny {
			c.status = cardDenied
		}
		m.tr.sync(c)
	}
	if m.run == nil || m.run.ID() != req.RunID {
		return
	}
	if err := m.run.Decide(m.ctx, req.CallID, dec); err != nil {
		m.flash = "approval: " + err.Error()
		if dec.Rule != "" {
			m.onAsk(req) // the rule was refused: the call still waits, ask again
		}
	}
}
