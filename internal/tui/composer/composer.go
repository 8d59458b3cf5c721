// Package composer owns the TUI's input box: a multi-line editor that
// soft-wraps and grows to a height, then scrolls; big pastes folded to one
// "[Pasted N lines #k]" token (sent in full); slash-command completion at
// the start of the text and fuzzy workspace-path completion after '@'
// (the chosen files are attached to the message); and a prompt history
// recalled with up and down, kept in memory and optionally in a file.
//
// Keys: enter sends (or accepts the open completion); shift+enter, ctrl+j,
// alt+enter, and a trailing backslash before enter insert a newline; tab
// accepts a completion; up/down move in the text and recall history at its
// first/last row (they move in an open popup); esc closes a popup; ctrl+u
// clears; the usual readline moves and deletions work. Keys it does not use
// (esc without a popup, pgup, ctrl+c, ...) are left to the root: Consumed
// reports whether the last message was used.
//
// The history file, when the root names one, holds one JSON object per line
// ({"text": ...}), mode 0600, at most MaxHistory entries, replaced atomically
// on each submission. A folded paste is never written to it, only its label
// (a big paste may hold secrets); typed text and smaller pastes are written,
// through Options.HistoryRedact when the root gives one.
//
// It renders only from its own state and the theme, writes no file but the
// history file the root names, reads none but that file and the workspace
// listing, and must not import the agent, the app layer or another
// component: it gets plain data (a file list, commands) and hands back
// plain messages (SubmitMsg). Reading an attached file is the root's job.
package composer

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"

	tea "charm.land/bubbletea/v2"

	"agent/internal/tui/theme"
)

// Default placeholders.
const (
	DefaultPlaceholder     = "Ask, or / for commands, @ to attach a file"
	DefaultBusyPlaceholder = "Working… type a follow-up"
)

// Options configure a composer; the zero value works.
type Options struct {
	// Theme gives colours and glyphs (default: dark, NO_COLOR from the
	// environment).
	Theme *theme.Theme
	// Commands are the slash commands completed after '/' (default:
	// DefaultCommands()).
	Commands []Command
	// Files lists the workspace files '@' completes (see WorkspaceFiles).
	// It is called in a tea.Cmd each time an @ completion opens, so a new
	// file shows up; the last list is used meanwhile. Nil: only what
	// SetFiles gives.
	Files FileLister
	// HistoryPath is the history file ("" keeps history in memory only).
	HistoryPath string
	// HistoryRedact, if set, is applied to each entry before it is
	// written to the history file.
	HistoryRedact func(string) string
	// Placeholder and BusyPlaceholder are shown in the empty box (idle, and
	// while a run streams).
	Placeholder, BusyPlaceholder string
	// Inline makes enter's submission wait in the model for TakeSubmit
	// (called right after Update) instead of arriving as a SubmitMsg: it
	// then keeps its order with the keys typed after it, which a message
	// from a command does not.
	Inline bool
}

// SubmitMsg is what enter sends: the root runs the command, or sends the
// text (as a new turn, or a follow-up or queued message when Busy).
type SubmitMsg struct {
	// Text is the message with every folded paste expanded to its full
	// content; leading blank lines and trailing whitespace are trimmed.
	Text string
	// Display is the message as the box showed it (folds as their
	// labels), for a transcript that should not print a 500-line paste.
	Display string
	// Attachments are the workspace-relative paths of the files attached
	// with '@' (chosen from the completion, or typed as @PATH of a listed
	// file), in the order they appear, each once.
	Attachments []string
	// Command is the slash command, or nil for a message.
	Command *Slash
	// Busy is whether the composer was in its busy state (a run was
	// streaming) when enter was pressed.
	Busy bool
}

// instance identifies one composer across copies of its Model, so that the
// answers of its tea.Cmds reach it and no other.
type instance struct {
	hist *historyFile
}

// Model is the composer. Use the Model that Update returns.
type Model struct {
	ctx    context.Context
	inst   *instance
	th     *theme.Theme
	paint  *paints
	cmds   []Command
	lister FileLister

	placeholder, busyPlaceholder string
	inline                       bool
	pending                      *SubmitMsg // the inline submission not yet taken

	ed       editor
	nextFold int
	accepted []string // paths chosen from the @ completion
	attached []string // what the text attaches now (see attachments)
	hist     history

	width, height int
	scroll        int
	focused, busy bool

	pop   popup
	files fileState

	consumed bool
	notice   string
}

// New returns a focused, empty composer. ctx bounds its background work
// (listing files, reading and writing the history file).
func New(ctx context.Context, opts Options) Model {
	th := opts.Theme
	if th == nil {
		th = theme.New(true, theme.NoColorEnv())
	}
	cmds := opts.Commands
	if cmds == nil {
		cmds = DefaultCommands()
	}
	m := Model{
		ctx:             ctx,
		inst:            &instance{},
		th:              th,
		paint:           newPaints(th),
		cmds:            cmds,
		lister:          opts.Files,
		placeholder:     opts.Placeholder,
		busyPlaceholder: opts.BusyPlaceholder,
		inline:          opts.Inline,
		ed:              newEditor(),
		nextFold:        1,
		focused:         true,
	}
	if m.placeholder == "" {
		m.placeholder = DefaultPlaceholder
	}
	if m.busyPlaceholder == "" {
		m.busyPlaceholder = DefaultBusyPlaceholder
	}
	if opts.HistoryPath != "" {
		m.inst.hist = &historyFile{path: opts.HistoryPath, redact: opts.HistoryRedact}
	}
	m.SetSize(80, 12)
	return m
}

// Init reads the history file, if there is one.
func (m Model) Init() tea.Cmd {
	if m.inst.hist == nil {
		return nil
	}
	return m.inst.hist.loadCmd(m.ctx, m.inst)
}

// SetSize sets the width of the composer and the most lines its view may
// take (the box, an open popup and the line under it); the text area grows
// up to what is left, then scrolls.
func (m *Model) SetSize(width, height int) {
	m.width = max(width, 12)
	m.height = max(height, 3)
	m.ed.setWidth(m.textWidth())
	m.fixScroll()
}

// SetTheme repaints the composer in th (when the terminal reports its
// background); the text, history and folds stay.
func (m *Model) SetTheme(th *theme.Theme) {
	if th == nil {
		return
	}
	m.th = th
	m.paint = newPaints(th)
}

// Width is the composer's width.
func (m Model) Width() int { return m.width }

// Focus lets the composer take keys; Blur makes it ignore them (and show
// no cursor), for when a dialog has the keyboard.
func (m *Model) Focus()         { m.focused = true }
func (m *Model) Blur()          { m.focused = false }
func (m Model) Focused() bool   { return m.focused }
func (m *Model) SetBusy(b bool) { m.busy = b }
func (m Model) Busy() bool      { return m.busy }

// Consumed reports whether the last message given to Update was used by
// the composer. A key it does not use (esc with no popup open, pgup, ctrl+c,
// tab with no popup) is the root's.
func (m Model) Consumed() bool { return m.consumed }

// PopupOpen reports whether a completion popup is open.
func (m Model) PopupOpen() bool { return m.pop.kind != popNone }

// Empty reports whether the box holds no text.
func (m Model) Empty() bool { return m.ed.empty() }

// Value is the text with folded pastes expanded.
func (m Model) Value() string { return m.expand(m.ed.text()) }

// SetValue replaces the text (for a queued message put back by the root);
// the cursor goes to its end.
func (m *Model) SetValue(s string) {
	m.ed.folds = nil
	m.nextFold = 1
	m.accepted = nil
	m.ed.setText([]rune(sanitize(s, true)))
	m.hist.pos = len(m.hist.entries)
	m.pop = popup{}
	m.notice = ""
	m.updateAttached()
	m.fixScroll()
}

// Reset clears the text, its folds and attachments.
func (m *Model) Reset() { m.SetValue("") }

// SetFiles sets the file list '@' completes (paths relative to the
// workspace, slash-separated).
func (m *Model) SetFiles(l FileList) {
	m.files.set(l)
	m.refreshItems()
	m.updateAttached()
}

// Update handles keys, pastes and the answers of the composer's commands.
func (m Model) Update(msg tea.Msg) (Model, tea.Cmd) {
	m.consumed = false
	switch msg := msg.(type) {
	case tea.KeyPressMsg:
		if !m.focused {
			return m, nil
		}
		cmd := m.key(msg)
		return m, cmd
	case tea.PasteMsg:
		if !m.focused {
			return m, nil
		}
		m.consumed = true
		m.paste(msg.Content)
		return m, m.afterEdit(true)
	case filesLoadedMsg:
		if msg.inst != m.inst {
			return m, nil
		}
		m.consumed = true
		m.files.loaded(msg)
		m.refreshItems()
		return m, nil
	case historyLoadedMsg:
		if msg.inst != m.inst {
			return m, nil
		}
		m.consumed = true
		cmd := m.historyLoaded(msg)
		m.fixScroll()
		return m, cmd
	case historySavedMsg:
		if msg.inst != m.inst {
			return m, nil
		}
		m.consumed = true
		if msg.err != nil {
			m.notice = msg.err.Error()
			m.fixScroll()
		}
		return m, nil
	}
	return m, nil
}

// key handles one key press.
func (m *Model) key(k tea.KeyPressMsg) tea.Cmd {
	s := k.String()
	m.consumed = true
	if m.pop.kind != popNone && len(m.pop.items) > 0 {
		switch s {
		case "up", "ctrl+p", "shift+tab":
			m.pop.move(-1)
			return nil
		case "down", "ctrl+n":
			m.pop.move(1)
			return nil
		case "enter":
			// a command that takes no arguments, or only optional ones
			// ("[PATH]"), runs at once, as typed in full; one that needs
			// arguments is completed for them
			a := m.pop.items[m.pop.sel].args
			run := m.pop.kind == popSlash && (a == "" || strings.HasPrefix(a, "[")) && m.ed.row == 0
			cmd := m.accept()
			if run {
				return m.submit()
			}
			return cmd
		case "tab":
			return m.accept()
		}
	}
	if m.pop.kind != popNone && s == "esc" {
		m.pop.dismiss()
		return nil
	}
	e := &m.ed
	rev := e.rev
	switch s {
	case "enter":
		if e.runeBefore() == '\\' && e.col == len(e.lines[e.row]) {
			e.backspace()
			e.insert([]rune{'\n'})
			break
		}
		return m.submit()
	case "shift+enter", "ctrl+j", "alt+enter":
		e.insert([]rune{'\n'})
	case "backspace", "ctrl+h", "shift+backspace":
		e.backspace()
	case "delete", "ctrl+d":
		e.deleteForward()
	case "ctrl+w", "alt+backspace", "ctrl+backspace":
		e.deleteWordLeft()
	case "alt+d", "alt+delete", "ctrl+delete":
		e.deleteWordRight()
	case "ctrl+k":
		e.killLine()
	case "ctrl+u":
		m.Reset()
		return nil
	case "left", "ctrl+b":
		e.left()
	case "right", "ctrl+f":
		e.right()
	case "alt+left", "ctrl+left", "alt+b":
		e.wordLeft()
	case "alt+right", "ctrl+right", "alt+f":
		e.wordRight()
	case "home", "ctrl+a":
		e.home()
	case "end", "ctrl+e":
		e.lineEnd()
	case "ctrl+home", "alt+<":
		e.begin()
	case "ctrl+end", "alt+>":
		e.end()
	case "up":
		if e.onFirstRow() && m.recall(-1) {
			return m.afterEdit(false)
		}
		e.vertical(-1)
	case "down":
		if e.onLastRow() && m.recall(1) {
			return m.afterEdit(false)
		}
		e.vertical(1)
	default:
		if k.Text == "" || k.Mod&(tea.ModCtrl|tea.ModAlt|tea.ModMeta|tea.ModSuper|tea.ModHyper) != 0 {
			m.consumed = false
			return nil
		}
		if t := sanitize(k.Text, false); t != "" {
			e.insert([]rune(t))
		}
	}
	return m.afterEdit(e.rev != rev)
}

// afterEdit updates what follows from the text or the cursor: a change
// makes the text the draft again, clears the notice and refreshes the
// popup and the scroll.
func (m *Model) afterEdit(changed bool) tea.Cmd {
	if changed {
		m.hist.pos = len(m.hist.entries)
		m.notice = ""
	}
	return m.afterChange()
}

func (m *Model) afterChange() tea.Cmd {
	cmd := m.refreshPopup()
	m.updateAttached()
	m.fixScroll()
	return cmd
}

// updateAttached recomputes the files the text attaches now (shown under
// the box).
func (m *Model) updateAttached() {
	m.attached = nil
	if len(m.accepted) > 0 || m.files.count() > 0 {
		m.attached = m.attachments(m.display(m.ed.text()))
	}
}

// paste inserts pasted text: folded to one token when it is big.
func (m *Model) paste(s string) {
	s = normalizePaste(s)
	if s == "" {
		return
	}
	if shouldFold(s) && foldBase+m.nextFold <= foldMax {
		k := m.nextFold
		m.nextFold++
		if m.ed.folds == nil {
			m.ed.folds = map[int]fold{}
		}
		m.ed.folds[k] = fold{text: s, lines: countLines(s)}
		m.ed.insert([]rune{foldRune(k)})
		return
	}
	m.ed.insert([]rune(s))
}

// expand turns buffer text into the message: folds become their content.
func (m Model) expand(rs []rune) string {
	var b strings.Builder
	for _, r := range rs {
		if isFold(r) {
			b.WriteString(m.ed.folds[foldID(r)].text)
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}

// display turns buffer text into what the box shows: folds as labels.
func (m Model) display(rs []rune) string {
	var b strings.Builder
	for _, r := range rs {
		if isFold(r) {
			b.WriteString(m.ed.label(r))
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}

// trimDraft drops leading blank lines and trailing whitespace.
func trimDraft(rs []rune) []rune {
	for len(rs) > 0 && rs[0] == '\n' {
		rs = rs[1:]
	}
	for len(rs) > 0 && (rs[len(rs)-1] == '\n' || rs[len(rs)-1] == ' ' || rs[len(rs)-1] == '\t') {
		rs = rs[:len(rs)-1]
	}
	return rs
}

// submit sends the draft: a SubmitMsg, a history entry, an empty box.
func (m *Model) submit() tea.Cmd {
	rs := trimDraft(m.ed.text())
	if strings.TrimSpace(m.display(rs)) == "" {
		return nil
	}
	text := m.expand(rs)
	var slash *Slash
	if word, rest, ok := slashWord(text); ok {
		if c, found := lookup(m.cmds, word); found {
			slash = &Slash{Name: c.Name, Typed: word, Args: rest}
		} else if !strings.Contains(word, "/") {
			m.notice = fmt.Sprintf("unknown command /%s: /help lists the commands (start with a space to send it as a message)", word)
			m.fixScroll()
			return nil
		}
	}
	msg := SubmitMsg{
		Text:        text,
		Display:     m.display(rs),
		Attachments: m.attachments(m.display(rs)),
		Command:     slash,
		Busy:        m.busy,
	}
	m.hist.add(entry{text: slices.Clone(rs), folds: maps.Clone(m.ed.folds), accepted: slices.Clone(m.accepted)})
	var save tea.Cmd
	if hf := m.inst.hist; hf != nil {
		save = hf.saveCmd(m.inst, m.hist.entries)
	}
	m.Reset()
	if m.inline {
		m.pending = &msg
		return save
	}
	return tea.Batch(func() tea.Msg { return msg }, save)
}

// TakeSubmit returns the submission enter made in the last Update, once
// (with Options.Inline).
func (m *Model) TakeSubmit() (SubmitMsg, bool) {
	if m.pending == nil {
		return SubmitMsg{}, false
	}
	msg := *m.pending
	m.pending = nil
	return msg, true
}
