// Package transcript owns the TUI's conversation view: a virtualised list of
// items (user messages, assistant messages in markdown that may be
// streaming, tool cards, notices, error lines). Only the items in the window
// render; each item's lines are cached per width and re-rendered when its
// version changes; the view sticks to the bottom until the person scrolls up,
// and then says how many items arrived below ("↓ 3 new").
//
// It gets plain data from the root model (already redacted text, call ids,
// statuses) and must not import internal/agent or internal/app; the diff of
// an edit is drawn by a function the root passes in (the diff view is another
// package). It keeps no package-level state.
package transcript

import (
	"errors"
	"strconv"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"agent/internal/tui/markdown"
	"agent/internal/tui/theme"
)

// DiffFunc renders a unified diff at a width (the root passes the diff
// view's renderer). Its lines should fit the width; longer ones are cut.
type DiffFunc func(diff string, width int) string

// Context is what an item renders with.
type Context struct {
	Width    int
	Theme    *theme.Theme
	Markdown *markdown.Renderer
	Diff     DiffFunc // nil: a built-in colouring of +/- lines
}

// Item is one entry of the transcript. It renders itself at a width; its
// height is the number of lines it returns. Version must change whenever
// what Render returns may have changed: the list re-renders an item only
// when its version or the width (or the theme) changed.
type Item interface {
	Render(ctx Context) []string
	Version() uint64
}

// KeyMap is the transcript's keys; the zero KeyMap in Options means
// DefaultKeyMap. It satisfies bubbles' help.KeyMap.
type KeyMap struct {
	PageUp, PageDown, Home, End, Toggle key.Binding
	// Prev and Next move the focus to the previous or next tool card.
	Prev, Next key.Binding
}

// DefaultKeyMap: PgUp/PgDn, Home/End, ctrl+o for the card.
func DefaultKeyMap() KeyMap {
	return KeyMap{
		PageUp:   key.NewBinding(key.WithKeys("pgup"), key.WithHelp("pgup", "page up")),
		PageDown: key.NewBinding(key.WithKeys("pgdown"), key.WithHelp("pgdn", "page down")),
		Home:     key.NewBinding(key.WithKeys("home"), key.WithHelp("home", "first message")),
		End:      key.NewBinding(key.WithKeys("end"), key.WithHelp("end", "latest")),
		Toggle:   key.NewBinding(key.WithKeys("ctrl+o"), key.WithHelp("ctrl+o", "expand/collapse the focused tool card")),
		Prev:     key.NewBinding(key.WithKeys("alt+up"), key.WithHelp("alt+↑", "focus the previous tool card")),
		Next:     key.NewBinding(key.WithKeys("alt+down"), key.WithHelp("alt+↓", "focus the next tool card")),
	}
}

// ShortHelp is the keys for the one-line help.
func (k KeyMap) ShortHelp() []key.Binding { return []key.Binding{k.PageUp, k.PageDown, k.Toggle} }

// FullHelp is the keys for the help overlay.
func (k KeyMap) FullHelp() [][]key.Binding {
	return [][]key.Binding{{k.PageUp, k.PageDown, k.Home, k.End}, {k.Prev, k.Next, k.Toggle}}
}

func (k KeyMap) all() []key.Binding {
	return []key.Binding{k.PageUp, k.PageDown, k.Home, k.End, k.Toggle, k.Prev, k.Next}
}

// Options configure a Model.
type Options struct {
	Theme *theme.Theme // required
	// Markdown renders assistant messages; nil builds one for Theme.
	Markdown *markdown.Renderer
	// Diff renders the diff of an edit card; nil colours +/- lines.
	Diff DiffFunc
	// Keys; the zero value means DefaultKeyMap().
	Keys KeyMap
	// WheelLines is how far one mouse-wheel step scrolls (default 3).
	WheelLines int
	// OnItemRender, when set, is called with an item's index each time the
	// list renders it (a cache miss): tests count renders with it.
	OnItemRender func(index int)
}

// CardToggledMsg is sent when ctrl+o expanded or collapsed a tool card.
type CardToggledMsg struct {
	CallID   string
	Expanded bool
}

// entry is an item and its cached render.
type entry struct {
	item    Item
	width   int
	version uint64
	epoch   uint64
	lines   []string
	valid   bool
	dim     bool // rewound: drawn faint, without colour
	dimmed  bool // the cached lines are the dim ones
}

// Model is the transcript view. Use it through a pointer; the root calls
// SetSize, Append and the items' own setters, routes keys and the mouse
// wheel to Update, and draws View.
type Model struct {
	ctx      Context
	keys     KeyMap
	wheel    int
	onRender func(int)

	entries []entry
	cards   map[string]int // call id → index
	cardIdx []int          // indexes of cards, in order

	width, height int
	epoch         uint64 // bumped by SetTheme: every cache is stale

	// The window: its first line is line off of item top (the gap line
	// before an item counts as its first line). follow keeps it at the end.
	top, off int
	follow   bool
	unseen   int    // items appended while not following
	focus    string // the call id ctrl+o toggles, if set
}

// New returns an empty transcript that follows its end.
func New(opts Options) (*Model, error) {
	if opts.Theme == nil {
		return nil, errors.New("transcript: Options.Theme is nil: pass theme.New(dark, noColor)")
	}
	md := opts.Markdown
	if md == nil {
		var err error
		if md, err = markdown.New(markdown.Options{Theme: opts.Theme}); err != nil {
			return nil, err
		}
	}
	keys := opts.Keys
	if len(keys.PageUp.Keys()) == 0 && len(keys.Toggle.Keys()) == 0 {
		keys = DefaultKeyMap()
	}
	wheel := opts.WheelLines
	if wheel <= 0 {
		wheel = 3
	}
	return &Model{
		ctx:      Context{Theme: opts.Theme, Markdown: md, Diff: opts.Diff},
		keys:     keys,
		wheel:    wheel,
		onRender: opts.OnItemRender,
		cards:    map[string]int{},
		follow:   true,
	}, nil
}

// Keys is the key map in use.
func (m *Model) Keys() KeyMap { return m.keys }

// HandlesKey reports whether Update acts on this key (so that the root can
// route it here rather than to the composer).
func (m *Model) HandlesKey(msg tea.KeyPressMsg) bool { return key.Matches(msg, m.keys.all()...) }

// SetSize sets the view's width and height in cells. A new width re-renders
// the visible items at it (their caches are per width).
func (m *Model) SetSize(width, height int) {
	m.width, m.height = max(width, 0), max(height, 0)
	m.ctx.Width = m.width
}

// Size is the view's width and height.
func (m *Model) Size() (int, int) { return m.width, m.height }

// SetTheme switches theme (and markdown renderer; nil builds one): every
// item renders again when next seen.
func (m *Model) SetTheme(th *theme.Theme, md *markdown.Renderer) error {
	if th == nil {
		return errors.New("transcript: SetTheme: theme is nil")
	}
	if md == nil {
		var err error
		if md, err = markdown.New(markdown.Options{Theme: th}); err != nil {
			return err
		}
	}
	m.ctx.Theme, m.ctx.Markdown = th, md
	m.epoch++
	return nil
}

// Append adds an item at the end. A *ToolCard is indexed by its call id
// (for Card and ctrl+o). While the person has scrolled up, it counts as new.
func (m *Model) Append(it Item) {
	m.entries = append(m.entries, entry{item: it})
	if c, ok := it.(*ToolCard); ok {
		idx := len(m.entries) - 1
		if id := c.Data().CallID; id != "" {
			m.cards[id] = idx
		}
		m.cardIdx = append(m.cardIdx, idx)
	}
	if !m.follow {
		m.unseen++
	}
}

// SetDimmed draws item i faint (a message a conversation rollback took out
// of what the model sees) or normally again.
func (m *Model) SetDimmed(i int, on bool) {
	if i >= 0 && i < len(m.entries) {
		m.entries[i].dim = on
	}
}

// Dimmed reports whether item i is drawn faint.
func (m *Model) Dimmed(i int) bool { return i >= 0 && i < len(m.entries) && m.entries[i].dim }

// Len is the number of items.
func (m *Model) Len() int { return len(m.entries) }

// Item returns the item at index i.
func (m *Model) Item(i int) Item { return m.entries[i].item }

// Card returns the tool card of a call id, or nil.
func (m *Model) Card(callID string) *ToolCard {
	if i, ok := m.cards[callID]; ok {
		return m.entries[i].item.(*ToolCard)
	}
	return nil
}

// Clear removes every item (a new conversation) and follows the end again.
func (m *Model) Clear() {
	m.entries, m.cardIdx = nil, nil
	m.cards = map[string]int{}
	m.top, m.off, m.follow, m.unseen, m.focus = 0, 0, true, 0, ""
}

// Focus makes ctrl+o toggle the card of a call id ("" goes back to the
// default: the last card in the window, or the last card).
func (m *Model) Focus(callID string) { m.focus = callID }

// Following reports whether the view sticks to the end.
func (m *Model) Following() bool { return m.follow }

// Unseen is the number of items appended since the person scrolled up.
func (m *Model) Unseen() int { return m.unseen }

// Update handles the transcript's keys and the mouse wheel (which arrives
// only when the root turned mouse mode on).
func (m *Model) Update(msg tea.Msg) (*Model, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.KeyPressMsg:
		switch {
		case key.Matches(msg, m.keys.PageUp):
			m.ScrollUp(max(m.height, 1))
		case key.Matches(msg, m.keys.PageDown):
			m.ScrollDown(max(m.height, 1))
		case key.Matches(msg, m.keys.Home):
			m.GotoTop()
		case key.Matches(msg, m.keys.End):
			m.GotoBottom()
		case key.Matches(msg, m.keys.Prev):
			m.FocusPrev()
		case key.Matches(msg, m.keys.Next):
			m.FocusNext()
		case key.Matches(msg, m.keys.Toggle):
			if c := m.toggleTarget(); c != nil {
				c.SetExpanded(!c.Expanded())
				msg := CardToggledMsg{CallID: c.Data().CallID, Expanded: c.Expanded()}
				return m, func() tea.Msg { return msg }
			}
		}
	case tea.MouseWheelMsg:
		switch msg.Button {
		case tea.MouseWheelUp:
			m.ScrollUp(m.wheel)
		case tea.MouseWheelDown:
			m.ScrollDown(m.wheel)
		}
	}
	return m, nil
}

// View draws the window: exactly height lines, none wider than width.
func (m *Model) View() string {
	if m.width <= 0 || m.height <= 0 {
		return ""
	}
	if m.follow {
		m.anchorBottom()
	}
	m.clamp()
	out := make([]string, 0, m.height)
	for i, off := m.top, m.off; i < len(m.entries) && len(out) < m.height; i, off = i+1, 0 {
		out = m.appendItemLines(out, i, off, m.height-len(out))
	}
	for len(out) < m.height {
		out = append(out, "")
	}
	if !m.follow && m.unseen > 0 {
		out[len(out)-1] = m.indicator()
	}
	return strings.Join(out, "\n")
}

// indicator is the last line while new items wait below.
func (m *Model) indicator() string {
	label := " ↓ " + strconv.Itoa(m.unseen) + " new "
	w := ansi.StringWidth(label)
	if w > m.width {
		return ansi.Truncate(label, m.width, "")
	}
	return strings.Repeat(" ", m.width-w) + m.ctx.Theme.Selected.Render(label)
}

// lines returns item i's lines at the current width, from the cache or
// rendered now.
func (m *Model) lines(i int) []string {
	e := &m.entries[i]
	v := e.item.Version()
	if e.valid && e.width == m.width && e.version == v && e.epoch == m.epoch && e.dimmed == e.dim {
		return e.lines
	}
	if m.onRender != nil {
		m.onRender(i)
	}
	lines := e.item.Render(m.ctx)
	for j, l := range lines {
		if ansi.StringWidth(l) > m.width {
			lines[j] = ansi.Truncate(l, m.width, "…")
		}
	}
	if e.dim {
		for j, l := range lines {
			lines[j] = m.ctx.Theme.Faint.Render(ansi.Strip(l))
		}
	}
	*e = entry{item: e.item, width: m.width, version: v, epoch: m.epoch, lines: lines, valid: true, dim: e.dim, dimmed: e.dim}
	return lines
}

// gap is the blank line before every item but the first.
func gap(i int) int {
	if i == 0 {
		return 0
	}
	return 1
}

// height is item i's height in the view, its gap included.
func (m *Model) itemHeight(i int) int { return gap(i) + len(m.lines(i)) }

// appendItemLines appends up to n of item i's view lines from line off.
func (m *Model) appendItemLines(out []string, i, off, n int) []string {
	if gap(i) == 1 {
		if off == 0 {
			out = append(out, "")
			n--
		} else {
			off--
		}
	}
	ls := m.lines(i)
	if off >= len(ls) || n <= 0 {
		return out
	}
	start := len(out)
	out = append(out, ls[off:min(len(ls), off+n)]...)
	if off == 0 && m.focusedHeader(i, 0) {
		out[start] = m.ctx.Theme.Selected.Render(textFit(ansi.Strip(out[start]), m.width))
	}
	return out
}
