package contextbuild

import (
	"fmt"

	"agent/internal/agent"
	"agent/internal/event"
)

// measure is the size of a request under a working compaction, kept per
// unit so that moving one boundary recounts only what it touches.
type measure struct {
	b        *Builder
	h        *history
	v        *view
	c        event.CompactionData
	reserved int // tools + L1 + L2 + L4: never cut
	mapTk    int // L5a
	sumTk    int // the summary message
	cost     []int
	l3start  int // index into h.units of the first of the last rounds
	newest   int // index of the unit after L2 (-1: none)
	// units[i] is unit i as recost rendered it under c, for render to
	// use instead of rendering it again.
	units []renderedUnit
	task  string // L4 (taskState), counted into reserved
	// the messages' tokens of L1, L2 and L4 (in reserved), and L5a's
	// message
	l1Tk, curTk, taskTk int
	mapMsg              string
}

// renderedUnit is a unit's messages and items under the boundaries of a
// compaction (what renderUnit reads of it).
type renderedUnit struct {
	msgs  []agent.Message
	items []item
	at    bounds
}

// bounds are the fields of a compaction that renderUnit reads.
type bounds struct {
	masked, superseded, cut int64
	cutTokens               int
}

func boundsOf(c *event.CompactionData) bounds {
	return bounds{masked: c.MaskedThrough, superseded: c.SupersededThrough, cut: c.CutThrough, cutTokens: c.CutTokens}
}

// rendered returns unit i under m.c, rendered by recost or now.
func (m *measure) rendered(i int) ([]agent.Message, []item) {
	if r := &m.units[i]; r.at == boundsOf(&m.c) && r.items != nil {
		return r.msgs, r.items
	}
	return m.b.renderUnit(m.h, m.h.units[i], &m.c, 0)
}

func (b *Builder) newMeasure(h *history, v *view) *measure {
	m := &measure{b: b, h: h, v: v, c: v.comp, newest: -1}
	// (msgTokens of a message of text s alone is textTokens(s) + 4)
	m.l1Tk = b.textTokens(slotL1, v.l1) + 4
	m.reserved = b.toolTk + m.l1Tk
	if h.current >= 0 {
		m.curTk = b.stateMsgTokens(h.st, h.current)
		m.reserved += m.curTk
	}
	if m.task = b.taskState(h); m.task != "" {
		m.taskTk = b.textTokens(slotTask, m.task) + 4
		m.reserved += m.taskTk
	}
	if v.refresh != nil && v.refresh.RepoMap != "" {
		m.mapMsg = repoMapMessage(v.refresh.RepoMap)
		m.mapTk = b.textTokens(slotMap, m.mapMsg) + 4
	}
	if m.c.Summary != "" {
		m.sumTk = b.textTokens(slotSummary, m.c.Summary) + 4
	}
	rounds := h.rounds()
	m.l3start = len(h.units)
	if len(rounds) > 0 {
		m.l3start = rounds[max(len(rounds)-RecentRounds, 0)]
	}
	if h.newestAfterCurrent() {
		m.newest = len(h.units) - 1
	}
	m.cost = make([]int, len(h.units))
	m.units = make([]renderedUnit, len(h.units))
	for i := range h.units {
		m.recost(i)
	}
	return m
}

func (m *measure) folded(i int) bool { return m.h.units[i].last <= m.c.FoldedThrough }

func (m *measure) recost(i int) {
	at := boundsOf(&m.c)
	r, ok := m.b.hist.unit(m.h, i, at)
	if !ok {
		msgs, items := m.b.renderUnit(m.h, m.h.units[i], &m.c, 0)
		r = renderedUnit{msgs: msgs, items: items, at: at}
		m.b.hist.keep(m.h, i, r)
	}
	// each message's tokens are its item's (a unit that cannot be sent
	// has no messages and items of 0 tokens)
	n := 0
	for _, it := range r.items {
		n += it.after
	}
	m.cost[i] = n
	m.units[i] = r
}

func (m *measure) recostAll() {
	for i := range m.h.units {
		m.recost(i)
	}
}

// total is the request's size without snippets (they take what is left).
func (m *measure) total() int {
	n := m.reserved + m.mapTk + m.sumTk
	first := -1
	for i, c := range m.cost {
		if !m.folded(i) {
			n += c
			if first < 0 && i != m.newest {
				first = i
			}
		}
	}
	if m.c.Summary == "" && first >= 0 && m.h.units[first].kind == unitRound {
		n += openingNoteTokens // render opens the conversation with a note
	}
	return n
}

// openingNoteTokens is about what render's opening note costs.
const openingNoteTokens = 28

// fixedFits fails when what is never cut does not fit the budget.
func (m *measure) fixedFits(bg budget) error {
	if m.reserved <= bg.b {
		return nil
	}
	cur := 0
	if m.h.current >= 0 {
		cur = m.b.msgTokens(m.h.st.Messages[m.h.current])
	}
	return &agent.Failure{Class: agent.ClassContext, Err: fmt.Errorf(
		"the parts of a request that are never cut take %d tokens (tools %d, your message %d, instructions and task state the rest), over the budget of %d tokens of a %d-token window: "+
			"raise [context] window in config.toml if the model has a larger one, shorten AGENTS.md, or send a shorter message",
		m.reserved, m.b.toolTk, cur, bg.b, bg.window)}
}

// setSummary folds everything with seq <= through into the summary.
func (m *measure) setSummary(through int64, text string) {
	m.c.FoldedThrough = through
	m.c.Summary = text
	m.sumTk = m.b.msgTokens(agent.Message{Role: agent.RoleUser, Content: text})
}

// l3seq is the seq where the last rounds begin (past the end: none).
func (m *measure) l3seq() int64 {
	if m.l3start < len(m.h.units) {
		return m.h.units[m.l3start].first
	}
	return m.h.st.LastSeq + 1
}
