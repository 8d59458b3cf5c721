package tui

import (
	"context"
	"errors"
	"sync"

	tea "charm.land/bubbletea/v2"

	"agent/internal/agent"
	"agent/internal/protocol"
)

// updateMsg carries an app update into the program.
type updateMsg struct{ u protocol.Update }

// askMsg carries an approval request into the program; the answer goes back
// on reply (buffered: the program never blocks on it).
type askMsg struct {
	req   protocol.ApprovalRequest
	reply chan agent.ApprovalDecision
}

// warnMsg is a warning of the service, for the person.
type warnMsg struct{ text string }

// bridge is the approval Prompter of the service: it hands each request to
// the program and waits for the person's answer or for the run's context to
// end (an interrupt).
type bridge struct {
	mu sync.Mutex
	p  *tea.Program
}

func newBridge() *bridge { return &bridge{} }

func (b *bridge) attach(p *tea.Program) {
	b.mu.Lock()
	b.p = p
	b.mu.Unlock()
}

func (b *bridge) detach() {
	b.mu.Lock()
	b.p = nil
	b.mu.Unlock()
}

func (b *bridge) send(msg tea.Msg) bool {
	b.mu.Lock()
	p := b.p
	b.mu.Unlock()
	if p == nil {
		return false
	}
	p.Send(msg)
	return true
}

func (b *bridge) warn(text string) { b.send(warnMsg{text}) }

var errNoTerminal = errors.New("the terminal UI has closed: nobody can decide the call")

// Ask implements approval.Prompter.
func (b *bridge) Ask(ctx context.Context, req protocol.ApprovalRequest) (agent.ApprovalDecision, error) {
	reply := make(chan agent.ApprovalDecision, 1)
	if !b.send(askMsg{req: req, reply: reply}) {
		return agent.ApprovalDecision{}, errNoTerminal
	}
	select {
	case d := <-reply:
		return d, nil
	case <-ctx.Done():
		return agent.ApprovalDecision{}, ctx.Err()
	}
}
