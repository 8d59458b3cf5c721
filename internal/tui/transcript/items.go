package transcript

import (
	"strings"

	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"

	"agent/internal/termtext"
	"agent/internal/tui/markdown"
	"agent/internal/tui/theme"
)

// version is the change counter every item embeds.
type version struct{ v uint64 }

// Version is the item's change counter.
func (v *version) Version() uint64 { return v.v }

func (v *version) bump() { v.v++ }

// wrapText cleans untrusted text and wraps it at width, each line after the
// first indented like the first's text (hang columns).
func wrapText(text string, width int) []string {
	text = termtext.Strip(text)
	if width < 1 {
		width = 1
	}
	return strings.Split(ansi.Wrap(text, width, ""), "\n")
}

// prefixed renders text after a styled glyph, the wrapped lines hanging
// under the text; textStyle colours the text.
func prefixed(glyph string, glyphStyle, textStyle lipgloss.Style, text string, width int) []string {
	gw := ansi.StringWidth(glyph) + 1
	lines := wrapText(text, width-gw)
	out := make([]string, len(lines))
	pad := strings.Repeat(" ", gw)
	for i, l := range lines {
		if l != "" {
			l = textStyle.Render(l)
		}
		if i == 0 {
			out[i] = glyphStyle.Render(glyph) + " " + l
		} else {
			out[i] = pad + l
		}
	}
	return out
}

// User is a message the person typed.
type User struct {
	version
	text string
}

// NewUser returns a user message item.
func NewUser(text string) *User { return &User{text: text} }

// SetText replaces the message's text.
func (u *User) SetText(text string) { u.text = text; u.bump() }

// Text is the message's text.
func (u *User) Text() string { return u.text }

// Render draws "› text", wrapped.
func (u *User) Render(ctx Context) []string {
	th := ctx.Theme
	return prefixed(theme.GlyphUser, th.Title, th.Text.Bold(true), u.text, ctx.Width)
}

// Assistant is the model's answer in markdown; while it streams, each
// Append re-renders only its tail (see markdown.Stream).
type Assistant struct {
	version
	stream *markdown.Stream
}

// NewAssistant returns an empty, streaming assistant message; text (if any)
// is its start.
func NewAssistant(text string) *Assistant {
	a := &Assistant{stream: markdown.NewStream(nil)}
	a.stream.Append(text)
	return a
}

// NewAssistantDone returns a complete assistant message (from a journal).
func NewAssistantDone(text string) *Assistant {
	a := NewAssistant(text)
	a.stream.Finish()
	return a
}

// Append adds a streamed delta.
func (a *Assistant) Append(delta string) {
	if delta == "" {
		return
	}
	a.stream.Append(delta)
	a.bump()
}

// SetText replaces the whole text.
func (a *Assistant) SetText(text string) { a.stream.SetText(text); a.bump() }

// Finish marks the message complete.
func (a *Assistant) Finish() { a.stream.Finish(); a.bump() }

// Streaming reports whether the message may still grow.
func (a *Assistant) Streaming() bool { return !a.stream.Done() }

// Text is the markdown so far.
func (a *Assistant) Text() string { return a.stream.Text() }

// Render draws the markdown with a two-column gutter; an empty message
// still streaming shows "…".
func (a *Assistant) Render(ctx Context) []string {
	if a.stream.Renderer() != ctx.Markdown {
		a.stream.SetRenderer(ctx.Markdown)
	}
	if a.stream.Text() == "" {
		if a.Streaming() {
			return []string{"  " + ctx.Theme.Faint.Render("…")}
		}
		return []string{}
	}
	lines := a.stream.Lines(ctx.Width - 2)
	for i, l := range lines {
		if l != "" {
			lines[i] = "  " + l
		}
	}
	return lines
}

// NoticeKind says how a notice reads.
type NoticeKind int

const (
	// NoticeInfo is a neutral fact ("rolled back to checkpoint 3").
	NoticeInfo NoticeKind = iota
	// NoticeWarn needs the person's attention ("resumed: c7 run_command
	// not re-run — outcome unknown").
	NoticeWarn
)

// Notice is a line about the run, not from the model.
type Notice struct {
	version
	kind NoticeKind
	text string
}

// NewNotice returns a notice item.
func NewNotice(kind NoticeKind, text string) *Notice { return &Notice{kind: kind, text: text} }

// Render draws "· text" dimmed, or "! text" in the warning colour.
func (n *Notice) Render(ctx Context) []string {
	th := ctx.Theme
	if n.kind == NoticeWarn {
		return prefixed(theme.GlyphInterrupted, th.WarnText.Bold(true), th.WarnText, n.text, ctx.Width)
	}
	return prefixed("·", th.Dim, th.Dim, n.text, ctx.Width)
}

// ErrorLine is an error of the run (a model or runtime failure).
type ErrorLine struct {
	version
	text string
}

// NewError returns an error line item.
func NewError(text string) *ErrorLine { return &ErrorLine{text: text} }

// Render draws "✗ text" in the error colour.
func (e *ErrorLine) Render(ctx Context) []string {
	th := ctx.Theme
	return prefixed(theme.GlyphError, th.ErrorText, th.ErrorText, e.text, ctx.Width)
}
