package drawer

import (
	"fmt"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"agent/internal/event"
	"agent/internal/termtext"
	"agent/internal/tui/textutil"
	"agent/internal/tui/theme"
)

// Kind says why a checkpoint was taken (the journal's kinds).
type Kind = event.CheckpointKind

// Kinds of checkpoint.
const (
	KindBefore = event.CheckpointBefore // before a call changed files
	KindAfter  = event.CheckpointAfter  // after it
	// KindRollback is the state before a rollback: rolling back to it
	// undoes that rollback. It is listed as "↶ undo rollback".
	KindRollback = event.CheckpointRollback
)

// Checkpoint is one checkpoint of the run.
type Checkpoint struct {
	ID             string
	Step           int
	CallID         string
	Tool           string
	Kind           Kind
	Files          []string
	Added, Removed int
	Time           time.Time // shown in its own location: pass local times
}

// PreviewMsg asks the root for what rolling back to checkpoint ID would
// change (the diff from now back to it); it answers with SetPreview.
type PreviewMsg struct{ ID string }

// RollbackMsg asks the root to roll back to checkpoint ID, after the person
// confirmed it: the files (Code), the conversation, or both.
type RollbackMsg struct {
	ID           string
	Code         bool
	Conversation bool
}

// ForkMsg asks the root to fork the run from checkpoint ID in this
// workspace (a new run with the files and the conversation of that
// instant), after the person confirmed it.
type ForkMsg struct{ ID string }

// target is what a rollback restores.
type target int

const (
	noTarget target = iota
	targetCode
	targetConversation
	targetBoth
	targetFork // not a rollback: a fork from the checkpoint
)

func (t target) words() string {
	switch t {
	case targetCode:
		return "the files"
	case targetConversation:
		return "the conversation"
	case targetBoth:
		return "the files and the conversation"
	}
	return ""
}

// CheckpointDrawer lists the run's checkpoints, previews what rolling back
// to one would change, and rolls back to one after a "y".
type CheckpointDrawer struct {
	th         *theme.Theme
	renderDiff DiffRenderer

	list          []Checkpoint
	sel, top      int
	width, height int

	confirm target // a rollback waiting for "y"

	previewID   string // "" when no preview is open
	previewDiff string
	previewSet  bool // SetPreview answered
	previewOff  int
	cache       struct {
		id, diff string
		width    int
		lines    []string
	}
}

// NewCheckpoints returns an empty checkpoint drawer.
func NewCheckpoints(opt Options) *CheckpointDrawer {
	return &CheckpointDrawer{th: themeOf(opt), renderDiff: opt.RenderDiff}
}

// SetCheckpoints replaces the list (in the order shown). The selection
// stays on the same checkpoint when it is still listed.
func (d *CheckpointDrawer) SetCheckpoints(list []Checkpoint) {
	var selID string
	if c, ok := d.Selected(); ok {
		selID = c.ID
	}
	d.list = append([]Checkpoint(nil), list...)
	d.sel = 0
	for i, c := range d.list {
		if c.ID == selID {
			d.sel = i
		}
	}
	d.confirm = noTarget
	if d.previewID != "" && !d.listed(d.previewID) {
		d.closePreview()
	}
	d.follow()
}

func (d *CheckpointDrawer) listed(id string) bool {
	for _, c := range d.list {
		if c.ID == id {
			return true
		}
	}
	return false
}

// SetPreview shows diff as the preview of checkpoint id, if that preview
// is still the one open.
func (d *CheckpointDrawer) SetPreview(id, diff string) {
	if id != d.previewID {
		return
	}
	d.previewDiff, d.previewSet, d.previewOff = diff, true, 0
}

// Selected returns the selected checkpoint.
func (d *CheckpointDrawer) Selected() (Checkpoint, bool) {
	if d.sel < 0 || d.sel >= len(d.list) {
		return Checkpoint{}, false
	}
	return d.list[d.sel], true
}

// Checkpoints is the list shown, in its order.
func (d *CheckpointDrawer) Checkpoints() []Checkpoint { return d.list }

// Confirming reports whether a rollback waits for "y".
func (d *CheckpointDrawer) Confirming() bool { return d.confirm != noTarget }

// SetSize sets the box's width and the most rows it may take (0: as many
// as it needs).
func (d *CheckpointDrawer) SetSize(width, height int) {
	d.width, d.height = width, height
	d.follow()
}

// Update handles the keys: up/down select, enter or p previews, c, v and b
// roll back code, conversation or both once "y" confirms (any other key
// cancels), pgup/pgdn scroll the preview, esc closes.
func (d *CheckpointDrawer) Update(msg tea.Msg) (*CheckpointDrawer, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.KeyPressMsg:
		return d, d.key(msg.String())
	case tea.MouseWheelMsg:
		step := 3
		if msg.Button == tea.MouseWheelUp {
			step = -3
		}
		if d.previewID != "" {
			d.previewOff += step
			d.clampPreview()
		} else if step < 0 {
			d.move(-1)
		} else {
			d.move(1)
		}
	}
	return d, nil
}

func (d *CheckpointDrawer) key(k string) tea.Cmd {
	if d.confirm != noTarget {
		t := d.confirm
		d.confirm = noTarget
		d.follow()
		c, ok := d.Selected()
		if k != "y" || !ok {
			return nil // cancelled
		}
		if d.previewID == c.ID {
			d.closePreview() // the diff to now changes with the rollback
		}
		if t == targetFork {
			return func() tea.Msg { return ForkMsg{ID: c.ID} }
		}
		return func() tea.Msg {
			return RollbackMsg{ID: c.ID, Code: t != targetConversation, Conversation: t != targetCode}
		}
	}
	switch k {
	case "esc", "q":
		return func() tea.Msg { return CloseMsg{Which: CheckpointDrawerID} }
	case "up", "k":
		return d.move(-1)
	case "down", "j":
		return d.move(1)
	case "home":
		return d.move(-len(d.list))
	case "end":
		return d.move(len(d.list))
	case "enter", "p":
		c, ok := d.Selected()
		if !ok {
			return nil
		}
		if k == "p" && d.previewID == c.ID {
			d.closePreview()
			return nil
		}
		return d.preview(c.ID)
	case "c":
		d.ask(targetCode)
	case "v":
		d.ask(targetConversation)
	case "b":
		d.ask(targetBoth)
	case "f":
		d.ask(targetFork)
	case "pgup":
		d.previewOff -= max(1, d.previewRows()-1)
		d.clampPreview()
	case "pgdown", "space":
		d.previewOff += max(1, d.previewRows()-1)
		d.clampPreview()
	}
	return nil
}

func (d *CheckpointDrawer) ask(t target) {
	if _, ok := d.Selected(); ok {
		d.confirm = t
		d.follow() // the question takes rows from the list
	}
}

// move changes the selection; an open preview follows it.
func (d *CheckpointDrawer) move(n int) tea.Cmd {
	if len(d.list) == 0 {
		return nil
	}
	old := d.sel
	d.sel = min(max(0, d.sel+n), len(d.list)-1)
	d.follow()
	if d.sel != old && d.previewID != "" {
		return d.preview(d.list[d.sel].ID)
	}
	return nil
}

func (d *CheckpointDrawer) preview(id string) tea.Cmd {
	d.previewID, d.previewDiff, d.previewSet, d.previewOff = id, "", false, 0
	d.follow()
	return func() tea.Msg { return PreviewMsg{ID: id} }
}

func (d *CheckpointDrawer) closePreview() {
	d.previewID, d.previewDiff, d.previewSet, d.previewOff = "", "", false, 0
	d.follow()
}

// follow scrolls the list so the selection is shown.
func (d *CheckpointDrawer) follow() {
	per := d.listEntries()
	if d.sel < d.top {
		d.top = d.sel
	}
	if d.sel >= d.top+per {
		d.top = d.sel - per + 1
	}
	d.top = min(max(0, d.top), max(0, len(d.list)-per))
}

// Rows: the box (2), title, rule, then two rows per entry, and at the
// bottom a rule and the hint or confirmation. A preview takes a rule, its
// title and its lines.
const entryRows = 2

func (d *CheckpointDrawer) chrome() int {
	return d.th.Box.GetVerticalFrameSize() + 3 + len(d.bottomRows(contentWidth(d.th, d.width)))
}

// listEntries is how many entries fit.
func (d *CheckpointDrawer) listEntries() int {
	n := max(1, len(d.list))
	if d.height <= 0 {
		return n
	}
	room := d.height - d.chrome()
	if d.previewID != "" {
		// The preview gets what is left after up to a third of the rows
		// for the list (at least two entries).
		room = max(entryRows*2, room/3)
	}
	return max(1, min(n, room/entryRows))
}

// previewRows is the rows the preview's lines get.
func (d *CheckpointDrawer) previewRows() int {
	lines := len(d.previewLines())
	if d.height <= 0 {
		return lines
	}
	used := d.chrome() + d.listEntries()*entryRows + 2
	return max(1, min(lines, d.height-used))
}

func (d *CheckpointDrawer) clampPreview() {
	d.previewOff = min(max(0, d.previewOff), max(0, len(d.previewLines())-d.previewRows()))
}

func (d *CheckpointDrawer) previewLines() []string {
	if d.previewID == "" {
		return nil
	}
	th := d.th
	cw := contentWidth(th, d.width)
	switch {
	case !d.previewSet:
		return []string{th.Dim.Render("loading the diff…")}
	case strings.TrimSpace(d.previewDiff) == "":
		return []string{th.Dim.Render("no changes between this checkpoint and now")}
	}
	if d.cache.id == d.previewID && d.cache.diff == d.previewDiff && d.cache.width == cw {
		return d.cache.lines
	}
	diff := termtext.VisibleSpaced(d.previewDiff)
	var lines []string
	if d.renderDiff != nil {
		out := d.renderDiff(diff, cw, max(1, d.height))
		for _, l := range strings.Split(strings.TrimRight(out, "\n"), "\n") {
			if ansi.StringWidth(l) > cw {
				l = ansi.Truncate(l, cw, "…")
			}
			lines = append(lines, l)
		}
	} else {
		lines = textutil.PlainDiff(diff, cw, textutil.DiffStyles{Text: th.Text, Header: th.Dim, Hunk: th.HunkLine, Add: th.Add, Del: th.Del})
	}
	d.cache.id, d.cache.diff, d.cache.width, d.cache.lines = d.previewID, d.previewDiff, cw, lines
	return lines
}

// name says what a checkpoint is in a few words.
func name(c Checkpoint) string {
	if c.Kind == KindRollback {
		return theme.GlyphUndo + " undo rollback"
	}
	s := termtext.OneLine(string(c.Kind))
	if c.Tool != "" {
		s += " " + termtext.OneLine(c.Tool)
	}
	return s
}

func (d *CheckpointDrawer) entry(c Checkpoint, selected bool, cw int) []string {
	th := d.th
	mark := "  "
	if selected {
		mark = "› "
	}
	left := fmt.Sprintf("%sstep %d · %s", mark, c.Step, name(c))
	if c.CallID != "" && c.Kind != KindRollback {
		left += " · " + termtext.OneLine(c.CallID)
	}
	var right string
	if c.Added > 0 || c.Removed > 0 {
		// a checkpoint without a patch of its own (before a call) has no counts
		right = th.Add.Render(fmt.Sprintf("+%d", c.Added)) + " " + th.Del.Render(fmt.Sprintf("−%d", c.Removed))
	}
	if !c.Time.IsZero() && cw >= 50 {
		right += "  " + th.Dim.Render(c.Time.Format("15:04:05"))
	}
	if cw >= 100 && c.ID != "" {
		right += "  " + th.Faint.Render(ansi.Truncate(termtext.OneLine(c.ID), 7, ""))
	}
	nameStyle := th.Text
	if c.Kind == KindRollback {
		nameStyle = th.InfoText
	}
	top := textutil.Spread(nameStyle.Render(left), right, cw)
	bottom := "    " + th.Dim.Render(d.files(c, cw-4))
	if selected {
		top = th.Selected.Render(ansi.Strip(top))
		bottom = th.Selected.Render(ansi.Strip(textutil.Fit(bottom, cw)))
	}
	return []string{top, bottom}
}

// files lists the changed files that fit in width, then how many more.
func (d *CheckpointDrawer) files(c Checkpoint, width int) string {
	switch len(c.Files) {
	case 0:
		return "no files changed"
	}
	n := len(c.Files)
	head := fmt.Sprintf("%d files: ", n)
	if n == 1 {
		head = "1 file: "
	}
	s := head
	for i, f := range c.Files {
		part := termtext.OneLine(f)
		if i > 0 {
			part = ", " + part
		}
		more := ""
		if rest := n - i - 1; rest > 0 {
			more = fmt.Sprintf(", +%d more", rest)
		}
		if i > 0 && ansi.StringWidth(s+part+more) > width {
			more = fmt.Sprintf(", +%d more", n-i)
			return textutil.Shorten(s, max(1, width-len(more))) + more
		}
		s += part
	}
	return textutil.Shorten(s, width)
}

// bottomRows are the confirmation (the question wrapped, then how to
// answer) or the keys.
func (d *CheckpointDrawer) bottomRows(cw int) []string {
	th := d.th
	if d.confirm != noTarget {
		c, _ := d.Selected()
		what := fmt.Sprintf("roll back %s to step %d (%s)?", d.confirm.words(), c.Step, name(c))
		switch {
		case d.confirm == targetFork:
			what = fmt.Sprintf("fork from step %d (%s): a new run with the files and the conversation of that instant, here (this run stays resumable)?", c.Step, name(c))
		case c.Kind == KindRollback:
			what = fmt.Sprintf("undo the rollback (%s)?", d.confirm.words())
		}
		var rows []string
		for _, l := range textutil.Wrap(what, cw) {
			rows = append(rows, th.WarnText.Render(l))
		}
		return append(rows, th.Key.Render("y")+th.Text.Render(textutil.Shorten(" to confirm, any other key cancels", max(1, cw-1))))
	}
	if len(d.list) == 0 {
		return []string{th.Faint.Render(textutil.Shorten("esc close", cw))}
	}
	hints := []string{
		"↑↓ select · enter preview · c code · v conversation · b both · f fork · esc close",
		"↑↓ · enter preview · c code · v conversation · b both · esc",
		"↑↓ · enter/p · c v b roll back · esc",
	}
	if d.previewID != "" {
		hints = []string{
			"↑↓ select · pgup pgdn scroll · p hide · c code · v conversation · b both · f fork · esc close",
			"↑↓ · pgup pgdn · p hide · c code · v conversation · b both · esc",
			"↑↓ · pgup pgdn · p · c v b roll back · esc",
		}
	}
	return []string{th.Faint.Render(textutil.Shorten(textutil.FirstFit(hints, cw), cw))}
}

// View renders the list, the preview when open, and the hint or the
// confirmation on the last row.
func (d *CheckpointDrawer) View() string {
	th := d.th
	cw := contentWidth(th, d.width)
	rule := th.Faint.Render(strings.Repeat("─", cw))
	title := th.Title.Render("Checkpoints")
	if n := len(d.list); n > 0 {
		title += th.Dim.Render(fmt.Sprintf(" · %d", n))
	}
	if per := d.listEntries(); len(d.list) > per {
		title += th.Faint.Render(fmt.Sprintf(" · %d–%d shown", d.top+1, d.top+per))
	}
	rows := []string{textutil.Spread(title, th.Faint.Render("esc close"), cw), rule}
	if len(d.list) == 0 {
		rows = append(rows, th.Text.Render("no checkpoints yet"),
			th.Faint.Render(textutil.Shorten("one is taken before and after each call that changes files", cw)))
	}
	end := min(len(d.list), d.top+d.listEntries())
	for i := d.top; i < end; i++ {
		rows = append(rows, d.entry(d.list[i], i == d.sel, cw)...)
	}
	if d.previewID != "" {
		c := Checkpoint{ID: d.previewID}
		for _, x := range d.list {
			if x.ID == d.previewID {
				c = x
			}
		}
		lines := d.previewLines()
		shown, off := window(lines, d.previewOff, d.previewRows())
		// the preview is what the rollback would do: from the files now
		// back to the checkpoint's
		label := fmt.Sprintf("rolling back to step %d · %s changes", c.Step, name(c))
		if c.Kind == KindRollback {
			label = "undoing the rollback changes"
		}
		if len(shown) < len(lines) {
			label += fmt.Sprintf(" · lines %d–%d of %d", off+1, off+len(shown), len(lines))
		}
		rows = append(rows, rule, th.Dim.Render(textutil.Shorten(label, cw)))
		rows = append(rows, shown...)
	}
	rows = append(rows, rule)
	rows = append(rows, d.bottomRows(cw)...)
	return boxed(th, boxWidth(d.width), rows)
}
