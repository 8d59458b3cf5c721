package contextbuild

import (
	"context"
	"fmt"

	"agent/internal/event"
)

// targetPercent is how full a compaction leaves the budget: room for a few
// rounds before the next, so compactions come in batches and the prefix
// stays cached between them.
const targetPercent = 80

// cutCaps are the head/tail sizes tried, largest first, for the outputs of
// the last rounds but the newest.
var cutCaps = []int{2000, 1000, 500, 250, 120}

// compact moves the boundaries of m, in the degradation order, until the
// request fits the target: mask old tool outputs; drop superseded reads;
// fold older rounds into the summary; cut the outputs of the last rounds
// to their head and tail; and only then mask and fold the last rounds
// themselves. It returns nil when nothing could change.
func (b *Builder) compact(ctx context.Context, m *measure, bg budget, trigger event.CompactionTrigger, step int) (*event.CompactionData, error) {
	h := m.h
	before := m.total()
	target := bg.b * targetPercent / 100
	force := trigger == event.TriggerForced
	over := func() bool { return m.total() > target }
	orig := m.c
	// 1. mask old tool outputs, oldest first, a round at a time
	for i := 0; i < m.l3start; i++ {
		u := h.units[i]
		if u.kind != unitRound || u.last <= m.c.MaskedThrough || m.folded(i) {
			continue
		}
		if !force && !over() {
			break
		}
		m.c.MaskedThrough = u.last
		m.recost(i)
	}
	// 2. drop reads of files edited since, older than the last rounds (a
	// compaction always does: a stale read misleads whatever the budget)
	if s := m.l3seq() - 1; m.c.SupersededThrough < s {
		m.c.SupersededThrough = s
		m.recostAll()
	}
	// 3. snippets are cut to what is left at every render.
	// 4. fold older rounds into the summary
	kind := event.SummaryDeterministic
	rejected := ""
	if force || over() {
		through := m.foldUntil(0, m.l3start, target, force)
		if through > orig.FoldedThrough {
			det := b.summary(h, through)
			text := det
			if b.opt.Summarizer != nil && h.st.Context.ModelSummaryTurn != h.st.Persons() {
				var why string
				text, why = b.modelSummary(ctx, h, through, det)
				switch {
				case why != "":
					rejected = why
				case b.count(text) > b.count(det) && b.count(text) > m.foldedCost(through):
					rejected = fmt.Sprintf("the model summary (%d tokens) was longer than what it replaced (%d tokens)", b.count(text), m.foldedCost(through))
					text = det
				default:
					kind = event.SummaryModel
					m.setSummary(through, text)
					if over() {
						rejected = fmt.Sprintf("the model summary (%d tokens) left the request over its target", b.count(text))
						text, kind = det, event.SummaryDeterministic
					}
				}
				if ctx.Err() != nil {
					return nil, ctx.Err()
				}
			}
			m.setSummary(through, text)
		}
	}
	// 5. head/tail cut the outputs of the last rounds but the newest
	last := len(h.units) - 1 // the newest round is never cut here
	if m.newest >= 0 {
		last = m.newest
	}
	if over() && last > m.l3start {
		m.c.CutThrough = h.units[last-1].last
		for _, capTk := range cutCaps {
			m.c.CutTokens = capTk
			for i := m.l3start; i < last; i++ {
				m.recost(i)
			}
			if !over() {
				break
			}
		}
	}
	// 6. only then shrink the last rounds: drop their stale reads, mask,
	// then fold, oldest first
	if over() && m.c.SupersededThrough < h.st.LastSeq {
		m.c.SupersededThrough, m.c.Shrunk = h.st.LastSeq, true
		m.recostAll()
	}
	for i := m.l3start; i < last && over(); i++ {
		if u := h.units[i]; u.kind == unitRound && u.last > m.c.MaskedThrough {
			m.c.MaskedThrough, m.c.Shrunk = u.last, true
			m.recost(i)
		}
	}
	if over() && last > m.l3start {
		through := m.foldUntil(m.l3start, last, target, false)
		if through > m.c.FoldedThrough {
			m.c.Shrunk = true
			m.setSummary(through, b.summary(h, through))
		}
	}
	if m.c.FoldedThrough == orig.FoldedThrough && m.c.MaskedThrough == orig.MaskedThrough &&
		m.c.SupersededThrough == orig.SupersededThrough && m.c.CutThrough == orig.CutThrough && m.c.CutTokens == orig.CutTokens {
		return nil, nil
	}
	c := m.c
	c.Step, c.Trigger, c.Kind, c.Rejected = step, trigger, kind, rejected
	c.TokensBefore, c.TokensAfter = before, m.total()
	if over := c.TokensAfter - bg.b; over > 0 && m.newest >= 0 {
		// the render cuts the newest round to what is left (see render)
		c.TokensAfter += max(m.cost[m.newest]-over, 200) - m.cost[m.newest]
	}
	return &c, nil
}

// foldUntil returns the seq through which units[from:to] must be folded for
// the request to fit target (all of them when all is set), allowing for the
// summary's growth; it does not change m.
func (m *measure) foldUntil(from, to, target int, all bool) int64 {
	through := m.c.FoldedThrough
	total := m.total()
	for i := from; i < to; i++ {
		u := m.h.units[i]
		if u.last <= through {
			continue
		}
		if !all && total <= target {
			break
		}
		total -= m.cost[i]
		grow := 24 // a ledger line or two
		if u.kind == unitPerson {
			grow = m.cost[i] + 8
		}
		total += grow
		through = u.last
	}
	// the summary's real size may differ from the estimate: fold more until
	// it fits or nothing is left
	for !all && through > m.c.FoldedThrough {
		sum := m.b.msgTokens(summaryMessage(m.b.summary(m.h, through)))
		n := m.reserved + m.mapTk + sum
		next := -1
		for i, c := range m.cost {
			if m.h.units[i].last > through {
				n += c
				if next < 0 && i < to {
					next = i
				}
			}
		}
		if n <= target || next < 0 {
			break
		}
		through = m.h.units[next].last
	}
	return through
}

// foldedCost is what the units folded through seq cost verbatim.
func (m *measure) foldedCost(through int64) int {
	n := 0
	for _, u := range m.h.units {
		if u.last <= through && u.last > m.c.FoldedThrough {
			msgs, _ := m.b.renderUnit(m.h, u, &event.CompactionData{}, 0)
			for _, msg := range msgs {
				n += m.b.msgTokens(msg)
			}
		}
	}
	return n
}
