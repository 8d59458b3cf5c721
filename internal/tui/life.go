package tui

import (
	"fmt"
	"strconv"
	"time"

	tea "charm.land/bubbletea/v2"

	"agent/internal/protocol"
	"agent/internal/tui/activity"
)

// silentAfter is how long a model may send nothing before the line says so.
const silentAfter = 30 * time.Second

// life is the sign of life while something runs: the activity line, what
// the model adapter said of a retry, and when the model last sent anything.
type life struct {
	act        *activity.Model
	retry      *protocol.RetryNotice // the backoff under way, if any
	heard      time.Time             // the last update of the run
	compacting bool                  // a /compact runs
}

// onLive takes an update of the live kinds: a running command's output,
// a retry's backoff.
func (m *model) onLive(u protocol.Update) {
	switch {
	case u.Kind == protocol.UpdateOutput && u.Output != nil:
		if e := m.tr.cards[u.Output.CallID]; e != nil && e.status == cardRunning {
			e.live = u.Output.Tail
			m.tr.sync(e)
		}
	case u.Kind == protocol.UpdateRetry && u.Retry != nil:
		r := *u.Retry
		if r.At.IsZero() {
			r.At = m.now()
		}
		m.life.retry = &r
	}
}

// alive brings the activity line up to date after msg: what runs, for how
// long, the notice beside it; it returns the line's next tick while
// something runs (none when nothing does: no CPU while idle).
func (m *model) alive(msg tea.Msg) tea.Cmd {
	l := &m.life
	now := m.now()
	var cmd tea.Cmd
	switch msg := msg.(type) {
	case activity.TickMsg:
		cmd = l.act.Update(msg)
	case updateMsg:
		l.heard = now
		if msg.u.Kind != protocol.UpdateRetry {
			l.retry = nil // the model answered, or the run moved on
		}
	}
	st := m.activityNow()
	prev := l.act.State()
	if st.Kind != prev.Kind || st.Key != prev.Key {
		l.heard = now // a new request or call: silence counts from here
	}
	if c := l.act.Set(st); c != nil {
		cmd = c
	}
	switch {
	case st.Kind == activity.None:
		l.retry = nil
	case l.retry != nil && (st.Kind == activity.Thinking || st.Kind == activity.Writing):
		l.act.SetNotice(l.retry.Line(now), true)
	case (st.Kind == activity.Thinking || st.Kind == activity.Writing) && now.Sub(l.heard) >= silentAfter:
		l.act.SetNotice(fmt.Sprintf("the model has sent nothing for %s", activity.Duration(now.Sub(l.heard))), true)
	default:
		l.act.SetNotice("", false)
	}
	return cmd
}

// activityNow is what runs now, from the session's phase and the
// transcript; nothing while a call waits for the person.
func (m *model) activityNow() activity.State {
	switch {
	case m.phase == phaseQuitting, m.asking():
		return activity.State{}
	case m.phase == phaseStarting && m.life.compacting:
		return activity.State{Kind: activity.Compacting}
	case m.phase != phaseRunning && m.phase != phaseStarting:
		return activity.State{}
	}
	if e := m.tr.runningCard(); e != nil {
		label := e.summary
		if e.tool != "run_command" || label == "" {
			label = e.tool + " " + label
		}
		return activity.State{Kind: activity.Tool, Key: e.callID, Label: label}
	}
	step := strconv.Itoa(m.tr.lastStep)
	if m.tr.stream != nil {
		return activity.State{Kind: activity.Writing, Key: step}
	}
	return activity.State{Kind: activity.Thinking, Key: step}
}

// runningCard is the card whose call runs: a command that started, else
// the first journaled call still without a result (a tool runs it, or it
// waits its turn behind the one that does).
func (t *transcriptState) runningCard() *entry {
	var first *entry
	for i := len(t.entries) - 1; i >= 0; i-- {
		e := t.entries[i]
		if e.kind != itemCard {
			continue
		}
		if e.status == cardRunning {
			return e
		}
		if e.status == cardPending && e.seq > 0 && e.resultSeq == 0 {
			first = e
		}
	}
	return first
}
