package tui

// Subagents in the transcript: each child run of a task call is a live row
// nested under the call's card (status, elapsed time, tokens, cost, what it
// does now), and keeps a transcript of its own that ctrl+x s opens
// (childview.go). Children's events arrive as protocol.UpdateChild.

import (
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"

	"agent/internal/budget"
	"agent/internal/event"
	"agent/internal/pricing"
	"agent/internal/tui/activity"
	"agent/internal/tui/transcript"
)

// subagent is one child run as the session has seen it.
type subagent struct {
	run, callID string // the child's run id, the task call that started it
	card        string // the call id of the top-level card it shows under
	kind, desc  string
	depth       int
	started     time.Time // when the session saw it start (zero: not yet)
	ended       time.Time
	status      transcript.Status
	doing       string       // the tool it runs now, if any
	spend       budget.Tally // its usage, for tokens and cost
	tr          *transcriptState
	shown       string // the detail last drawn (a sync only when it changes)
	// load: its events are in its journal only (a run reopened); loading
	// asked for it already
	load, loading bool
}

// subagents are the children seen in this session, in the order they
// started.
type subagents struct {
	byRun map[string]*subagent
	order []*subagent
	// ticking: a childTickMsg is on its way (one a second while a child
	// runs, so rows advance even while a prompt stops the activity line)
	ticking bool
}

// childTickMsg redraws the running children's rows.
type childTickMsg struct{}

// sub returns the child run's entry, made on first sight.
func (m *model) sub(run string) *subagent {
	if m.subs.byRun == nil {
		m.subs.byRun = map[string]*subagent{}
	}
	s := m.subs.byRun[run]
	if s == nil {
		s = &subagent{run: run, status: transcript.StatusPending, tr: newTranscript(m.th, m.renderDiff)}
		m.subs.byRun[run] = s
		m.subs.order = append(m.subs.order, s)
	}
	return s
}

// onTaskStarted registers the child a task call starts: under the call's
// card, or (a grandchild) under the card its parent child shows under.
func (m *model) onTaskStarted(parentRun string, d *event.TaskStartedData) {
	s := m.sub(d.ChildRun)
	s.callID, s.kind, s.desc, s.depth = d.CallID, string(d.Kind), d.Description, max(d.Depth, 1)
	s.card = d.CallID
	if p := m.subs.byRun[parentRun]; p != nil && m.tr.cards[d.CallID] == nil {
		s.card = p.card
	}
	if e := m.tr.cards[s.card]; e != nil && e.status == cardPending {
		e.status = cardRunning // its child runs
	}
	m.syncChildren(s.card)
}

// onChild folds an event of a child run.
func (m *model) onChild(ev event.Event) {
	if d, ok := ev.Data.(*event.TaskStartedData); ok { // a grandchild
		m.onTaskStarted(ev.RunID, d)
	}
	s := m.sub(ev.RunID)
	if s.load {
		return // its journal, being read, has this event too
	}
	if rs, ok := ev.Data.(*event.RunStartedData); ok && s.card == "" {
		s.callID, s.card, s.depth = rs.ParentCall, rs.ParentCall, 1
	}
	s.tr.apply(ev)
	s.spend.Apply(ev)
	now := m.now()
	switch d := ev.Data.(type) {
	case *event.RunStartedData, *event.ResumeData:
		if s.started.IsZero() {
			s.started = now
		}
		s.ended, s.status = time.Time{}, transcript.StatusRunning
	case *event.ModelRequestData:
		s.doing = ""
	case *event.ToolCallData:
		s.doing = strings.TrimSpace(d.Name + " " + summarize(d.Name, d.Arguments))
	case *event.ToolResultData:
		s.doing = ""
	case *event.RunFinishedData:
		s.ended, s.doing = now, ""
		s.status = childStatus(d.Status)
	}
	m.syncChildren(s.card)
}

// childStatus is how a child's row reads a run's final status.
func childStatus(st event.Status) transcript.Status {
	switch st {
	case event.StatusCompleted:
		return transcript.StatusOK
	case event.StatusAwaitingApproval:
		return transcript.StatusAwaitingApproval
	case event.StatusInterrupted:
		return transcript.StatusInterrupted
	case event.StatusRunning:
		return transcript.StatusRunning
	default:
		return transcript.StatusError
	}
}

// childAsks marks the child whose call waits for the person (on is false
// once it is decided).
func (m *model) childAsks(run string, on bool) {
	s := m.subs.byRun[run]
	if s == nil || !s.ended.IsZero() {
		return
	}
	s.status = transcript.StatusRunning
	if on {
		s.status = transcript.StatusAwaitingApproval
	}
	m.syncChildren(s.card)
}

// taskDone settles the children of a task call whose result came while
// they still looked alive (a run reopened from its journal).
func (m *model) taskDone(callID string, failed bool) {
	for _, s := range m.subs.order {
		if s.callID == callID && s.ended.IsZero() {
			s.ended, s.status = m.now(), transcript.StatusOK
			if failed {
				s.status = transcript.StatusError
			}
			m.syncChildren(s.card)
		}
	}
}

// tickChildren redraws the rows of running children whose elapsed time
// changed (called after every update); it returns the next second's tick
// while a child runs and none is on its way.
func (m *model) tickChildren(msg tea.Msg) tea.Cmd {
	if _, ok := msg.(childTickMsg); ok {
		m.subs.ticking = false
	}
	m.redrawChildren()
	loads := m.loadChildren()
	if m.subs.ticking || !m.childrenRunning() {
		return loads
	}
	m.subs.ticking = true
	return tea.Batch(loads, tea.Tick(time.Second, func(time.Time) tea.Msg { return childTickMsg{} }))
}

// redrawChildren syncs the cards whose running children's rows changed.
func (m *model) redrawChildren() {
	cards := map[string]bool{}
	for _, s := range m.subs.order {
		if s.ended.IsZero() && !s.started.IsZero() && s.detail(m) != s.shown {
			cards[s.card] = true
		}
	}
	for c := range cards {
		m.syncChildren(c)
	}
}

// childrenRunning reports whether a child still runs (the activity line
// keeps ticking for it).
func (m *model) childrenRunning() bool {
	for _, s := range m.subs.order {
		if s.ended.IsZero() && !s.started.IsZero() {
			return true
		}
	}
	return false
}

// syncChildren redraws the card's children rows.
func (m *model) syncChildren(card string) {
	e := m.tr.cards[card]
	if e == nil {
		return
	}
	e.children = e.children[:0]
	for _, s := range m.subs.order {
		if s.card != card {
			continue
		}
		s.shown = s.detail(m)
		e.children = append(e.children, transcript.ChildRow{Depth: s.depth, Kind: s.kind, Description: s.label(), Status: s.status, Detail: s.shown})
	}
	m.tr.sync(e)
}

// label is the child's description, or its run id before it is known.
func (s *subagent) label() string {
	if s.desc != "" {
		return s.desc
	}
	return "run " + short(s.run)
}

// detail is the row's "12s · 3.4k tokens · $0.0123 · read_file main.go".
func (s *subagent) detail(m *model) string {
	var parts []string
	if !s.started.IsZero() {
		end := s.ended
		if end.IsZero() {
			end = m.now()
		}
		parts = append(parts, activity.Duration(end.Sub(s.started)))
	}
	if n := s.spend.Tokens(); n > 0 {
		parts = append(parts, compact(n)+" tokens")
		if usd, ok := s.spend.Cost(m.svc.Prices()); ok {
			parts = append(parts, pricing.FormatUSD(usd))
		}
	}
	if s.doing != "" && s.ended.IsZero() {
		parts = append(parts, oneLine(s.doing, 60))
	}
	return strings.Join(parts, " · ")
}

// parentEvent notes what the driven run's own events say of its children:
// a task call started one, a task call's result settles them.
func (m *model) parentEvent(ev event.Event) {
	switch d := ev.Data.(type) {
	case *event.TaskStartedData:
		m.onTaskStarted(ev.RunID, d)
	case *event.ToolResultData:
		if e := m.tr.cards[d.CallID]; e != nil && len(e.children) > 0 {
			m.taskDone(d.CallID, d.Status != event.ResultOK)
		}
	}
}

// pastChild notes a child of a reopened run's journal: its row is filled
// from its own journal (loadChildren).
func (m *model) pastChild(ev event.Event) {
	switch d := ev.Data.(type) {
	case *event.TaskStartedData:
		m.onTaskStarted(ev.RunID, d)
		m.subs.byRun[d.ChildRun].load = true
	case *event.ToolResultData:
		m.parentEvent(ev)
	}
}

// childLoadedMsg carries a child run's journal.
type childLoadedMsg struct {
	run string
	evs []event.Event
}

// loadChildren reads the journals of the children a reopened run names.
func (m *model) loadChildren() tea.Cmd {
	var cmds []tea.Cmd
	for _, s := range m.subs.order {
		if !s.load || s.loading {
			continue
		}
		s.loading = true
		home, ctx, run := m.svc.Home(), m.ctx, s.run
		cmds = append(cmds, func() tea.Msg {
			evs, _ := home.Events(ctx, run) // none: the row says what the parent knows
			return childLoadedMsg{run: run, evs: evs}
		})
	}
	return tea.Batch(cmds...)
}

// childLoaded folds a child's journal into its row and transcript, with
// the times the journal has.
func (m *model) childLoaded(msg childLoadedMsg) {
	s := m.subs.byRun[msg.run]
	if s == nil {
		return
	}
	s.load = false
	for _, ev := range msg.evs {
		s.tr.apply(ev)
		s.spend.Apply(ev)
		if s.started.IsZero() {
			s.started = ev.Time
		}
		if d, ok := ev.Data.(*event.RunFinishedData); ok {
			s.ended, s.status = ev.Time, childStatus(d.Status)
		}
	}
	if s.ended.IsZero() && len(msg.evs) > 0 {
		// not finished: interrupted with its parent; a resume goes on
		s.ended, s.status = msg.evs[len(msg.evs)-1].Time, transcript.StatusInterrupted
	}
	m.syncChildren(s.card)
}
