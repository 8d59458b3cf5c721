// Package theme owns the TUI's colours, styles and status glyphs: one
// palette for a dark terminal background and one for a light one, and a
// plain variant for NO_COLOR (styles keep bold, reverse and underline but
// set no colour). Every status has a glyph, so no meaning depends on colour.
//
// It must not render anything but styles: components take a *Theme.
package theme

import (
	"image/color"
	"os"

	"charm.land/lipgloss/v2"
)

// Theme is the palette and styles of one terminal.
type Theme struct {
	Dark    bool
	NoColor bool

	Fg, Muted, Subtle, Accent, Border color.Color
	OK, Error, Warn, Info             color.Color
	AddFg, DelFg, AddBg, DelBg, Hunk  color.Color
	SelBg                             color.Color

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

// New returns the theme for a dark or light background, or the plain one.
func New(dark, noColor bool) *Theme {
	ld := lipgloss.LightDark(dark)
	t := &Theme{
		Dark: dark, NoColor: noColor,
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
