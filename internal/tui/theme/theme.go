// Package theme owns the TUI's colours, styles and status glyphs: one
// palette for a dark terminal background and one for a light one, and a
// plain variant for NO_COLOR (styles keep bold, reverse and underline but
// set no colour). Every status has a glyph, so no meaning depends on colour.
// The diff backgrounds (lines and changed words) are chosen per colour
// profile (NewFor), so added and removed lines stay apart in 256 and 16
// colours too.
//
// It must not render anything but styles: components take a *Theme.
package theme

import (
	"image/color"
	"os"

	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/colorprofile"
)

// Theme is the palette and styles of one terminal.
type Theme struct {
	Dark    bool
	NoColor bool

	Fg, Muted, Subtle, Accent, Border color.Color
	OK, Error, Warn, Info             color.Color
	AddFg, DelFg, AddBg, DelBg, Hunk  color.Color
	SelBg                             color.Color
	// AddWordBg and DelWordBg mark the words that changed within a changed
	// line (a deeper shade of AddBg and DelBg).
	AddWordBg, DelWordBg color.Color
	// Profile is the terminal's colour profile the diff colours were
	// chosen for (TrueColor for New).
	Profile colorprofile.Profile

	Text, Dim, Faint, Title, Key, Selected lipgloss.Style
	OKText, ErrorText, WarnText, InfoText  lipgloss.Style
	Add, Del, AddLine, DelLine, HunkLine   lipgloss.Style
	Box, Panel                             lipgloss.Style
}

// Glyphs of statuses (also shown without colour).
const (
	GlyphOK          = "✓"
	GlyphError       = "✗"
	GlyphDenied      = "⊘"
	GlyphInterrupted = "!"
	GlyphRunning     = "●"
	GlyphPending     = "?"
	GlyphUndo        = "↶"
	GlyphUser        = "›"
)

// NoColorEnv reports whether NO_COLOR asks for no colour: any non-empty
// value ("1", "yes", "true"), as https://no-color.org says.
func NoColorEnv() bool { return os.Getenv("NO_COLOR") != "" }

// New returns the theme for a dark or light background, or the plain one,
// for a terminal of 16 million colours.
func New(dark, noColor bool) *Theme { return NewFor(dark, noColor, colorprofile.TrueColor) }

// NewFor returns the theme for a terminal of profile p: the added and the
// removed lines get backgrounds that stay apart in its palette (under 256
// colours two subtle truecolor shades would fall on the same grey, under
// 16 on black), the changed words a deeper shade of each.
func NewFor(dark, noColor bool, p colorprofile.Profile) *Theme {
	ld := lipgloss.LightDark(dark)
	t := &Theme{
		Dark: dark, NoColor: noColor, Profile: p,
		Fg:     ld(lipgloss.Color("#1f2328"), lipgloss.Color("#e6edf3")),
		Muted:  ld(lipgloss.Color("#57606a"), lipgloss.Color("#8b949e")),
		Subtle: ld(lipgloss.Color("#8c959f"), lipgloss.Color("#6e7681")),
		Accent: ld(lipgloss.Color("#8250df"), lipgloss.Color("#a371f7")),
		Border: ld(lipgloss.Color("#d0d7de"), lipgloss.Color("#30363d")),
		OK:     ld(lipgloss.Color("#1a7f37"), lipgloss.Color("#3fb950")),
		Error:  ld(lipgloss.Color("#cf222e"), lipgloss.Color("#f85149")),
		Warn:   ld(lipgloss.Color("#9a6700"), lipgloss.Color("#d29922")),
		Info:   ld(lipgloss.Color("#0969da"), lipgloss.Color("#58a6ff")),
		AddFg:  ld(lipgloss.Color("#116329"), lipgloss.Color("#7ee787")),
		DelFg:  ld(lipgloss.Color("#82071e"), lipgloss.Color("#ffa198")),
		AddBg:  ld(lipgloss.Color("#dafbe1"), lipgloss.Color("#12261e")),
		DelBg:  ld(lipgloss.Color("#ffebe9"), lipgloss.Color("#25171c")),
		Hunk:   ld(lipgloss.Color("#0969da"), lipgloss.Color("#79c0ff")),
		SelBg:  ld(lipgloss.Color("#ddf4ff"), lipgloss.Color("#1f2d3d")),

		AddWordBg: ld(lipgloss.Color("#aceebb"), lipgloss.Color("#1f6f3f")),
		DelWordBg: ld(lipgloss.Color("#ffcecb"), lipgloss.Color("#7d2a36")),
	}
	switch p {
	case colorprofile.ANSI256:
		t.AddBg, t.DelBg = ld(lipgloss.Color("194"), lipgloss.Color("22")), ld(lipgloss.Color("224"), lipgloss.Color("52"))
		t.AddWordBg, t.DelWordBg = ld(lipgloss.Color("157"), lipgloss.Color("28")), ld(lipgloss.Color("217"), lipgloss.Color("88"))
	case colorprofile.ANSI:
		// green and red backgrounds (the diff writes black on them), the
		// changed words on the bright ones
		t.AddBg, t.DelBg = lipgloss.Color("2"), lipgloss.Color("1")
		t.AddWordBg, t.DelWordBg = lipgloss.Color("10"), lipgloss.Color("9")
	}
	fg := func(c color.Color) lipgloss.Style {
		if noColor {
			return lipgloss.NewStyle()
		}
		return lipgloss.NewStyle().Foreground(c)
	}
	bg := func(s lipgloss.Style, c color.Color) lipgloss.Style {
		if noColor {
			return s
		}
		return s.Background(c)
	}
	t.Text = fg(t.Fg)
	t.Dim = fg(t.Muted)
	t.Faint = fg(t.Subtle)
	t.Title = fg(t.Accent).Bold(true)
	t.Key = fg(t.Accent).Bold(true)
	t.Selected = bg(fg(t.Fg).Bold(true), t.SelBg)
	if noColor {
		t.Selected = lipgloss.NewStyle().Reverse(true)
	}
	t.OKText = fg(t.OK)
	t.ErrorText = fg(t.Error).Bold(true)
	t.WarnText = fg(t.Warn)
	t.InfoText = fg(t.Info)
	t.Add = fg(t.AddFg)
	t.Del = fg(t.DelFg)
	t.AddLine = bg(fg(t.AddFg), t.AddBg)
	t.DelLine = bg(fg(t.DelFg), t.DelBg)
	t.HunkLine = fg(t.Hunk).Bold(true)
	border := lipgloss.RoundedBorder()
	t.Box = lipgloss.NewStyle().Border(border).Padding(0, 1)
	t.Panel = lipgloss.NewStyle().Border(lipgloss.NormalBorder(), true, false, false, false)
	if !noColor {
		t.Box = t.Box.BorderForeground(t.Border)
		t.Panel = t.Panel.BorderForeground(t.Border)
	}
	return t
}
