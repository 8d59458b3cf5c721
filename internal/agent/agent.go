// Package agent owns the loop: it builds each model request from the
// conversation, streams a turn from a Provider, validates the model's tool calls
// as untrusted input, asks the Approver, runs tools, and journals every step as
// an event before its side effects happen. It also folds a journal back into
// State for resume.
//
// It must not know how events are stored or rendered (a Journal and observers
// do that), which model endpoint is used (a Provider does), nor how a person is
// asked (an Approver does). It never touches files outside the workspace.
package agent

import (
	"context"
	"errors"
	"fmt"
	"io"

	"agent/internal/event"
	"agent/internal/protocol"
)

// Class is a failure class of the contract.
type Class = event.Class

const (
	ClassModel      = event.ClassModel
	ClassTool       = event.ClassTool
	ClassPermission = event.ClassPermission
	ClassContext    = event.ClassContext
	ClassRuntime    = event.ClassRuntime
)

// Failure is a classified error that ends a run.
type Failure struct {
	Class Class
	Err   error
}

func (f *Failure) Error() string { return fmt.Sprintf("%s error: %v", f.Class, f.Err) }
func (f *Failure) Unwrap() error { return f.Err }

// Fail wraps err in a Failure of class c.
func Fail(c Class, err error) error { return &Failure{Class: c, Err: err} }

// ClassOf returns the failure class of err (runtime when unclassified).
func ClassOf(err error) Class {
	var f *Failure
	if errors.As(err, &f) {
		return f.Class
	}
	return ClassRuntime
}

// Journal commits events. A committed event
// survives the process being killed; AppendSync also returns only once it
// and every event before it are on stable storage (fsynced), so they
// survive a power loss: the loop uses it for the last event before a call
// changes anything.
type Journal interface {
	// Append commits the events of one run in one transaction; their Seq
	// must continue the run's journal without a gap.
	Append(ctx context.Context, evs ...*event.Event) error
	AppendSync(ctx context.Context, evs ...*event.Event) error
}

// Processes ends what commands left running: after a crash (resume) and
// when a run ends or pauses (background processes).
type Processes interface {
	// End ends what is left of the run's commands: members of their process
	// groups, and processes that carry the run's marker. It reports, per
	// command that had anything left, what it found.
	End(ctx context.Context, runID string, cmds []event.CommandStartedData) []event.ProcessReport
}

// Redactor removes secrets from text at every boundary.
type Redactor interface {
	Redact(s string) string
}

// StreamRedactor is a Redactor that can also redact a stream whose secrets
// may be split across writes (the model's live text).
type StreamRedactor interface {
	Redactor
	NewStream(w io.Writer) io.WriteCloser
}

// funcWriter adapts an observer callback to io.Writer.
type funcWriter func(string)

func (f funcWriter) Write(p []byte) (int, error) {
	f(string(p))
	return len(p), nil
}

// Observer sees each event after it is committed, and streamed text and
// tool-call arguments as they arrive, already redacted (for display). Any
// func may be nil.
type Observer struct {
	Event func(event.Event)
	Delta func(text string)
	// CallDelta sees the arguments of a tool call as they stream in.
	CallDelta func(protocol.CallDelta)
	// Output sees the latest output of a running command (liveoutput.go).
	Output func(protocol.CommandOutput)
}
