// Package activity owns the TUI's sign of life: one line above the
// composer while something runs (a model request, a tool, a compaction),
// with a spinner, what runs, the time it has taken and how to interrupt
// it, and a notice beside it (a retry's countdown, a silent model).
//
// It ticks only while something runs: with nothing running it schedules no
// tick and draws nothing, so an idle session costs no CPU. It renders plain
// data the root gives it; it must not import the agent, the app layer or
// other TUI components.
package activity

import (
	"fmt"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"agent/internal/termtext"
	"agent/internal/tui/theme"
)

// Kind is what runs.
type Kind uint8

// Kinds of activity.
const (
	None Kind = iota
	// Thinking: a model request waits for its first token.
	Thinking
	// Writing: the model's answer streams.
	Writing
	// Tool: a tool call runs.
	Tool
	// Compacting: the context is being compacted.
	Compacting
)

// State is what runs now. Key tells one activity of a kind from the next
// (a tool call's id): the elapsed time starts anew when Kind or Key change.
type State struct {
	Kind  Kind
	Key   string
	Label string // "go test ./..." for a tool; the kind's word when empty
}

// Frame is how often the spinner moves while something runs.
const Frame = 120 * time.Millisecond

// frames of the spinner.
var frames = []string{"⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"}

// TickMsg moves the spinner; only the chain of the current generation
// goes on.
type TickMsg struct{ gen int }

// Options configure the line.
type Options struct {
	Theme *theme.Theme
	// Now is the clock (default time.Now).
	Now func() time.Time
}

// Model is the activity line. Use it through a pointer.
type Model struct {
	th      *theme.Theme
	now     func() time.Time
	st      State
	since   time.Time
	frame   int
	ticking bool
	gen     int
	notice  string
	warn    bool
}

// New returns an idle line.
func New(opt Options) *Model {
	th := opt.Theme
	if th == nil {
		th = theme.New(true, false)
	}
	now := opt.Now
	if now == nil {
		now = time.Now
	}
	return &Model{th: th, now: now}
}

// SetTheme changes the colours.
func (m *Model) SetTheme(th *theme.Theme) {
	if th != nil {
		m.th = th
	}
}

// Set says what runs now; it returns the first tick when the line starts
// moving (nil otherwise: a chain already runs, or nothing does).
func (m *Model) Set(st State) tea.Cmd {
	if st.Kind != m.st.Kind || st.Key != m.st.Key {
		m.since, m.frame = m.now(), 0
	}
	m.st = st
	if st.Kind == None {
		m.notice, m.warn = "", false
		return nil
	}
	if m.ticking {
		return nil
	}
	m.ticking = true
	m.gen++
	return m.tick()
}

// SetNotice shows s beside the activity (warn: in the warning colour);
// "" clears it.
func (m *Model) SetNotice(s string, warn bool) { m.notice, m.warn = s, warn }

// Notice is the notice shown beside the activity.
func (m *Model) Notice() string { return m.notice }

// State is what runs now.
func (m *Model) State() State { return m.st }

// Active reports whether something runs.
func (m *Model) Active() bool { return m.st.Kind != None }

// Ticking reports whether a tick is scheduled (false whenever nothing runs
// and the last tick has come).
func (m *Model) Ticking() bool { return m.ticking }

// Elapsed is how long the current activity has run.
func (m *Model) Elapsed() time.Duration {
	if m.st.Kind == None {
		return 0
	}
	return m.now().Sub(m.since)
}

func (m *Model) tick() tea.Cmd {
	gen := m.gen
	return tea.Tick(Frame, func(time.Time) tea.Msg { return TickMsg{gen: gen} })
}

// Update moves the spinner on a tick and schedules the next one while
// something runs; with nothing running the chain ends.
func (m *Model) Update(msg TickMsg) tea.Cmd {
	if msg.gen != m.gen || !m.ticking {
		return nil // a chain that was replaced
	}
	if m.st.Kind == None {
		m.ticking = false
		return nil
	}
	m.frame = (m.frame + 1) % len(frames)
	return m.tick()
}

// Height is the lines View takes: one while something runs, else none.
func (m *Model) Height() int {
	if m.st.Kind == None {
		return 0
	}
	return 1
}

// View is the line, at most width columns ("" when nothing runs):
// "⠙ Running go test ./... · 4s · esc to interrupt · retrying in 3s (2/5): rate limited".
func (m *Model) View(width int) string {
	if m.st.Kind == None || width <= 0 {
		return ""
	}
	what := m.word()
	if l := termtext.OneLine(m.st.Label); l != "" && m.st.Kind == Tool {
		what += " " + l
	}
	head := m.th.InfoText.Render(frames[m.frame] + " " + what)
	rest := []string{m.th.Dim.Render(Duration(m.Elapsed()))}
	if m.notice != "" {
		style := m.th.Dim
		if m.warn {
			style = m.th.WarnText
		}
		rest = append(rest, style.Render(termtext.OneLine(m.notice)))
	}
	rest = append(rest, m.th.Faint.Render("esc to interrupt"))
	sep := m.th.Faint.Render(" · ")
	// as the width shrinks: the hint goes first, then the label is cut,
	// then the notice; the time stays
	for n := len(rest); n >= 1; n-- {
		tail := strings.Join(rest[:n], sep)
		room := width - ansi.StringWidth(tail) - 3
		if room >= min(ansi.StringWidth(head), 16) {
			return ansi.Truncate(head, room, "…") + sep + tail
		}
		if n == 2 && m.notice != "" {
			// the notice, cut, rather than none
			if lead := head + sep + rest[0] + sep; ansi.StringWidth(lead)+12 <= width {
				return ansi.Truncate(lead+rest[1], width, "…")
			}
		}
	}
	return ansi.Truncate(head+sep+rest[0], width, "…")
}

func (m *Model) word() string {
	switch m.st.Kind {
	case Thinking:
		return "Thinking"
	case Writing:
		return "Writing"
	case Compacting:
		return "Compacting the context"
	}
	if m.st.Label == "" {
		return "Running a tool"
	}
	return "Running"
}

// Duration is an elapsed time as the line shows it: 4s, 1m 05s, 1h 02m.
func Duration(d time.Duration) string {
	s := int(d / time.Second)
	switch {
	case s < 60:
		return fmt.Sprintf("%ds", max(s, 0))
	case s < 3600:
		return fmt.Sprintf("%dm %02ds", s/60, s%60)
	}
	return fmt.Sprintf("%dh %02dm", s/3600, s%3600/60)
}
