// Package approve owns the TUI's approval prompt: a queue of tool calls that
// wait for a person, the head shown in a bordered box with the exact diff or
// command, why it asks, and four options whose keys never change
// (1/y allow once, 2/a allow for this run, 3/n/Esc deny, 4/Tab deny with a
// note typed inline; e edits the rule "allow for this run" adds, f shows the
// diff fullscreen, t side by side). Keys are ignored for a short guard after a request
// opens, so a keystroke meant for the composer cannot approve it.
//
// It gets plain data (Request) and answers with typed messages
// (DecisionMsg); it must not import the agent, the app layer or other TUI
// components, decide anything by itself, or log what it shows.
package approve

import (
	"time"

	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"

	"agent/internal/termtext"
	"agent/internal/tui/theme"
)

// Risk is what a call would do.
type Risk string

// Risks that ask a person.
const (
	RiskWrite Risk = "write"
	RiskExec  Risk = "exec"
)

// Request is one call waiting for a person. Every text in it has passed
// redaction; it is still untrusted (model output), so it is shown with its
// control characters made visible.
type Request struct {
	ID     string // opaque; DecisionMsg.ID carries it back
	RunID  string
	Step   int // the turn the call belongs to
	CallID string
	Tool   string
	Risk   Risk
	// Summary is the command (exec) or the path (write).
	Summary string
	// Arguments is the call's JSON arguments.
	Arguments string
	// Diff is the unified diff a file tool would make; "" for commands.
	Diff string
	// Reason says why a person is asked.
	Reason string
	// GrantLabel names the scope and expiry of "allow for this run", e.g.
	// "for this run: run_command(go test ./...) until 15:42".
	GrantLabel string
	// SuggestRule, when set, is a broader rule "allow for this run" could
	// add instead (run_command(go test *)): e opens it for editing, enter
	// grants what was typed (DecisionMsg.Rule). "" : the rule is fixed.
	SuggestRule string
	// Subagent is the description of the child run (a task call's) whose
	// call this is; "" for the run's own calls.
	Subagent string
}

// Choice is the person's answer.
type Choice int

// Choices, numbered as the keys that give them.
const (
	AllowOnce    Choice = iota + 1 // 1 / y
	AllowRun                       // 2 / a
	Deny                           // 3 / n / esc
	DenyWithNote                   // 4 / tab, then the note and enter
)

// denyLabel says what a plain deny does: the run stops and waits for the
// person (a deny with a note goes on, the model reading the note).
const denyLabel = "deny and stop the turn"

func (c Choice) String() string {
	switch c {
	case AllowOnce:
		return "allow once"
	case AllowRun:
		return "allow for this run"
	case Deny:
		return denyLabel
	case DenyWithNote:
		return "deny with a note"
	}
	return "unknown"
}

// DecisionMsg answers the request with ID. Note is set for DenyWithNote;
// Rule, for AllowRun, when the person edited the rule to grant.
type DecisionMsg struct {
	ID     string
	Choice Choice
	Note   string
	Rule   string
}

// DiffRenderer renders a whole unified diff for a width (the diff view).
// The prompt scrolls the lines it returns and cuts any longer than width;
// height is the most rows the prompt has, a hint.
type DiffRenderer func(diff string, width, height int) string

// DefaultGuard is how long keys are ignored after a request opens.
const DefaultGuard = 300 * time.Millisecond

// Options configure a prompt.
type Options struct {
	Theme *theme.Theme // nil: the dark theme
	// Now is the clock (nil: time.Now); the guard is measured with it.
	Now func() time.Time
	// Guard is how long keys are ignored after a request opens
	// (0: DefaultGuard; negative: no guard).
	Guard time.Duration
	// RenderDiff renders a diff (nil: a plain view with +/- lines coloured).
	RenderDiff DiffRenderer
	// RenderSplit renders a diff side by side, for t (nil: t does nothing).
	RenderSplit DiffRenderer
}

// FullscreenMsg asks the root to show the head's diff over the whole
// screen (f); the prompt stays open under it, undecided.
type FullscreenMsg struct {
	ID, Title, Diff string
}

// Model is the approval prompt and its queue. The zero value is not usable;
// call New.
type Model struct {
	th          *theme.Theme
	now         func() time.Time
	guard       time.Duration
	renderDiff  DiffRenderer
	renderSplit DiffRenderer
	split       bool // t: the diff side by side

	queue    []Request
	openedAt time.Time

	width, height int
	offset        int // first body line shown

	noting      bool
	ruling      bool   // the editor holds the rule of "allow for this run" (e)
	noteDraft   string // the note typed before e, given back after it
	noteMissing bool
	note        textinput.Model

	cache bodyCache
}

type bodyCache struct {
	id    string
	width int
	split bool
	lines []string
}

// New returns an empty prompt.
func New(opt Options) *Model {
	m := &Model{th: opt.Theme, now: opt.Now, guard: opt.Guard, renderDiff: opt.RenderDiff, renderSplit: opt.RenderSplit}
	if m.th == nil {
		m.th = theme.New(true, false)
	}
	if m.now == nil {
		m.now = time.Now
	}
	if m.guard == 0 {
		m.guard = DefaultGuard
	}
	m.note = textinput.New()
	m.note.Prompt = ""
	m.note.Placeholder = "what the model should do instead"
	m.note.CharLimit = 2000
	st := textinput.Styles{
		Focused: textinput.StyleState{Text: m.th.Text, Placeholder: m.th.Faint, Suggestion: m.th.Faint, Prompt: m.th.Key},
		Blurred: textinput.StyleState{Text: m.th.Dim, Placeholder: m.th.Faint, Suggestion: m.th.Faint, Prompt: m.th.Dim},
		Cursor:  textinput.CursorStyle{Shape: tea.CursorBlock},
	}
	if !m.th.NoColor {
		st.Cursor.Color = m.th.Accent
	}
	m.note.SetStyles(st)
	return m
}

// Push queues a request. A request whose ID is already queued is ignored.
// The first request opens the prompt (and starts the guard).
func (m *Model) Push(req Request) {
	for _, q := range m.queue {
		if q.ID == req.ID {
			return
		}
	}
	m.queue = append(m.queue, req)
	if len(m.queue) == 1 {
		m.open()
	}
}

// Drop removes the request with id without answering it (it was resolved
// elsewhere, e.g. its run was interrupted). It reports whether it was queued.
func (m *Model) Drop(id string) bool {
	for i, q := range m.queue {
		if q.ID == id {
			m.queue = append(m.queue[:i:i], m.queue[i+1:]...)
			if i == 0 && len(m.queue) > 0 {
				m.open()
			}
			return true
		}
	}
	return false
}

// Active reports whether a request is shown (the prompt takes the keys).
func (m *Model) Active() bool { return len(m.queue) > 0 }

// Len is the number of requests waiting, the shown one included.
func (m *Model) Len() int { return len(m.queue) }

// Head returns the shown request.
func (m *Model) Head() (Request, bool) {
	if len(m.queue) == 0 {
		return Request{}, false
	}
	return m.queue[0], true
}

// Noting reports whether the note editor is open.
func (m *Model) Noting() bool { return m.noting }

// SetSize sets the width of the box and the most rows it may take
// (0: as many as it needs).
func (m *Model) SetSize(width, height int) {
	m.width, m.height = width, height
	m.note.SetWidth(max(1, m.noteWidth()))
	m.clamp()
}

// open shows the head: scrolled to the top, the options, the guard armed.
func (m *Model) open() {
	m.openedAt = m.now()
	m.offset = 0
	m.noting, m.noteMissing, m.ruling = false, false, false
	m.note.Reset()
	m.note.Blur()
}

func (m *Model) guarded() bool {
	return m.guard > 0 && m.now().Sub(m.openedAt) < m.guard
}

// Update handles keys, pastes and the mouse wheel while a request is shown.
// Keys that arrive within the guard after a request opens are swallowed.
func (m *Model) Update(msg tea.Msg) (*Model, tea.Cmd) {
	if len(m.queue) == 0 {
		return m, nil
	}
	switch msg := msg.(type) {
	case tea.KeyPressMsg:
		if m.guarded() {
			return m, nil
		}
		if m.noting {
			return m, m.updateNote(msg)
		}
		return m, m.updateOptions(msg)
	case tea.PasteMsg:
		if m.noting && !m.guarded() {
			var cmd tea.Cmd
			m.note, cmd = m.note.Update(msg)
			m.noteMissing = false
			return m, cmd
		}
	case tea.MouseWheelMsg:
		switch msg.Button {
		case tea.MouseWheelUp:
			m.scroll(-3)
		case tea.MouseWheelDown:
			m.scroll(3)
		}
	}
	return m, nil
}

func (m *Model) updateOptions(msg tea.KeyPressMsg) tea.Cmd {
	switch msg.String() {
	case "1", "y", "Y":
		return m.decide(AllowOnce, "")
	case "2", "a", "A":
		return m.decide(AllowRun, "")
	case "3", "n", "N", "esc":
		return m.decide(Deny, "")
	case "4", "tab":
		m.noting, m.noteMissing, m.ruling = true, false, false
		return m.note.Focus()
	case "e":
		if head := m.queue[0]; head.SuggestRule != "" {
			m.noting, m.noteMissing, m.ruling = true, false, true
			m.noteDraft = m.note.Value()
			m.note.SetValue(head.SuggestRule)
			m.note.CursorEnd()
			return m.note.Focus()
		}
	case "t":
		if head := m.queue[0]; head.Diff != "" && m.renderSplit != nil {
			m.split = !m.split
			m.cache = bodyCache{}
			m.clamp()
		}
	case "f":
		if head := m.queue[0]; head.Diff != "" {
			msg := FullscreenMsg{ID: head.ID, Title: Title(head), Diff: head.Diff}
			return func() tea.Msg { return msg }
		}
	case "up", "k":
		m.scroll(-1)
	case "down", "j":
		m.scroll(1)
	case "pgup":
		m.scroll(-max(1, m.layout().bodyH-1))
	case "pgdown", "space":
		m.scroll(max(1, m.layout().bodyH-1))
	case "home":
		m.offset = 0
	case "end":
		m.scroll(len(m.body()))
	}
	// Anything else (enter included) is ignored: only the option keys decide.
	return nil
}

func (m *Model) updateNote(msg tea.KeyPressMsg) tea.Cmd {
	switch msg.String() {
	case "esc":
		if m.ruling {
			m.note.SetValue(m.noteDraft) // the note, not the rule, stays
		}
		m.noting, m.noteMissing, m.ruling = false, false, false
		m.note.Blur()
		return nil
	case "enter":
		note := m.note.Value()
		if termtext.OneLine(note) == "" {
			m.noteMissing = true
			return nil
		}
		if m.ruling {
			return m.decideRule(termtext.OneLine(note))
		}
		return m.decide(DenyWithNote, note)
	case "pgup":
		m.scroll(-max(1, m.layout().bodyH-1))
		return nil
	case "pgdown":
		m.scroll(max(1, m.layout().bodyH-1))
		return nil
	}
	var cmd tea.Cmd
	m.note, cmd = m.note.Update(msg)
	m.noteMissing = false
	return cmd
}

// decide answers the head and opens the next request. What a denial with
// a note does to the turn's other calls is the loop's rule, not the
// prompt's: they are never asked.
func (m *Model) decide(c Choice, note string) tea.Cmd {
	return m.answer(DecisionMsg{ID: m.queue[0].ID, Choice: c, Note: note})
}

// decideRule allows the head for the run under the rule the person typed.
func (m *Model) decideRule(rule string) tea.Cmd {
	return m.answer(DecisionMsg{ID: m.queue[0].ID, Choice: AllowRun, Rule: rule})
}

func (m *Model) answer(d DecisionMsg) tea.Cmd {
	msgs := []tea.Msg{d}
	m.queue = m.queue[1:]
	m.note.Reset()
	m.note.Blur()
	m.noting, m.noteMissing, m.ruling = false, false, false
	if len(m.queue) > 0 {
		m.open()
	}
	cmds := make([]tea.Cmd, len(msgs))
	for i, msg := range msgs {
		cmds[i] = func() tea.Msg { return msg }
	}
	return tea.Batch(cmds...)
}

func (m *Model) scroll(n int) {
	m.offset += n
	m.clamp()
}

func (m *Model) clamp() {
	if len(m.queue) == 0 {
		m.offset = 0
		return
	}
	maxOff := max(0, len(m.body())-m.layout().bodyH)
	m.offset = min(max(0, m.offset), maxOff)
}

// box is the style of the prompt's frame: a thick border in the colour of
// the head's risk (the frame's shape says "a decision" without colour).
func (m *Model) box() lipgloss.Style {
	b := m.th.Box.Border(lipgloss.ThickBorder())
	if len(m.queue) > 0 && !m.th.NoColor {
		b = b.BorderForeground(riskColour(m.th, m.queue[0].Risk))
	}
	return b
}
