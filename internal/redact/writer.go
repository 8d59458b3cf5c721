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
	// writerMaxHold caps what an open private-key block or a still-growing
	// token may hold back.
	writerMaxHold = pemCap + writerTail
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
}

// NewWriter returns a Writer that writes the redacted stream to w.
func (r *Redactor) NewWriter(w io.Writer) *Writer {
	return &Writer{r: r, w: w}
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
	if len(w.buf)-w.done >= writerTail+writerChunk {
		w.process(false)
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
	sc := scanner{e: r.engine.Load(), b: b}
	sc.run()
	var cands []cand
	if len(sc.cands) > 0 {
		cands = resolve(sc.cands)
	}
	cut := len(b)
	if !final && len(b)-w.done <= writerMaxHold {
		cut = len(b) - writerTail
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
		out = r.appendPlaceholder(out, c.kind, b[c.start:c.end])
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

// NewStream is NewWriter as an io.WriteCloser, for consumers that hold the
// redactor behind a small interface of their own (the loop's live text).
func (r *Redactor) NewStream(w io.Writer) io.WriteCloser { return r.NewWriter(w) }
