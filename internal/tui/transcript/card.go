package transcript

import (
	"strconv"
	"strings"

	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"

	"agent/internal/termtext"
	"agent/internal/tui/theme"
)

// Status is where a tool call is.
type Status int

const (
	StatusPending Status = iota
	StatusAwaitingApproval
	StatusRunning
	StatusOK
	StatusError
	StatusDenied
	StatusInterrupted
)

var statusNames = [...]string{"pending", "awaiting approval", "running", "ok", "error", "denied", "interrupted"}

// String is the status as the card labels it.
func (s Status) String() string {
	if s < 0 || int(s) >= len(statusNames) {
		return "status(" + strconv.Itoa(int(s)) + ")"
	}
	return statusNames[s]
}

// Risk is what a tool call can do.
type Risk int

const (
	RiskUnknown Risk = iota
	RiskRead
	RiskWrite
	RiskExec
)

var riskNames = [...]string{"", "read", "write", "exec"}

// String is the risk as the card shows it ("" when unknown).
func (r Risk) String() string {
	if r < 0 || int(r) >= len(riskNames) {
		return ""
	}
	return riskNames[r]
}

// CardData is what a tool card shows: plain, already redacted data.
type CardData struct {
	Tool    string // "run_command", "edit_file"
	CallID  string // "c7"
	Summary string // one line of the arguments: the command, the path
	Risk    Risk
	Status  Status
	Exit    *int   // a command's exit code; nil when there is none
	Output  string // the result's text
	Diff    string // a unified diff, for edits
	// Live is the latest output of a command still running (redacted; its
	// last LiveLines lines show under the header until the result comes).
	Live string
	// Allowed names the rule or the run grant that allowed the call without
	// asking ("grant run_command(go test ./...)"); "" when none did.
	Allowed string
	// Children are the subagents of a task call (children.go).
	Children []ChildRow
}

// ExitCode returns a pointer to n, for CardData.Exit.
func ExitCode(n int) *int { return &n }

// Folding limits.
const (
	collapsedOutput = 3    // output lines of a collapsed card
	collapsedDiff   = 12   // diff lines of a collapsed card
	expandedMax     = 1000 // output or diff lines of an expanded card
)

// ToolCard is one tool call: a header (status glyph, tool, arguments, risk,
// status or exit code) and a folded result; ctrl+o expands it.
type ToolCard struct {
	version
	d        CardData
	out      []string // cleaned output lines
	live     []string // the last lines of Live, cleaned
	expanded bool
}

// NewToolCard returns a collapsed card.
func NewToolCard(d CardData) *ToolCard {
	c := &ToolCard{}
	c.Update(d)
	return c
}

// Update replaces the card's data (a new status, the result).
func (c *ToolCard) Update(d CardData) {
	c.d = d
	c.out = nil
	c.live = liveLines(d.Live, LiveLines)
	if out := strings.TrimRight(termtext.VisibleSpaced(termtext.Strip(d.Output)), "\n "); out != "" {
		c.out = strings.Split(out, "\n")
	}
	c.bump()
}

// Data is the card's data.
func (c *ToolCard) Data() CardData { return c.d }

// Expanded reports whether the card shows its whole result.
func (c *ToolCard) Expanded() bool { return c.expanded }

// SetExpanded expands or collapses the card.
func (c *ToolCard) SetExpanded(on bool) {
	if c.expanded != on {
		c.expanded = on
		c.bump()
	}
}

// Failed reports whether the call failed for a person: an error status, or
// a non-zero exit code whatever the status says.
func (c *ToolCard) Failed() bool {
	return c.d.Status == StatusError || (c.d.Exit != nil && *c.d.Exit != 0)
}

// look is the glyph, its style and the label of the card's state.
func (c *ToolCard) look(th *theme.Theme) (string, lipgloss.Style, string) {
	d := c.d
	exit := ""
	if d.Exit != nil {
		exit = "exit " + strconv.Itoa(*d.Exit)
	}
	switch {
	case c.Failed():
		if exit == "" {
			exit = StatusError.String()
		}
		return theme.GlyphError, th.ErrorText, exit
	case d.Status == StatusOK:
		if exit == "" {
			exit = StatusOK.String()
		}
		return theme.GlyphOK, th.OKText, exit
	case d.Status == StatusRunning:
		return theme.GlyphRunning, th.InfoText, d.Status.String()
	case d.Status == StatusAwaitingApproval:
		return theme.GlyphPending, th.WarnText.Bold(true), d.Status.String()
	case d.Status == StatusDenied:
		return theme.GlyphDenied, th.WarnText, d.Status.String()
	case d.Status == StatusInterrupted:
		return theme.GlyphInterrupted, th.WarnText, d.Status.String()
	default:
		return theme.GlyphPending, th.Dim, d.Status.String()
	}
}

// Render draws the header and the folded (or, expanded, the whole) diff and
// output.
func (c *ToolCard) Render(ctx Context) []string {
	th, w := ctx.Theme, ctx.Width
	lines := []string{c.header(th, w)}
	bodyW := max(w-4, 1)
	lines = append(lines, c.childLines(th, w)...)
	if c.d.Allowed != "" {
		lines = append(lines, "  "+th.Faint.Render(ansi.Truncate("allowed by "+termtext.OneLine(c.d.Allowed), bodyW+2, "…")))
	}
	if c.d.Diff != "" {
		diff := c.diffLines(ctx, max(w-2, 1))
		limit := collapsedDiff
		if c.expanded {
			limit = expandedMax
		}
		for _, l := range diff[:min(len(diff), limit)] {
			lines = append(lines, "  "+l)
		}
		lines = c.fold(lines, th, len(diff)-limit)
	}
	if len(c.out) == 0 && c.d.Status == StatusRunning && len(c.live) > 0 {
		bar := th.Faint.Render("│") + " "
		for _, l := range c.live {
			lines = append(lines, "  "+bar+th.Dim.Render(ansi.Truncate(l, bodyW, "…")))
		}
	}
	if len(c.out) > 0 {
		bar := th.Faint.Render("│") + " "
		if c.expanded {
			n := 0
			for _, l := range c.out {
				for _, part := range strings.Split(ansi.Hardwrap(l, bodyW, true), "\n") {
					if n < expandedMax {
						lines = append(lines, "  "+bar+th.Dim.Render(part))
					}
					n++
				}
			}
			lines = c.fold(lines, th, n-expandedMax)
		} else {
			shown := c.out
			if len(shown) > collapsedOutput {
				if c.Failed() {
					shown = shown[len(shown)-collapsedOutput:] // a failure says why at the end
				} else {
					shown = shown[:collapsedOutput]
				}
			}
			hidden := len(c.out) - len(shown)
			if hidden > 0 && c.Failed() {
				lines = c.fold(lines, th, hidden)
			}
			for _, l := range shown {
				lines = append(lines, "  "+bar+th.Dim.Render(ansi.Truncate(l, bodyW, "…")))
			}
			if !c.Failed() {
				lines = c.fold(lines, th, hidden)
			}
		}
	}
	return lines
}

// fold appends the line that says how many lines are not shown.
func (c *ToolCard) fold(lines []string, th *theme.Theme, hidden int) []string {
	if hidden <= 0 {
		return lines
	}
	s := "… " + strconv.Itoa(hidden) + " more line"
	if hidden > 1 {
		s += "s"
	}
	if !c.expanded {
		s += " · ctrl+o to expand"
	} else {
		s += " not shown"
	}
	return append(lines, "  "+th.Faint.Render(s))
}

// header is "✓ tool  summary … risk  label", fitted to the whole width (a
// long command shows whole on a wide terminal): the summary is cut first,
// then the risk dropped.
func (c *ToolCard) header(th *theme.Theme, width int) string {
	glyph, st, label := c.look(th)
	right := st.Render(label)
	rw := ansi.StringWidth(label)
	if r := c.d.Risk.String(); r != "" && rw+len(r)+2+8 <= width {
		right = th.Faint.Render(r) + "  " + right
		rw += len(r) + 2
	}
	tool := termtext.VisibleSpaced(termtext.Strip(c.d.Tool))
	summary, _, _ := strings.Cut(termtext.VisibleSpaced(termtext.Strip(c.d.Summary)), "\n")
	left := st.Render(glyph) + " " + th.Text.Bold(true).Render(tool)
	lw := ansi.StringWidth(glyph) + 1 + ansi.StringWidth(tool)
	avail := width - rw - 1
	if lw > avail {
		// not even the tool fits beside the label: cut the whole left
		plain := glyph + " " + tool
		return ansi.Truncate(st.Render(plain), max(width-rw-1, 1), "…") + " " + right
	}
	if summary != "" && avail-lw-2 >= 4 {
		s := ansi.Truncate(summary, avail-lw-2, "…")
		left += "  " + th.Dim.Render(s)
		lw += 2 + ansi.StringWidth(s)
	}
	return left + strings.Repeat(" ", max(width-lw-rw, 1)) + right
}

// diffLines renders the card's diff with the root's DiffFunc, or colours
// its lines itself.
func (c *ToolCard) diffLines(ctx Context, width int) []string {
	diff := strings.TrimRight(termtext.Strip(c.d.Diff), "\n")
	if ctx.Diff != nil {
		out := strings.Split(strings.TrimRight(ctx.Diff(diff, width), "\n"), "\n")
		for i, l := range out {
			if ansi.StringWidth(l) > width {
				out[i] = ansi.Truncate(l, width, "…")
			}
		}
		return out
	}
	th := ctx.Theme
	lines := strings.Split(diff, "\n")
	for i, l := range lines {
		t := ansi.Truncate(l, width, "…")
		switch {
		case strings.HasPrefix(l, "+++"), strings.HasPrefix(l, "---"):
			lines[i] = th.Dim.Bold(true).Render(t)
		case strings.HasPrefix(l, "@@"):
			lines[i] = th.HunkLine.Render(t)
		case strings.HasPrefix(l, "+"):
			lines[i] = th.Add.Render(t)
		case strings.HasPrefix(l, "-"):
			lines[i] = th.Del.Render(t)
		default:
			lines[i] = th.Dim.Render(t)
		}
	}
	return lines
}
