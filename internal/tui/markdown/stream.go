package markdown

import "strings"

// maxStreamWidths bounds the widths a Stream keeps a prefix render for (the
// current one and the one before a resize).
const maxStreamWidths = 2

// Stream is the markdown of one message that may still be arriving. Its
// Lines at a width are the same as Renderer.Render of its whole text, but a
// Stream renders each stable block once per width and, on each delta,
// re-renders only the tail after the last stable block boundary (see
// splitter for what a boundary is).
//
// A Stream is not safe for concurrent use; the UI goroutine owns it.
type Stream struct {
	r     *Renderer
	text  strings.Builder
	split splitter
	done  bool
	// caches: the render of text[:upto] per width, most recent last.
	caches []*prefix
}

// prefix is the render of a stable prefix at one width.
type prefix struct {
	width   int
	upto    int      // bytes of text rendered
	lines   []string // the finished lines of that render
	partial string   // its last line, not ended by a newline (raw)
}

// NewStream returns an empty Stream rendered by r.
func NewStream(r *Renderer) *Stream {
	return &Stream{r: r, split: newSplitter()}
}

// Append adds a delta to the end of the text.
func (s *Stream) Append(delta string) {
	if delta == "" {
		return
	}
	s.text.WriteString(delta)
}

// SetText replaces the whole text (for a message that is not a stream, or
// one whose text was rewritten); the caches are dropped.
func (s *Stream) SetText(text string) {
	s.text.Reset()
	s.text.WriteString(text)
	s.split = newSplitter()
	s.caches = nil
}

// Finish marks the text complete. A finished stream keeps no prefix cache
// (the caller caches its lines per width), so its Lines are one full render.
func (s *Stream) Finish() {
	s.done = true
	s.caches = nil
}

// Done reports whether Finish was called.
func (s *Stream) Done() bool { return s.done }

// Text is the text so far.
func (s *Stream) Text() string { return s.text.String() }

// Renderer is the Renderer the stream draws with.
func (s *Stream) Renderer() *Renderer { return s.r }

// SetRenderer switches to another Renderer (a new theme); caches are dropped.
func (s *Stream) SetRenderer(r *Renderer) {
	s.r = r
	s.caches = nil
}

// Stable is the length in bytes of the text's stable prefix: the part whose
// render is kept while the rest streams.
func (s *Stream) Stable() int {
	s.split.feed(s.text.String())
	return s.split.stable
}

// Lines renders the text at width, as Renderer.Render would.
func (s *Stream) Lines(width int) []string {
	width = max(width, minWidth)
	text := s.text.String()
	if s.done {
		return s.r.Render(text, width)
	}
	s.split.feed(text)
	c := s.cache(width)
	if stable := s.split.stable; stable < c.upto {
		*c = prefix{width: width} // the boundary moved back (a link definition)
	} else if stable > c.upto {
		raw := s.r.pass(text[c.upto:stable], width, c.upto > 0)
		s.add(c, raw)
		c.upto = stable
	}
	tail := text[c.upto:]
	var tailRaw string
	if tail != "" {
		tailRaw = s.r.pass(tail, width, c.upto > 0)
	}
	out := make([]string, len(c.lines), len(c.lines)+8)
	copy(out, c.lines)
	return trimBlank(appendLines(out, c.partial+tailRaw, width))
}

// add appends a chunk's raw render to a prefix render.
func (s *Stream) add(c *prefix, raw string) {
	raw = c.partial + raw
	nl := strings.LastIndexByte(raw, '\n')
	if nl < 0 {
		c.partial = raw
		return
	}
	c.lines = appendLines(c.lines, raw[:nl], c.width)
	c.partial = raw[nl+1:]
}

// cache returns the prefix render of a width, making it the most recent.
func (s *Stream) cache(width int) *prefix {
	for i, c := range s.caches {
		if c.width == width {
			s.caches = append(append(s.caches[:i:i], s.caches[i+1:]...), c)
			return c
		}
	}
	if len(s.caches) >= maxStreamWidths {
		s.caches = s.caches[1:]
	}
	c := &prefix{width: width}
	s.caches = append(s.caches, c)
	return c
}
