package diffview

import (
	"fmt"
	"strings"
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/alecthomas/chroma/v2"

	"agent/internal/tui/theme"
)

// Mode is the layout of the view.
type Mode uint8

// Layouts.
const (
	Unified Mode = iota // one column, "-" lines above "+" lines
	Split               // side by side: old on the left, new on the right
)

func (m Mode) String() string {
	if m == Split {
		return "split"
	}
	return "unified"
}

// Options configure a Model. The zero value is a unified view with line
// numbers, highlighting and a status line.
type Options struct {
	Theme         *theme.Theme // nil: plain, without colour
	ID            string       // echoed in FullscreenMsg and HighlightMsg, to tell views apart
	Mode          Mode
	Compact       int  // > 0: show only the first Compact rows and "… N more lines" (tool cards)
	NoLineNumbers bool // hide the line-number gutter
	NoHighlight   bool // no syntax highlighting (add and delete colours stay)
	NoFooter      bool // never show the status line (position, mode, keys)
	TabWidth      int  // columns per tab stop; 0: 4
	// Path names the file when the diff itself does not (a bare "@@" hunk):
	// it is shown in the header and picks the highlighter.
	Path        string
	Highlighter *Highlighter // a lexer cache shared between views; nil: the view's own
	Keys        *KeyMap      // nil: DefaultKeyMap()
}

// FullscreenMsg reports that the person pressed the fullscreen key: the
// parent decides the layout and calls SetSize.
type FullscreenMsg struct {
	ID         string
	Fullscreen bool
}

// wheelStep is how many rows one notch of the mouse wheel scrolls.
const wheelStep = 3

// Model is the diff view. Its methods are not safe for concurrent use (a
// Bubble Tea program calls Update and View from one goroutine).
type Model struct {
	opts Options
	th   *theme.Theme
	pal  palette
	hl   *Highlighter
	keys KeyMap

	diff     *Diff
	err      error
	errNote  string
	lines    []*Line
	lineFile []int32
	notes    []string
	maxNum   int

	lexers    []chroma.Lexer
	lexerDone []bool
	disp      map[int32]*dispLine
	pair      map[int32]int32 // a removed line and the added line replacing it (words.go)
	budget    budget          // the highlighting of the current frame

	unified layout
	split   *layout // built on first use

	mode          Mode // asked for; the effective mode also depends on the width
	width, height int
	offset        int
	cursor        int // the target of the last hunk jump; -1 once scrolled otherwise
	fullscreen    bool
	compact       int

	cache      [2]map[int]string // rendered rows, unified and split, at cacheWidth
	cacheWidth int
	foot       footKey // what the cached status line shows
	footText   string
	blankRow   string
}

// footKey is everything the status line depends on.
type footKey struct {
	off, body, rows, width, cursor, compact int
	mode                                    Mode
	split                                   bool
}

// New returns a view of a unified diff (see Parse for the forms it reads).
// Text that is not a diff it can read is shown as plain notes under a line
// that says why; Err returns the reason.
func New(patch string, opts Options) *Model {
	d, err := Parse(patch)
	if err != nil {
		d = &Diff{Notes: strings.Split(strings.TrimSuffix(patch, "\n"), "\n")}
	}
	m := NewFromDiff(d, opts)
	if err != nil {
		m.err = err
		m.errNote = "cannot read this as a diff (" + err.Error() + "); shown as text"
		m.rebuild()
	}
	return m
}

// NewFromTexts returns a view of the difference between two texts.
func NewFromTexts(t Texts, opts Options) *Model {
	return NewFromDiff(Compute(t), opts)
}

// NewFromDiff returns a view of a diff parsed or computed before.
func NewFromDiff(d *Diff, opts Options) *Model {
	if opts.Theme == nil {
		opts.Theme = theme.New(true, true)
	}
	if opts.TabWidth <= 0 {
		opts.TabWidth = 4
	}
	if opts.Highlighter == nil {
		opts.Highlighter = NewHighlighter()
	}
	keys := DefaultKeyMap()
	if opts.Keys != nil {
		keys = *opts.Keys
	}
	if opts.Path != "" && len(d.Files) == 1 && d.Files[0].OldPath == "" && d.Files[0].NewPath == "" {
		d.Files[0].OldPath, d.Files[0].NewPath = opts.Path, opts.Path
	}
	m := &Model{opts: opts, hl: opts.Highlighter, keys: keys, diff: d, mode: opts.Mode, width: 80, cursor: -1, compact: opts.Compact,
		budget: budget{now: time.Now}}
	m.SetTheme(opts.Theme)
	m.rebuild()
	return m
}

// rebuild lays the diff out again (after New found it unreadable).
func (m *Model) rebuild() {
	m.lines, m.lineFile, m.notes, m.maxNum = nil, nil, nil, 0
	for fi := range m.diff.Files {
		f := &m.diff.Files[fi]
		for hi := range f.Hunks {
			for li := range f.Hunks[hi].Lines {
				l := &f.Hunks[hi].Lines[li]
				m.lines = append(m.lines, l)
				m.lineFile = append(m.lineFile, int32(fi))
				m.maxNum = max(m.maxNum, l.Old, l.New)
			}
		}
	}
	m.lexers = make([]chroma.Lexer, len(m.diff.Files))
	m.lexerDone = make([]bool, len(m.diff.Files))
	m.pairLines()
	m.unified = m.buildUnified()
	m.split = nil
	m.resetCache()
}

// SetTheme changes the colours (for example once the terminal reported its
// background).
func (m *Model) SetTheme(t *theme.Theme) {
	if t == nil {
		t = theme.New(true, true)
	}
	m.th, m.pal = t, newPalette(t)
	m.disp = map[int32]*dispLine{}
	m.resetCache()
}

func (m *Model) resetCache() {
	m.cache = [2]map[int]string{{}, {}}
	m.cacheWidth = m.width
	m.footText = ""
}

// SetSize sets the width and the height the view renders at. A height of 0
// is the natural height: every row (ContentHeight). The place in the diff
// is kept when the width switches the split view on or off.
func (m *Model) SetSize(width, height int) {
	width = max(width, 1)
	before := m.layout()
	m.width, m.height = width, max(height, 0)
	if m.cacheWidth != width {
		m.resetCache()
	}
	m.keepPlace(before, m.layout())
}

// Width and Height are the size set last.
func (m *Model) Width() int  { return m.width }
func (m *Model) Height() int { return m.height }

// SetMode asks for a layout; Split shows as Unified (and says so) when the
// width is below SplitMinWidth.
func (m *Model) SetMode(mode Mode) {
	before := m.layout()
	m.mode = mode
	m.keepPlace(before, m.layout())
}

// Mode is the layout asked for; Effective is the one shown.
func (m *Model) Mode() Mode { return m.mode }

// Effective is the layout shown at the current width.
func (m *Model) Effective() Mode {
	if m.mode == Split && m.width >= m.SplitMinWidth() {
		return Split
	}
	return Unified
}

// SplitFallback reports that split was asked for but the view is too narrow.
func (m *Model) SplitFallback() bool { return m.mode == Split && m.Effective() == Unified }

// SplitMinWidth is the narrowest width that shows the split layout.
func (m *Model) SplitMinWidth() int { return m.splitMinWidth() }

// SetCompact shows only the first n rows (n > 0) with "… N more lines", or
// the whole scrollable view (n = 0).
func (m *Model) SetCompact(n int) { m.compact = max(n, 0) }

// Compact is the row limit of the compact form (0: not compact).
func (m *Model) Compact() int { return m.compact }

// Fullscreen is the flag the fullscreen key toggles; SetFullscreen sets it
// without a message.
func (m *Model) Fullscreen() bool             { return m.fullscreen }
func (m *Model) SetFullscreen(on bool)        { m.fullscreen = on }
func (m *Model) KeyMap() KeyMap               { return m.keys }
func (m *Model) Diff() *Diff                  { return m.diff }
func (m *Model) Err() error                   { return m.err }
func (m *Model) Stats() (files, add, del int) { return m.diff.Stats() }

// Offset is the first row shown; Rows is the number of rows in the current
// layout.
func (m *Model) Offset() int { return m.clamp(m.offset) }
func (m *Model) Rows() int   { return len(m.layout().rows) }

// AtBottom reports whether the last row is shown.
func (m *Model) AtBottom() bool { return m.Offset() >= m.maxOffset() }

// Hunk is the hunk (1-based) at the top of the view, or that the last jump
// went to, and the number of hunk targets; 0 before the first.
func (m *Model) Hunk() (cur, total int) {
	lo := m.layout()
	if m.cursor >= 0 && m.cursor < len(lo.targets) {
		return m.cursor + 1, len(lo.targets)
	}
	return lo.targetAtOrBefore(m.Offset()) + 1, len(lo.targets)
}

// ContentHeight is the number of lines View needs to show everything at
// the current width (or the compact form's lines): a parent sizes a dialog
// with min(available, ContentHeight()).
func (m *Model) ContentHeight() int {
	rows := len(m.layout().rows)
	if m.compact > 0 {
		return min(rows, m.compact) + b2i(rows > m.compact || m.SplitFallback())
	}
	return rows + b2i(m.SplitFallback() && !m.opts.NoFooter)
}

// Handles reports whether the view has a binding for msg (so a parent can
// route a key to it or keep it).
func (m *Model) Handles(msg tea.KeyPressMsg) bool {
	return key.Matches(msg, m.keys.all()...)
}

// Update handles keys, the mouse wheel and its HighlightMsg. A key that
// brings lines never seen into view also returns the command that finishes
// highlighting them (see HighlightMsg).
func (m *Model) Update(msg tea.Msg) (*Model, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.KeyPressMsg:
		off, mode := m.Offset(), m.Effective()
		cmd := m.key(msg)
		if m.Offset() != off || m.Effective() != mode {
			cmd = tea.Batch(cmd, m.highlightCmd())
		}
		return m, cmd
	case tea.MouseWheelMsg:
		if m.compact > 0 {
			break
		}
		switch msg.Button {
		case tea.MouseWheelUp:
			m.ScrollBy(-wheelStep)
		case tea.MouseWheelDown:
			m.ScrollBy(wheelStep)
		}
		return m, m.highlightCmd()
	case HighlightMsg:
		if msg.ID == m.opts.ID {
			return m, m.highlightScreen()
		}
	}
	return m, nil
}

func (m *Model) key(msg tea.KeyPressMsg) tea.Cmd {
	k := m.keys
	switch {
	case key.Matches(msg, k.ToggleSplit):
		if m.mode == Split {
			m.SetMode(Unified)
		} else {
			m.SetMode(Split)
		}
		return nil
	case key.Matches(msg, k.Fullscreen):
		m.fullscreen = !m.fullscreen
		id, on := m.opts.ID, m.fullscreen
		return func() tea.Msg { return FullscreenMsg{ID: id, Fullscreen: on} }
	}
	if m.compact > 0 {
		return nil
	}
	body, _ := m.geometry()
	switch {
	case key.Matches(msg, k.Up):
		m.ScrollBy(-1)
	case key.Matches(msg, k.Down):
		m.ScrollBy(1)
	case key.Matches(msg, k.PageUp):
		m.ScrollBy(-max(body-1, 1))
	case key.Matches(msg, k.PageDown):
		m.ScrollBy(max(body-1, 1))
	case key.Matches(msg, k.HalfUp):
		m.ScrollBy(-max(body/2, 1))
	case key.Matches(msg, k.HalfDown):
		m.ScrollBy(max(body/2, 1))
	case key.Matches(msg, k.Top):
		m.GotoTop()
	case key.Matches(msg, k.Bottom):
		m.GotoBottom()
	case key.Matches(msg, k.NextHunk):
		m.NextHunk()
	case key.Matches(msg, k.PrevHunk):
		m.PrevHunk()
	}
	return nil
}

// ScrollBy moves the view n rows down (up when n < 0).
func (m *Model) ScrollBy(n int) {
	m.offset = m.clamp(m.Offset() + n)
	m.cursor = -1
}

// GotoTop and GotoBottom show the first and the last rows.
func (m *Model) GotoTop()    { m.offset, m.cursor = 0, -1 }
func (m *Model) GotoBottom() { m.offset, m.cursor = m.maxOffset(), -1 }

// NextHunk puts the next hunk's header at the top of the view (as near as
// the end of the diff allows) and reports whether there was one.
func (m *Model) NextHunk() bool {
	lo := m.layout()
	next := m.cursor + 1
	if m.cursor < 0 {
		next = lo.targetAtOrBefore(m.Offset()) + 1
	}
	return m.jump(lo, next)
}

// PrevHunk goes to the header of the hunk shown at the top, or the one
// before it when the header is already at the top.
func (m *Model) PrevHunk() bool {
	lo := m.layout()
	prev := m.cursor - 1
	if m.cursor < 0 {
		off := m.Offset()
		prev = lo.targetAtOrBefore(off)
		if prev >= 0 && int(lo.targets[prev]) == off {
			prev--
		}
	}
	return m.jump(lo, prev)
}

func (m *Model) jump(lo *layout, t int) bool {
	if t < 0 || t >= len(lo.targets) {
		return false
	}
	m.cursor = t
	m.offset = m.clamp(int(lo.targets[t]))
	return true
}

// layout is the rows of the effective mode.
func (m *Model) layout() *layout {
	if m.Effective() == Unified {
		return &m.unified
	}
	if m.split == nil {
		lo := m.buildSplit(m.unified)
		m.split = &lo
	}
	return m.split
}

// keepPlace moves the offset from one layout to the row of another that
// shows the same line.
func (m *Model) keepPlace(before, after *layout) {
	if before == after || len(before.rows) == 0 {
		return
	}
	seq := before.rows[min(m.offset, len(before.rows)-1)].seq
	m.offset = m.clamp(after.rowAtSeq(seq))
}

// geometry is how many rows the view shows and whether a status line
// follows them.
func (m *Model) geometry() (body int, footer bool) {
	rows := len(m.layout().rows)
	notice := m.SplitFallback()
	if m.compact > 0 {
		return min(rows, m.compact), rows > m.compact || notice
	}
	if m.opts.NoFooter {
		notice = false
	}
	h := m.height
	switch {
	case h <= 0 || rows+b2i(notice) <= h:
		return rows, notice
	case m.opts.NoFooter || h == 1:
		return h, false
	}
	return h - 1, true
}

func (m *Model) maxOffset() int {
	body, _ := m.geometry()
	return max(len(m.layout().rows)-body, 0)
}

func (m *Model) clamp(off int) int { return min(max(off, 0), m.maxOffset()) }

// View renders the rows in view and the status line, each exactly Width
// columns wide: exactly Height lines when a height is set (blank rows pad
// a short diff), ContentHeight lines when it is 0 or the view is compact.
func (m *Model) View() string {
	m.budget.frame()
	lo := m.layout()
	split := m.Effective() == Split
	body, footer := m.geometry()
	off := m.Offset()
	if m.compact > 0 {
		off = 0
	}
	end := min(off+body, len(lo.rows))
	parts := make([]string, 0, max(end-off+1, m.height))
	for i := off; i < end; i++ {
		parts = append(parts, m.row(lo, i, split))
	}
	if m.compact == 0 && m.height > 0 {
		// A diff shorter than the height: blank rows keep the view (and
		// the status line at its foot) exactly Height lines.
		for n := len(parts) + b2i(footer); n < m.height; n++ {
			parts = append(parts, m.blank())
		}
	}
	if footer {
		k := footKey{off, body, len(lo.rows), m.width, m.cursor, m.compact, m.mode, split}
		if k != m.foot || m.footText == "" {
			m.foot, m.footText = k, m.footer(lo, off, body)
		}
		parts = append(parts, m.footText)
	}
	return strings.Join(parts, "\n")
}

// blank is an empty row of the view's width.
func (m *Model) blank() string {
	if len(m.blankRow) != m.width {
		m.blankRow = strings.Repeat(" ", m.width)
	}
	return m.blankRow
}

// row returns row i rendered, from the cache when it can.
func (m *Model) row(lo *layout, i int, split bool) string {
	if lo.rows[i].kind == rowHunk && m.cursor >= 0 {
		return m.renderRow(lo, i, split) // the jumped-to header is marked: not cached
	}
	c := m.cache[b2i(split)]
	if s, ok := c[i]; ok {
		return s
	}
	left := m.budget.left
	s := m.renderRow(lo, i, split)
	if m.budget.left == left { // not a row left plain for this frame only
		c[i] = s
	}
	return s
}

// footer is the status line: the layout, the hunk, the rows shown and the
// keys (or, compact, how many rows are hidden).
func (m *Model) footer(lo *layout, off, body int) string {
	w := m.width
	var notice string
	if m.SplitFallback() {
		notice = fmt.Sprintf("split needs %d columns, showing unified", m.SplitMinWidth())
	}
	var parts []string
	if m.compact > 0 {
		if more := len(lo.rows) - body; more > 0 {
			parts = append(parts, moreLines(more))
		}
		if notice != "" {
			parts = append(parts, notice)
		}
		return m.paint(m.pal.dim, fit(strings.Join(parts, " · "), w))
	}
	parts = append(parts, m.Effective().String())
	if notice != "" {
		parts[0] = notice
	}
	if body < len(lo.rows) {
		if cur, total := m.Hunk(); total > 0 && cur > 0 {
			parts = append(parts, fmt.Sprintf("hunk %d/%d", cur, total))
		} else if total > 0 {
			parts = append(parts, fmt.Sprintf("%d hunks", total))
		}
		parts = append(parts, fmt.Sprintf("%d–%d of %d", off+1, min(off+body, len(lo.rows)), len(lo.rows)))
	}
	left := strings.Join(parts, " · ")
	var hints []string
	for _, b := range m.keys.ShortHelp() {
		if b.Enabled() {
			hints = append(hints, b.Help().Key+" "+b.Help().Desc)
		}
	}
	right := strings.Join(hints, "  ")
	lw, rw := width(left), width(right)
	if right != "" && lw+2+rw <= w {
		return m.paint(m.pal.dim, left+strings.Repeat(" ", w-lw-rw)) + m.paint(m.pal.faint, right)
	}
	return m.paint(m.pal.dim, fit(left, w))
}

// paint writes s in one palette style (the status line is redrawn on every
// scroll step, so it does without lipgloss).
func (m *Model) paint(sgr, s string) string {
	if sgr == "" {
		return s
	}
	return sgr + s + sgrReset
}

// moreLines is the fold line of a compact view.
func moreLines(n int) string {
	if n == 1 {
		return "… 1 more line"
	}
	return fmt.Sprintf("… %d more lines", n)
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}
