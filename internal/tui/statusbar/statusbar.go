// Package statusbar owns the TUI's one-line status bar: the run's state
// (a glyph and a word), the model, the approval mode, context use, tokens,
// cost where the model's price is known, the run id, mouse capture and a
// hint. It never wraps: as the width shrinks it drops the less important
// fields first.
//
// It renders plain data the root gives it; it must not import the agent,
// the app layer or other TUI components.
package statusbar

import (
	"fmt"
	"strings"

	"github.com/charmbracelet/x/ansi"

	"agent/internal/event"
	"agent/internal/termtext"
	"agent/internal/tui/theme"
)

// State is what the run is doing.
type State int

// States of a run, as the status bar shows them.
const (
	Idle State = iota
	Thinking
	Streaming
	RunningTool
	AwaitingApproval
	Interrupted
	Done
	Failed
	// Stopped: the person denied a call without a note; the run waits
	// for what to do instead.
	Stopped
)

// Glyph is the state's symbol; with Word it carries the meaning without
// colour.
func (s State) Glyph() string {
	switch s {
	case Thinking:
		return "◌"
	case Streaming:
		return "»"
	case RunningTool:
		return theme.GlyphRunning
	case AwaitingApproval:
		return theme.GlyphPending
	case Interrupted:
		return theme.GlyphInterrupted
	case Done:
		return theme.GlyphOK
	case Failed:
		return theme.GlyphError
	case Stopped:
		return theme.GlyphDenied
	}
	return "○"
}

// Word names the state.
func (s State) Word() string {
	switch s {
	case Thinking:
		return "thinking"
	case Streaming:
		return "streaming"
	case RunningTool:
		return "running tool"
	case AwaitingApproval:
		return "awaiting approval"
	case Interrupted:
		return "interrupted"
	case Done:
		return "done"
	case Failed:
		return "failed"
	case Stopped:
		return "stopped"
	}
	return "idle"
}

func (s State) String() string { return s.Word() }

// Status is what the bar shows.
type Status struct {
	Model    string
	Approval event.ApprovalMode // the approval mode: read-only, plan, ask, auto-edit, full-auto
	State    State

	TokensIn, TokensOut int
	Cost                float64 // in dollars; negative: the price is unknown

	ContextTokens int // of the last model request
	ContextWindow int // 0: unknown

	RunID string
	// Budget is the run's budget meter ("budget 42% of $5.00"; "": none);
	// BudgetLevel colours it: 0 fine, 1 warn (80 %), 2 reached.
	Budget      string
	BudgetLevel int
	Mouse       bool   // mouse capture is on
	Hint        string // e.g. "? help"
	// Notice is a message for the person now ("press ctrl+c again to
	// quit"): it goes right after the state and is the last field dropped.
	Notice string
}

// Model is the status bar.
type Model struct {
	th    *theme.Theme
	width int
	st    Status
}

// New returns a status bar (th nil: the dark theme).
func New(th *theme.Theme) *Model {
	if th == nil {
		th = theme.New(true, false)
	}
	return &Model{th: th, st: Status{Cost: -1}}
}

// SetWidth sets the bar's width in columns.
func (m *Model) SetWidth(w int) { m.width = w }

// SetStatus replaces what the bar shows.
func (m *Model) SetStatus(s Status) { m.st = s }

// Status is what the bar shows now.
func (m *Model) Status() Status { return m.st }

// View is one line of exactly the bar's width.
func (m *Model) View() string { return Render(m.th, m.st, m.width) }

// segment is one field; rank orders dropping (the highest goes first).
type segment struct {
	text  string
	rank  int
	right bool
	w     int // columns of text
}

// Render draws s on one line of exactly width columns. Fields that do not
// fit are left out, least important first: the hint, mouse, the run id,
// the cost, the tokens, the context, the model, the approval mode, the
// notice; the state stays (cut if it must be).
func Render(th *theme.Theme, s Status, width int) string {
	if width <= 0 {
		return ""
	}
	if th == nil {
		th = theme.New(true, false)
	}
	segs := []segment{{text: stateStyle(th, s.State).Render(s.State.Glyph() + " " + s.State.Word()), rank: 0}}
	if v := termtext.OneLine(s.Notice); v != "" {
		segs = append(segs, segment{text: th.WarnText.Render(v), rank: 1})
	}
	if v := termtext.OneLine(s.Model); v != "" {
		segs = append(segs, segment{text: th.Text.Render(v), rank: 3})
	}
	if v := termtext.OneLine(string(s.Approval)); v != "" {
		style := th.Text
		if event.ApprovalMode(v) == event.ApprovalFullAuto {
			style = th.WarnText
		}
		segs = append(segs, segment{text: th.Dim.Render("approval ") + style.Render(v), rank: 2})
	}
	if c := contextText(th, s.ContextTokens, s.ContextWindow); c != "" {
		segs = append(segs, segment{text: c, rank: 4})
	}
	if s.TokensIn > 0 || s.TokensOut > 0 {
		segs = append(segs, segment{text: th.Dim.Render(tokens(s.TokensIn) + " in · " + tokens(s.TokensOut) + " out"), rank: 5})
	}
	if s.Cost >= 0 {
		segs = append(segs, segment{text: th.Dim.Render(cost(s.Cost)), rank: 6})
	}
	if v := termtext.OneLine(s.Budget); v != "" {
		style := th.Dim
		switch s.BudgetLevel {
		case 1:
			style = th.WarnText
		case 2:
			style = th.ErrorText
		}
		segs = append(segs, segment{text: style.Render(v), rank: 2})
	}
	if v := termtext.OneLine(s.RunID); v != "" {
		segs = append(segs, segment{text: th.Faint.Render("run " + v), rank: 7})
	}
	if s.Mouse {
		segs = append(segs, segment{text: th.InfoText.Render("mouse on"), rank: 8, right: true})
	}
	if v := termtext.OneLine(s.Hint); v != "" {
		segs = append(segs, segment{text: th.Faint.Render(v), rank: 9, right: true})
	}
	for i := range segs {
		segs[i].w = ansi.StringWidth(segs[i].text)
	}
	for len(segs) > 1 && rowWidth(segs) > width {
		segs = dropLeast(segs)
	}
	sep := th.Faint.Render(" · ")
	var left, right []string
	lw, rw := -3, -3
	for _, s := range segs {
		if s.right {
			right, rw = append(right, s.text), rw+3+s.w
		} else {
			left, lw = append(left, s.text), lw+3+s.w
		}
	}
	l := strings.Join(left, sep)
	if len(right) == 0 {
		if lw > width {
			l = ansi.Truncate(l, width, "…")
			lw = ansi.StringWidth(l)
		}
		return l + strings.Repeat(" ", width-lw)
	}
	return l + strings.Repeat(" ", width-lw-rw) + strings.Join(right, sep)
}

// rowWidth is the columns the fields take: " · " between fields on a side,
// at least two columns between the sides.
func rowWidth(segs []segment) int {
	lw, rw, ln, rn := 0, 0, 0, 0
	for _, s := range segs {
		if s.right {
			rw, rn = rw+s.w, rn+1
		} else {
			lw, ln = lw+s.w, ln+1
		}
	}
	w := lw + 3*max(0, ln-1) + rw + 3*max(0, rn-1)
	if rn > 0 && ln > 0 {
		w += 2
	}
	return w
}

func dropLeast(segs []segment) []segment {
	worst := 0
	for i, s := range segs {
		if s.rank > segs[worst].rank {
			worst = i
		}
	}
	return append(segs[:worst:worst], segs[worst+1:]...)
}

func stateStyle(th *theme.Theme, s State) interface{ Render(...string) string } {
	switch s {
	case Thinking, Streaming, RunningTool:
		return th.InfoText
	case AwaitingApproval, Interrupted, Stopped:
		return th.WarnText
	case Done:
		return th.OKText
	case Failed:
		return th.ErrorText
	}
	return th.Dim
}

// contextText is "ctx 41k/128k 32%", coloured as the window fills.
func contextText(th *theme.Theme, used, window int) string {
	switch {
	case window > 0:
		f := float64(used) / float64(window)
		style := th.Dim
		switch {
		case f >= 0.9:
			style = th.ErrorText
		case f >= 0.75:
			style = th.WarnText
		}
		return th.Dim.Render("ctx ") + style.Render(fmt.Sprintf("%s/%s %d%%", tokens(used), tokens(window), int(f*100+0.5)))
	case used > 0:
		return th.Dim.Render("ctx " + tokens(used))
	}
	return ""
}

// tokens is a compact count: 950, 1.2k, 41k, 1.2M.
func tokens(n int) string {
	switch {
	case n < 1000:
		return fmt.Sprint(n)
	case n < 10_000:
		return trimZero(fmt.Sprintf("%.1f", float64(n)/1000)) + "k"
	case n < 1_000_000:
		return fmt.Sprintf("%dk", (n+500)/1000)
	}
	return trimZero(fmt.Sprintf("%.1f", float64(n)/1e6)) + "M"
}

func trimZero(s string) string { return strings.TrimSuffix(s, ".0") }

// cost is dollars with the precision a small amount needs.
func cost(c float64) string {
	switch {
	case c == 0:
		return "$0.00"
	case c < 0.01:
		return fmt.Sprintf("$%.4f", c)
	case c < 1:
		return fmt.Sprintf("$%.3f", c)
	}
	return fmt.Sprintf("$%.2f", c)
}
