// Package markdown owns rendering the model's markdown for the terminal:
// glamour with styles made from the TUI theme (dark, light, or no colour at
// all for NO_COLOR), code blocks highlighted by chroma, and a Stream that
// keeps the render of a message's stable prefix so that a streaming message
// re-renders only its tail after its last stable block.
//
// It renders text and nothing else: it must not import the agent or the app,
// and it keeps no package-level state (glamour renderers live in a Renderer,
// one per theme, one glamour instance per width).
package markdown

import (
	"errors"
	"strings"
	"sync"

	"charm.land/glamour/v2"
	"github.com/charmbracelet/x/ansi"

	"agent/internal/termtext"
	"agent/internal/tui/theme"
)

// minWidth is the narrowest width rendered; a smaller one is raised to it.
const minWidth = 8

// defaultMaxWidths bounds the glamour instances a Renderer keeps (a resize
// drag passes through many widths; each instance costs about one render).
const defaultMaxWidths = 6

// Options configure a Renderer.
type Options struct {
	// Theme gives the colours; required.
	Theme *theme.Theme
	// MaxWidths is how many widths keep a glamour instance (default 6).
	MaxWidths int
	// OnRender, when set, is called with the markdown source of every
	// glamour pass: tests count passes with it.
	OnRender func(src string)
}

// Renderer renders markdown in one theme. It builds one glamour renderer per
// width, on first use, and reuses it. It is safe for concurrent use (passes
// are serialised: glamour keeps state while it renders).
type Renderer struct {
	th       *theme.Theme
	maxW     int
	onRender func(string)

	mu     sync.Mutex
	byW    map[int]*glamour.TermRenderer
	recent []int // widths, least recently used first
}

// New returns a Renderer for the theme of opts.
func New(opts Options) (*Renderer, error) {
	if opts.Theme == nil {
		return nil, errors.New("markdown: Options.Theme is nil: pass theme.New(dark, noColor)")
	}
	maxW := opts.MaxWidths
	if maxW <= 0 {
		maxW = defaultMaxWidths
	}
	return &Renderer{
		th:       opts.Theme,
		maxW:     maxW,
		onRender: opts.OnRender,
		byW:      map[int]*glamour.TermRenderer{},
	}, nil
}

// Theme is the theme the renderer draws with.
func (r *Renderer) Theme() *theme.Theme { return r.th }

// Render renders a whole markdown text at width (in cells): the lines,
// without trailing padding and without leading or trailing blank lines; no
// line is wider than width.
func (r *Renderer) Render(src string, width int) []string {
	width = max(width, minWidth)
	raw := r.pass(src, width, false)
	return trimBlank(appendLines(nil, raw, width))
}

// RenderString is Render joined with newlines.
func (r *Renderer) RenderString(src string, width int) string {
	return strings.Join(r.Render(src, width), "\n")
}

// sentinel opens a chunk rendered to be appended to an earlier render: the
// chunk's first block is then not the document's first, so glamour writes
// the separator it writes between blocks. The sentinel's own line is cut.
const sentinel = "x\n\n"

// pass is one glamour pass over src at width. With joined, src is a chunk
// that follows an earlier one, and the result continues that render.
// A text glamour cannot render (it fails only on a writer or highlighter
// error) is shown as it is, wrapped, rather than not at all.
func (r *Renderer) pass(src string, width int, joined bool) string {
	src = termtext.Strip(src)
	if r.onRender != nil {
		r.onRender(src)
	}
	if src == "" {
		return ""
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	g, err := r.glamour(width)
	if err == nil {
		in := src
		if joined {
			in = sentinel + src
		}
		var out string
		if out, err = g.Render(in); err == nil {
			if joined {
				if nl := strings.IndexByte(out, '\n'); nl >= 0 {
					out = out[nl+1:]
				}
			}
			return out
		}
	}
	return ansi.Wrap(src, width, "") + "\n"
}

// glamour returns the glamour renderer of a width (r.mu held).
func (r *Renderer) glamour(width int) (*glamour.TermRenderer, error) {
	if g, ok := r.byW[width]; ok {
		r.touch(width)
		return g, nil
	}
	g, err := glamour.NewTermRenderer(
		glamour.WithStyles(styleConfig(r.th)),
		glamour.WithWordWrap(width),
		glamour.WithChromaFormatter(chromaFormatter),
	)
	if err != nil {
		return nil, err
	}
	if len(r.recent) >= r.maxW {
		delete(r.byW, r.recent[0])
		r.recent = r.recent[1:]
	}
	r.byW[width] = g
	r.recent = append(r.recent, width)
	return g, nil
}

func (r *Renderer) touch(width int) {
	for i, w := range r.recent {
		if w == width {
			r.recent = append(append(r.recent[:i:i], r.recent[i+1:]...), width)
			return
		}
	}
}
