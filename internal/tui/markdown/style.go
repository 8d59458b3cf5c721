package markdown

import (
	"fmt"
	"image/color"

	"charm.land/glamour/v2/ansi"

	"agent/internal/tui/theme"
)

// Chroma styles for code blocks. The theme's palette is GitHub's Primer, so
// its code colours are GitHub's too. They are chroma's built-in styles, named
// in the glamour style, never registered in chroma's global registry (glamour
// registers a custom style only once per process under one name, which would
// make the dark and light renderers share whichever came first).
const (
	chromaDark  = "github-dark"
	chromaLight = "github"
	// chromaFormatter writes 24-bit colour; Bubble Tea v2 downsamples to what
	// the terminal supports when it draws the frame.
	chromaFormatter = "terminal16m"
)

// hex formats a colour as glamour wants it ("#rrggbb").
func hex(c color.Color) *string {
	r, g, b, _ := c.RGBA()
	s := fmt.Sprintf("#%02x%02x%02x", r>>8, g>>8, b>>8)
	return &s
}

func ptr[T any](v T) *T { return &v }

// styleConfig is the glamour style of a theme: its colours on a dark or a
// light background, or none at all for NO_COLOR (bold, italic and underline
// stay, and code blocks are not highlighted).
//
// The document has no margin and no leading or trailing blank line: the
// component that embeds a message draws its own gutter.
func styleConfig(th *theme.Theme) ansi.StyleConfig {
	col := func(c color.Color) *string {
		if th.NoColor {
			return nil
		}
		return hex(c)
	}
	codeTheme := chromaLight
	if th.Dark {
		codeTheme = chromaDark
	}
	if th.NoColor {
		codeTheme = ""
	}
	var codeBg *string
	if !th.NoColor {
		codeBg = hex(th.SelBg)
	}
	return ansi.StyleConfig{
		Document: ansi.StyleBlock{
			StylePrimitive: ansi.StylePrimitive{Color: col(th.Fg)},
			Margin:         ptr(uint(0)),
		},
		BlockQuote: ansi.StyleBlock{
			StylePrimitive: ansi.StylePrimitive{Color: col(th.Muted)},
			Indent:         ptr(uint(1)),
			IndentToken:    ptr("│ "),
		},
		List: ansi.StyleList{LevelIndent: 2},
		Heading: ansi.StyleBlock{
			StylePrimitive: ansi.StylePrimitive{
				BlockSuffix: "\n",
				Color:       col(th.Accent),
				Bold:        ptr(true),
			},
		},
		// no literal "## ": a heading is told by its style (bold, the
		// accent; the first level underlined too, the last two not bold)
		H1:            ansi.StyleBlock{StylePrimitive: ansi.StylePrimitive{Underline: ptr(true)}},
		H5:            ansi.StyleBlock{StylePrimitive: ansi.StylePrimitive{Bold: ptr(false)}},
		H6:            ansi.StyleBlock{StylePrimitive: ansi.StylePrimitive{Bold: ptr(false)}},
		Strikethrough: ansi.StylePrimitive{CrossedOut: ptr(true)},
		Emph:          ansi.StylePrimitive{Italic: ptr(true)},
		Strong:        ansi.StylePrimitive{Bold: ptr(true)},
		HorizontalRule: ansi.StylePrimitive{
			Color:  col(th.Subtle),
			Format: "\n────────\n",
		},
		Item:        ansi.StylePrimitive{BlockPrefix: "• "},
		Enumeration: ansi.StylePrimitive{BlockPrefix: ". "},
		Task: ansi.StyleTask{
			Ticked:   "[✓] ",
			Unticked: "[ ] ",
		},
		Link:      ansi.StylePrimitive{Color: col(th.Info), Underline: ptr(true)},
		LinkText:  ansi.StylePrimitive{Color: col(th.Info), Bold: ptr(true)},
		Image:     ansi.StylePrimitive{Color: col(th.Info), Underline: ptr(true)},
		ImageText: ansi.StylePrimitive{Color: col(th.Muted), Format: "Image: {{.text}} →"},
		Code: ansi.StyleBlock{
			StylePrimitive: ansi.StylePrimitive{
				// Non-breaking spaces keep the padding glued to the code.
				Prefix:          "\u00a0",
				Suffix:          "\u00a0",
				Color:           col(th.Warn),
				BackgroundColor: codeBg,
			},
		},
		CodeBlock: ansi.StyleCodeBlock{
			StyleBlock: ansi.StyleBlock{
				StylePrimitive: ansi.StylePrimitive{Color: col(th.Muted)},
				Margin:         ptr(uint(2)),
			},
			Theme: codeTheme,
		},
		Table: ansi.StyleTable{},
		DefinitionDescription: ansi.StylePrimitive{
			BlockPrefix: "\n→ ",
		},
	}
}
