package transcript

// The window is anchored to an item (top) and a line in it (off), not to an
// absolute line: items above it can change height (a resize, a card that
// expands) without moving what the person reads, and no operation needs the
// height of the whole transcript — only the items it passes render.

// ScrollUp moves the window up n lines; the view stops following the end.
func (m *Model) ScrollUp(n int) {
	if n <= 0 || len(m.entries) == 0 {
		return
	}
	if m.follow {
		m.anchorBottom()
		m.follow = false
	}
	m.off -= n
	for m.off < 0 && m.top > 0 {
		m.top--
		m.off += m.itemHeight(m.top)
	}
	m.off = max(m.off, 0)
	m.settle()
}

// ScrollDown moves the window down n lines; reaching the end follows it
// again (and clears the "new" count).
func (m *Model) ScrollDown(n int) {
	if n <= 0 || m.follow {
		return
	}
	m.off += n
	m.clamp()
	m.settle()
}

// GotoTop shows the first item.
func (m *Model) GotoTop() {
	m.top, m.off = 0, 0
	m.follow = false
	m.settle()
}

// GotoBottom shows the end and follows it.
func (m *Model) GotoBottom() {
	m.follow = true
	m.unseen = 0
}

// AtTop reports whether the window starts at the first line.
func (m *Model) AtTop() bool {
	if m.follow {
		m.anchorBottom()
	}
	return m.top == 0 && m.off == 0
}

// anchorBottom places the window so that it ends at the last line, or
// starts at the first when everything fits.
func (m *Model) anchorBottom() {
	need := m.height
	for i := len(m.entries) - 1; i >= 0; i-- {
		h := m.itemHeight(i)
		if h >= need {
			m.top, m.off = i, h-need
			return
		}
		need -= h
	}
	m.top, m.off = 0, 0
}

// clamp keeps the anchor on an existing line: past the end of an item it
// moves to the next ones; past the last line it stays on the last item.
func (m *Model) clamp() {
	if len(m.entries) == 0 {
		m.top, m.off = 0, 0
		return
	}
	m.top = min(max(m.top, 0), len(m.entries)-1)
	m.off = max(m.off, 0)
	for m.top < len(m.entries)-1 {
		h := m.itemHeight(m.top)
		if m.off < h {
			return
		}
		m.off -= h
		m.top++
	}
	m.off = min(m.off, max(m.itemHeight(m.top)-1, 0))
}

// settle follows the end again when the window reaches it.
func (m *Model) settle() {
	if m.follow {
		return
	}
	if m.linesFromAnchor(m.height+1) <= m.height {
		m.follow = true
		m.unseen = 0
	}
}

// linesFromAnchor counts the lines from the anchor to the end, stopping
// once it reaches limit.
func (m *Model) linesFromAnchor(limit int) int {
	n := -m.off
	for i := m.top; i < len(m.entries) && n < limit; i++ {
		n += m.itemHeight(i)
	}
	return n
}

// toggleTarget is the card ctrl+o acts on: the focused one; else, while
// scrolled up, the last card in the window; else the last card.
func (m *Model) toggleTarget() *ToolCard {
	if m.focus != "" {
		if c := m.Card(m.focus); c != nil {
			return c
		}
	}
	if len(m.cardIdx) == 0 {
		return nil
	}
	if !m.follow {
		m.clamp()
		var found *ToolCard
		seen := -m.off
		for i := m.top; i < len(m.entries) && seen < m.height; i++ {
			if c, ok := m.entries[i].item.(*ToolCard); ok {
				found = c
			}
			seen += m.itemHeight(i)
		}
		if found != nil {
			return found
		}
	}
	return m.entries[m.cardIdx[len(m.cardIdx)-1]].item.(*ToolCard)
}
