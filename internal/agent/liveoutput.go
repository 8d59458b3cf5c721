package agent

import (
	"io"
	"sync"
	"time"
	"unicode/utf8"

	"agent/internal/protocol"
)

// outputEvery is how often, at most, a running command's output is shown
// anew: a command that prints a flood costs the frontend ten updates a
// second, and the command's pipe never waits longer than one.
const outputEvery = 100 * time.Millisecond

// outputTail shows a running command's output to the observer while it
// runs: the bytes go through a live redacting stream into a bounded tail,
// which is published at most every outputEvery (the last write is
// published when the interval ends). Nothing of it is journaled: the
// tool_result has the output.
type outputTail struct {
	callID string
	send   func(protocol.CommandOutput)
	in     io.WriteCloser // the redacting stream, writing to sink

	mu     sync.Mutex
	buf    []byte // the end of the redacted output, at most 2*protocol.OutputTailBytes
	cut    bool   // output before buf was dropped
	dirty  bool
	last   time.Time // the last publish
	timer  *time.Timer
	closed bool
}

// LineRedactor is a Redactor that can redact a stream of lines as it
// arrives, showing each line once it is complete (a command's output).
type LineRedactor interface {
	Redactor
	NewLineStream(w io.Writer) io.WriteCloser
}

// liveOutput returns the writer of call's live output, or nil when no one
// watches (a nil *outputTail's Close does nothing).
func (r *Runner) liveOutput(callID string) *outputTail {
	if r.Observer.Output == nil {
		return nil
	}
	t := &outputTail{callID: callID, send: r.Observer.Output}
	sink := funcWriter(t.add)
	switch red := r.Redactor.(type) {
	case nil:
		t.in = nopWriteCloser{sink}
	case LineRedactor:
		t.in = red.NewLineStream(sink)
	case StreamRedactor:
		t.in = red.NewStream(sink)
	default:
		// a redactor that cannot stream: nothing shows until the end,
		// which the tool_result shows anyway
		t.in = &bufferedRedact{r: r.Redactor, w: io.Discard}
	}
	return t
}

// Write takes raw output of the command.
func (t *outputTail) Write(p []byte) (int, error) {
	_, _ = t.in.Write(p)
	return len(p), nil
}

// Close ends the live view; nothing is published after it returns.
func (t *outputTail) Close() {
	if t == nil {
		return
	}
	_ = t.in.Close()
	t.mu.Lock()
	t.closed = true
	if t.timer != nil {
		t.timer.Stop()
	}
	t.mu.Unlock()
}

// add takes redacted output: kept as the tail, published now or when the
// interval ends.
func (t *outputTail) add(s string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.closed {
		return
	}
	t.buf = append(t.buf, s...)
	if over := len(t.buf) - protocol.OutputTailBytes; len(t.buf) > 2*protocol.OutputTailBytes {
		t.buf, t.cut = append(t.buf[:0], t.buf[over:]...), true
	}
	t.dirty = true
	if wait := outputEvery - time.Since(t.last); wait > 0 {
		if t.timer == nil {
			t.timer = time.AfterFunc(wait, t.flush)
		}
		return
	}
	t.publishLocked()
}

func (t *outputTail) flush() {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.timer = nil
	if !t.closed && t.dirty {
		t.publishLocked()
	}
}

// publishLocked sends the tail, from a line's start when it was cut.
func (t *outputTail) publishLocked() {
	t.dirty, t.last = false, time.Now()
	t.send(protocol.CommandOutput{CallID: t.callID, Tail: tailText(t.buf, protocol.OutputTailBytes, t.cut)})
}

// tailText is the end of b, at most n bytes: when b is longer or cut
// (what came before it was dropped), from the first line that starts inside
// it, else from a rune's start.
func tailText(b []byte, n int, cut bool) string {
	if len(b) <= n && !cut {
		return string(b)
	}
	b = b[max(0, len(b)-n):]
	for i, c := range b {
		if c == '\n' && i+1 < len(b) {
			return string(b[i+1:])
		}
	}
	for len(b) > 0 && !utf8.RuneStart(b[0]) {
		b = b[1:]
	}
	return string(b)
}
