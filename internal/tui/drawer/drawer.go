// Package drawer owns the TUI's two drawers: the context drawer (the last
// model request's context layer by layer: the budget and how it was
// reached, how the tokens were counted, each layer's budget, tokens, share
// of the window, items and note, every item not sent verbatim with its
// reason and tokens before and after, the first layer that changed, the
// prefix hash, a compaction since) and the checkpoint drawer (the run's
// checkpoints with step, call, files and +/−, a preview of the diff to now,
// and rollback of code, conversation or both behind a confirmation).
//
// Both are overlays: what they show never enters the transcript or the
// model's context. They get plain data from the root and answer with typed
// messages (CloseMsg, PreviewMsg, RollbackMsg); they must not import the
// agent, the app layer or other TUI components, roll anything back by
// themselves, or log what they show.
package drawer

import (
	"agent/internal/tui/textutil"
	"agent/internal/tui/theme"
)

// Which names a drawer.
type Which int

// The drawers.
const (
	ContextDrawerID Which = iota + 1
	CheckpointDrawerID
)

func (w Which) String() string {
	switch w {
	case ContextDrawerID:
		return "context"
	case CheckpointDrawerID:
		return "checkpoints"
	}
	return "unknown"
}

// CloseMsg asks the root to close a drawer (the person pressed esc).
type CloseMsg struct{ Which Which }

// DiffRenderer renders a whole unified diff for a width (the diff view).
// The drawer scrolls the lines it returns and cuts any longer than width;
// height is the rows the preview has, a hint.
type DiffRenderer func(diff string, width, height int) string

// Options configure a drawer.
type Options struct {
	Theme *theme.Theme // nil: the dark theme
	// RenderDiff renders the checkpoint preview (nil: a plain view with
	// +/- lines coloured).
	RenderDiff DiffRenderer
}

const defaultWidth = 80

func themeOf(o Options) *theme.Theme {
	if o.Theme == nil {
		return theme.New(true, false)
	}
	return o.Theme
}

// boxed renders rows (each fitted to the content width) in the theme's box
// of width w.
func boxed(th *theme.Theme, w int, rows []string) string {
	cw := contentWidth(th, w)
	for i, r := range rows {
		rows[i] = textutil.Fit(r, cw)
	}
	return textutil.DrawBox(th.Box, max(w, th.Box.GetHorizontalFrameSize()+1), rows)
}

func contentWidth(th *theme.Theme, w int) int {
	if w <= 0 {
		w = defaultWidth
	}
	return max(1, w-th.Box.GetHorizontalFrameSize())
}

func boxWidth(w int) int {
	if w <= 0 {
		return defaultWidth
	}
	return w
}

// window returns the rows of body shown from off in h rows, off clamped.
func window(body []string, off, h int) ([]string, int) {
	h = max(0, min(h, len(body)))
	off = min(max(0, off), len(body)-h)
	return body[off : off+h], off
}
