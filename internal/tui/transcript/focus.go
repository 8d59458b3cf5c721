package transcript

import (
	"strings"

	"github.com/charmbracelet/x/ansi"
)

// Focus among the cards: alt+↑ and alt+↓ move the focus to the previous or
// next tool card (scrolled into view, its header highlighted), and ctrl+o
// expands or collapses the focused one, whichever it is. Moving past the
// last card goes back to the default target (the last card in the window).

// focusIndex is the index in cardIdx of the card ctrl+o acts on.
func (m *Model) focusIndex() int {
	c := m.toggleTarget()
	if c == nil {
		return -1
	}
	for k, i := range m.cardIdx {
		if m.entries[i].item == Item(c) {
			return k
		}
	}
	return -1
}

// FocusPrev focuses the card before the current target (the last card when
// none is focused).
func (m *Model) FocusPrev() {
	if len(m.cardIdx) == 0 {
		return
	}
	k := m.focusIndex()
	if m.focus != "" {
		k--
	}
	m.focusAt(max(0, k))
}

// FocusNext focuses the card after the focused one; past the last it goes
// back to the default target.
func (m *Model) FocusNext() {
	if m.focus == "" || len(m.cardIdx) == 0 {
		return
	}
	k := m.focusIndex() + 1
	if k >= len(m.cardIdx) {
		m.focus = ""
		return
	}
	m.focusAt(k)
}

func (m *Model) focusAt(k int) {
	if k < 0 || k >= len(m.cardIdx) {
		return
	}
	i := m.cardIdx[k]
	c := m.entries[i].item.(*ToolCard)
	if c.Data().CallID == "" {
		return
	}
	m.focus = c.Data().CallID
	m.show(i)
}

// Focused is the call id of the focused card ("" when none is).
func (m *Model) Focused() string { return m.focus }

// show scrolls item i into the window when it is not in it.
func (m *Model) show(i int) {
	if m.follow {
		m.anchorBottom()
	}
	m.clamp()
	if i < m.top || (i == m.top && m.off > gap(i)) {
		m.follow = false
		m.top, m.off = i, 0
		m.settle()
		return
	}
	// below the window: the item's end at the window's end (its header
	// first when the item is taller than the window)
	seen := -m.off
	for j := m.top; j < i; j++ {
		seen += m.itemHeight(j)
	}
	if seen+m.itemHeight(i) <= m.height {
		return
	}
	m.follow = false
	if m.itemHeight(i) >= m.height {
		m.top, m.off = i, 0
	} else {
		m.off += seen + m.itemHeight(i) - m.height
		m.clamp()
	}
	m.settle()
}

// focusedHeader is whether line j of item i is the header of the focused
// card (drawn highlighted).
func (m *Model) focusedHeader(i, j int) bool {
	if m.focus == "" || j != 0 {
		return false
	}
	k, ok := m.cards[m.focus]
	return ok && k == i
}

// textFit pads or cuts plain text to width columns.
func textFit(s string, width int) string {
	if w := ansi.StringWidth(s); w < width {
		return s + strings.Repeat(" ", width-w)
	}
	return ansi.Truncate(s, width, "")
}
