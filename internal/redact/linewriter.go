package redact

import (
	"bytes"
	"io"
)

// NewLineWriter returns a live Writer for output a person watches line by
// line (a running command's): a line shows once it is complete, unless the
// live rules hold it (structured data, an unclosed quote, an open private
// key block, a secret still arriving); the line being written waits for its
// newline, however short. Without this, a command that prints a few bytes
// a second would show nothing until liveTail bytes had come.
func (r *Redactor) NewLineWriter(w io.Writer) *Writer {
	lw := r.NewLiveWriter(w)
	lw.lines = true
	return lw
}

// lineCut is where a line stream may be cut: after the last complete line
// (done when none is complete beyond it).
func lineCut(b []byte, done int) int {
	i := bytes.LastIndexByte(b, '\n')
	if i < done {
		return done
	}
	return i + 1
}

// NewLineStream is NewLineWriter as an io.WriteCloser (the loop's live view
// of a command's output).
func (r *Redactor) NewLineStream(w io.Writer) io.WriteCloser { return r.NewLineWriter(w) }
