package diffview

import (
	"sync"

	"agent/internal/tui/theme"
)

// The Renderer's cache of cards: a transcript draws every card on screen in
// every frame. It keeps at most cacheEntries cards and cacheBytes bytes of
// diffs and renderings (a rendering bigger than that is not kept).
const (
	cacheEntries = 128
	cacheBytes   = 4 << 20
)

// Renderer renders diffs to strings, for parents that do not need a Model:
// a tool card's diff (Card, CardTexts, CardDiff) and a whole diff at its
// natural height for a parent that scrolls it itself (Render). Every line
// it returns is exactly the width asked for. One Renderer can serve the
// whole program: it shares one lexer cache, keeps recent cards, and is safe
// for concurrent use. Static renderings highlight their first 400 lines
// with chroma; the rest shows in the add and delete colours.
type Renderer struct {
	mu    sync.Mutex
	opts  Options
	cards map[cardKey]string
	order []cardKey // cards in the order they were added, oldest first
	bytes int       // the size of the cached keys and renderings
}

type cardKey struct {
	path, diff      string
	computed        bool  // the card of texts (path and diff unused)
	texts           Texts // comparable: strings and flags
	width, maxLines int
}

func (k cardKey) size() int {
	return len(k.path) + len(k.diff) + len(k.texts.Path) + len(k.texts.OldPath) + len(k.texts.Before) + len(k.texts.After)
}

// NewRenderer returns a Renderer whose renderings use opts (Theme,
// NoLineNumbers, NoHighlight, TabWidth, Highlighter, and Mode for Render;
// the other fields are set per call).
func NewRenderer(opts Options) *Renderer {
	if opts.Highlighter == nil {
		opts.Highlighter = NewHighlighter()
	}
	return &Renderer{opts: opts, cards: map[cardKey]string{}}
}

// SetTheme changes the colours of what the Renderer returns from now on.
func (r *Renderer) SetTheme(t *theme.Theme) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.opts.Theme = t
	r.cards, r.order, r.bytes = map[cardKey]string{}, nil, 0
}

// Card renders diff (a unified diff, or a file tool's output, see Parse)
// compactly for a tool card: its first maxLines rows (file header, hunk
// headers, lines) and then "… N more lines" when there are more, so at
// most maxLines+1 lines in all; maxLines <= 0 shows every row. path names
// the file when the diff does not (it picks the highlighter); it may be
// empty. A card is not interactive and never shows the split layout.
func (r *Renderer) Card(path, diff string, width, maxLines int) string {
	return r.card(cardKey{path: path, diff: diff, width: width, maxLines: maxLines})
}

// CardTexts is Card for a change given as the file's whole content before
// and after it (the diff is computed with three lines of context).
func (r *Renderer) CardTexts(t Texts, width, maxLines int) string {
	return r.card(cardKey{computed: true, texts: t, width: width, maxLines: maxLines})
}

// CardDiff is every row of a card, for a card that folds the rows itself:
// it has the signature of transcript.DiffFunc (Card(diff, width, 0) with
// no path).
func (r *Renderer) CardDiff(diff string, width int) string {
	return r.Card("", diff, width, 0)
}

// Render renders the whole of diff at its natural height and at width,
// without a status line, in the Renderer's Mode (split when it is Split
// and the width allows): the body of the approval prompt and of the
// checkpoint drawer, which scroll the lines themselves. It has the
// signature of approve.DiffRenderer and drawer.DiffRenderer; height, the
// rows the prompt has, is not needed. A diff it cannot read is shown as
// text under a line that says why.
func (r *Renderer) Render(diff string, width, height int) string {
	_ = height
	if width <= 0 {
		return ""
	}
	opts := r.options()
	opts.NoFooter, opts.Compact = true, 0
	m := New(diff, opts)
	m.budget.static = true
	m.SetSize(width, 0)
	return m.View()
}

func (r *Renderer) options() Options {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.opts
}

func (r *Renderer) card(k cardKey) string {
	if k.width <= 0 {
		return ""
	}
	r.mu.Lock()
	s, ok := r.cards[k]
	opts := r.opts
	r.mu.Unlock()
	if ok {
		return s
	}
	opts.Mode, opts.Compact, opts.NoFooter = Unified, max(k.maxLines, 0), false
	var m *Model
	if k.computed {
		m = NewFromTexts(k.texts, opts)
	} else {
		opts.Path = k.path
		m = New(k.diff, opts)
	}
	m.budget.static = true
	m.SetSize(k.width, 0)
	s = m.View()
	r.keep(k, s)
	return s
}

// keep caches a card, dropping the oldest ones to make room.
func (r *Renderer) keep(k cardKey, s string) {
	size := k.size() + len(s)
	if size > cacheBytes {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, ok := r.cards[k]; ok {
		return
	}
	for len(r.order) > 0 && (len(r.order) >= cacheEntries || r.bytes+size > cacheBytes) {
		old := r.order[0]
		r.bytes -= old.size() + len(r.cards[old])
		delete(r.cards, old)
		r.order = r.order[1:]
	}
	r.cards[k] = s
	r.order = append(r.order, k)
	r.bytes += size
}
