package redact

import (
	"bytes"
	"errors"
	"io"
	"sync"
)

// Streaming parameters.
const (
	// writerTail is held back at the end of the buffer so that a secret
	// split across writes is seen whole: longer than any single-token secret
	// and any keyword-to-value context.
	writerTail = 4 << 10
	// writerCtx is kept, already emitted, before the pending bytes so that
	// detectors see the context (KEY=) of a value that follows.
	writerCtx = 1 << 10
	// writerChunk is how many new bytes accumulate before a scan, so that
	// small writes do not rescan the tail each time.
	writerChunk = 8 << 10
	// liveTail is what a live stream (text a person watches arrive) holds
	// back instead of writerTail: enough for a keyword and its value on one
	// line; a token still growing, a candidate reaching the end, an open
	// private-key block and a line with an unclosed double quote are held
	// whole as well, so nothing of a secret shows before it is recognised.
	liveTail = 96
	// liveChunk is how many new bytes a live stream waits for before a
	// scan: a few tokens, so text shows promptly without a scan per byte.
	liveChunk = 32
	// liveQuoteLine bounds how much of a line an unclosed quote holds back.
	liveQuoteLine = 1 << 10
)

// ErrClosed is returned by Write after Close.
var ErrClosed = errors.New("redact: write to closed Writer")

// Writer redacts a stream on its way to an underlying writer. A secret split
// across Write calls is still caught: the last bytes are held back (more
// while a private-key block is open) until more input or Close.
// Writer is safe for concurrent use, though interleaved writes interleave.
type Writer struct {
	r   *Redactor
	w   io.Writer
	mu  sync.Mutex
	buf []byte
	// done is how many leading bytes of buf were already emitted; they stay
	// as context for the detectors.
	done   int
	out    []byte
	err    error
	closed bool
	// tail and chunk: what is held back before a scan happens, and how
	// many new bytes wait for one (writerTail and writerChunk; liveTail and
	// liveChunk for a live stream).
	tail, chunk int
	live        bool
	tried       int // len(buf) when a live stream last found nothing to show
	heldAt      int // where structured text holds a live stream, or -1

	// lines: a live stream of lines (a command's output), whose whole
	// lines show (linewriter.go)
	lines bool
}

// NewWriter returns a Writer that writes the redacted stream to w.
func (r *Redactor) NewWriter(w io.Writer) *Writer {
	return &Writer{r: r, w: w, tail: writerTail, chunk: writerChunk}
}

// NewLiveWriter returns a Writer for text a person watches as it arrives:
// it scans on every write and holds back only what may still be (or be
// the start of) a secret, so the text shows with little delay.
func (r *Redactor) NewLiveWriter(w io.Writer) *Writer {
	return &Writer{r: r, w: w, tail: liveTail, chunk: liveChunk, live: true, heldAt: -1}
}

// Write buffers p and emits what is safe to emit. It reports len(p) unless
// the underlying writer failed.
func (w *Writer) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.closed {
		return 0, ErrClosed
	}
	if w.err != nil {
		return 0, w.err
	}
	w.buf = append(w.buf, p...)
	w.r.scanned.Add(int64(len(p)))
	switch pending := len(w.buf) - w.done; {
	case pending >= writerTail+writerChunk:
		w.process(false)
	case w.lines:
		if bytes.IndexByte(p, '\n') >= 0 {
			w.process(false)
		}
	case pending < w.tail+w.chunk:
	case !w.live:
		w.process(false)
	case len(w.buf)-w.tried < w.chunk:
		// looked a moment ago: wait for a chunk more
	case w.heldAt >= 0 && !bytes.Contains(w.buf[max(w.heldAt, w.tried-1):], []byte("\n\n")):
		// structured text still holds the stream (no blank line since):
		// it waits for the batch window without a scan per write
		w.tried = len(w.buf)
	default:
		if h := liveHold(w.buf, w.done); h > w.done {
			w.process(false) // prose to show
		} else {
			w.heldAt, w.tried = h, len(w.buf)
		}
	}
	if w.err != nil {
		return 0, w.err
	}
	return len(p), nil
}

// Close emits everything still held back. It does not close the
// underlying writer.
func (w *Writer) Close() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.closed {
		return w.err
	}
	w.closed = true
	if w.err == nil {
		w.process(true)
	}
	w.buf = nil
	return w.err
}

// process scans the buffer and emits the safe prefix of the pending bytes.
func (w *Writer) process(final bool) {
	b := w.buf
	r := w.r
	var cands []cand
	if cs := scanAll(r.engine.Load(), b); len(cs) > 0 {
		cands = resolve(cs)
	}
	cut := len(b)
	if !final && len(b)-w.done <= pemCap+writerTail {
		cut = len(b) - writerTail
		if w.live && len(b)-w.done < writerTail+writerChunk {
			// a live stream shows prose at once; structured text waits
			// (bounded: past the batch window it goes as the batch does)
			cut = min(len(b)-liveTail, liveHold(b, w.done))
			if w.lines {
				cut = min(lineCut(b, w.done), liveHold(b, w.done))
			}
		}
		if p := openPEM(b, w.done); p >= 0 {
			cut = min(cut, p)
		}
		// A run of token characters reaching the end may be a token not
		// yet recognisable (a JWT before its second dot): hold it whole.
		if p := startOf(b, len(b), cTokenX, len(b)-w.done); p < cut {
			cut = p
		}
		// A secret across the cut, or one that reaches the end of what we
		// have (it may go on), waits whole. Redactions are sorted and do not
		// overlap, so one backward pass settles the cut.
		for i := len(cands) - 1; i >= 0; i-- {
			c := cands[i]
			if !c.example && c.start >= w.done && c.start < cut && (c.end > cut || c.end == len(b)) {
				cut = c.start
			}
		}
	} else if !final {
		cut = len(b) - writerTail // held too long: let it go, redacted as seen
	}
	if cut <= w.done {
		return
	}
	out := w.out[:0]
	pos := w.done
	for _, c := range cands {
		if c.end <= pos || c.start >= cut {
			continue
		}
		if c.example {
			r.examples.Add(1)
			continue
		}
		out = append(out, b[pos:max(c.start, pos)]...)
		out = r.appendPlaceholder(out, c.kind, c.secretIn(b))
		r.count(c.kind)
		pos = min(c.end, cut)
		if c.end > cut {
			cut = c.end // forced release: never emit the rest of a secret in clear
		}
	}
	if pos < cut {
		out = append(out, b[pos:cut]...)
	}
	w.out = out
	if _, err := w.w.Write(out); err != nil {
		w.err = err
	}
	keep := max(0, cut-writerCtx)
	n := copy(w.buf, b[keep:])
	w.buf = w.buf[:n]
	w.done = cut - keep
	w.tried, w.heldAt = 0, -1
}

// liveHold is where a live stream must stop for now, beyond what the
// shared rules hold: the first line of the paragraph being written that
// looks like data (a "key: value" or "key=value" line, a run of 32 base64
// or hex characters, a PEM marker), since a secret in structured text can
// span lines and be recognised only once more of it has arrived (a
// manifest whose kind comes last, a key wrapped in base64 lines); and a
// line with an unclosed double quote. Prose shows at once. What the caps
// of process let go after that is redacted as seen.
func liveHold(b []byte, done int) int {
	hold := len(b)
	// the paragraph: from the last blank line, or from the start of the
	// line that was being emitted (whole, for the look of it)
	para := lineStart(b, done, writerCtx)
	if k := bytes.LastIndex(b[done:], []byte("\n\n")); k >= 0 {
		para = done + k + 2
	}
	for i := para; i < len(b); {
		end := bytes.IndexByte(b[i:], '\n')
		if end < 0 {
			end = len(b)
		} else {
			end += i
		}
		if dataLine(b[i:end]) {
			hold = max(i, done)
			break
		}
		i = end + 1
	}
	if ls := lineStart(b, len(b), liveQuoteLine); ls >= done && ls < hold && bytes.Count(b[ls:], []byte{'"'})%2 == 1 {
		hold = ls
	}
	return hold
}

// dataLine reports a line that looks like structured data rather than prose.
func dataLine(l []byte) bool {
	i := 0
	for i < len(l) && (l[i] == ' ' || l[i] == '\t' || l[i] == '-') {
		i++
	}
	j := i
	for j < len(l) && (isWordByte(l[j]) || l[j] == '.' || l[j] == '-' || l[j] == '"' || l[j] == '\'') {
		j++
	}
	k := j
	for k < len(l) && l[k] == ' ' {
		k++
	}
	if j > i && k < len(l) && (l[k] == ':' || l[k] == '=') {
		return true
	}
	if bytes.Contains(l, []byte("-----")) {
		return true
	}
	run := 0
	for _, c := range l {
		if isWordByte(c) || c == '+' || c == '/' || c == '=' {
			if run++; run >= 32 {
				return true
			}
		} else {
			run = 0
		}
	}
	return false
}

func isWordByte(c byte) bool {
	return c == '_' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

// openPEM returns the start of the first private-key block at or after from
// whose END marker has not arrived yet, or -1.
func openPEM(b []byte, from int) int {
	for i := from; ; {
		k := bytes.Index(b[i:], []byte("-----BEGIN "))
		if k < 0 {
			return -1
		}
		s := i + k
		if label, hdrEnd, ok := pemHeader(b, s); ok {
			if pemEnd(b, hdrEnd, label) < 0 && pemBodyOpen(b, hdrEnd, label) {
				return s
			}
		} else if len(b)-s < 80 && bytes.IndexByte(b[s:], '\n') < 0 {
			return s // header not complete yet
		}
		i = s + 1
	}
}

func (r *Redactor) count(kind string) {
	r.statsMu.Lock()
	r.perKind[kind]++
	r.statsMu.Unlock()
}

// pemBodyOpen reports whether the body of an unterminated block runs to the
// end of b (possibly into a partial END marker): more of it may follow.
// A BEGIN line inside a string constant is not open.
func pemBodyOpen(b []byte, hdrEnd int, label []byte) bool {
	j := pemBodyEnd(b, hdrEnd, len(b))
	for j < len(b) && is(b[j], cWS) {
		j++
	}
	rest := b[j:]
	if len(rest) == 0 {
		return true
	}
	end := "-----END " + string(label) + "-----"
	return len(rest) < len(end) && end[:len(rest)] == string(rest)
}

// NewStream is NewLiveWriter as an io.WriteCloser, for consumers that hold
// the redactor behind a small interface of their own (the loop's live text
// and tool-call arguments, shown as they stream).
func (r *Redactor) NewStream(w io.Writer) io.WriteCloser { return r.NewLiveWriter(w) }
