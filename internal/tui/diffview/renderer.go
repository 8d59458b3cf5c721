package diffview

import (
	"sync"

	"agent/internal/tui/theme"
)

// cardCacheSize is how many card renderings a Renderer keeps: a transcript
// re-renders every visible card on every frame.
const cardCacheSize = 128

// Renderer renders diffs to strings, for parents that do not need a Model:
// the small coloured diff of a tool card (Card, CardTexts) and a whole diff
// at its natural height for a parent that scrolls it itself (Render, which
// has the signature of approve.DiffRenderer and drawer.DiffRenderer). Every
// line it returns is exactly the width asked for. One Renderer can serve
// the whole program: it shares one lexer cache, keeps the last
// cardCacheSize cards, and is safe for concurrent use.
type Renderer struct {
	mu    sync.Mutex
	opts  Options
	cards map[cardKey]string
	order []cardKey // cards in the order they were added, oldest first
}

type cardKey struct {
	path, diff      string
	computed        bool  // the card of texts (path and diff unused)
	texts           Texts // comparable: strings and flags
	width, maxLines int
}

// NewRenderer returns a Renderer whose views use opts (Theme, Mode,
// NoLineNumbers, NoHighlight, TabWidth, Highlighter; the other fields are
// set per call).
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
	r.cards, r.order = map[cardKey]string{}, nil
}

// Card renders diff (a unified diff, or a file tool's output, see Parse)
// compactly for a tool card: its first maxLines rows (file header, hunk
// headers, lines) and then "… N more lines" when there are more, so at
// most maxLines+1 lines in all; maxLines <= 0 shows every row. path names
// the file when the diff does not (it picks the highlighter); it may be
// empty. The card is not interactive and never shows the split layout.
func (r *Renderer) Card(path, diff string, width, maxLines int) string {
	return r.card(cardKey{path: path, diff: diff, width: width, maxLines: maxLines})
}

// CardTexts is Card for a change given as the file's whole content before
// and after it (the diff is computed with three lines of context).
func (r *Renderer) CardTexts(t Texts, width, maxLines int) string {
	return r.card(cardKey{computed: true, texts: t, width: width, maxLines: maxLines})
}

// Render renders the whole of diff at its natural height and at width,
// without a status line: the body of the approval prompt and of the
// checkpoint preview, which scroll the lines themselves. height is ignored
// (the prompts pass the rows they have as a hint). A diff it cannot read is
// shown as text under a line that says why.
func (r *Renderer) Render(diff string, width, height int) string {
	_ = height
	if width <= 0 {
		return ""
	}
	opts := r.options()
	opts.NoFooter = true
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
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, ok := r.cards[k]; !ok {
		if len(r.order) >= cardCacheSize {
			delete(r.cards, r.order[0])
			r.order = r.order[1:]
		}
		r.cards[k] = s
		r.order = append(r.order, k)
	}
	return s
}
