// Package app owns agent sessions: resolving settings (flags, environment,
// config files), opening the journal, the shadow repository, the redactor and
// the model provider, and driving runs through the loop — start, resume,
// decide, message, interrupt, roll back — with the run lock, retention and a
// subscription to each run's events and live, already redacted stream deltas.
// The headless command line (cmd) and the TUI (internal/tui) are two
// frontends of it: they render updates and send requests, and never reach
// into the loop.
//
// It must not render anything, read a terminal, parse flags or decide exit
// codes: it returns typed errors (*UsageError, ErrRunInUse, ...) for the
// frontends to map.
package app

import (
	"errors"
	"fmt"
)

// UsageError is a usage or configuration error: the message names the fix.
type UsageError struct{ Err error }

func (e *UsageError) Error() string { return e.Err.Error() }
func (e *UsageError) Unwrap() error { return e.Err }

func usage(format string, a ...any) error {
	return &UsageError{Err: fmt.Errorf(format, a...)}
}

// ErrRunInUse: another live process drives the run.
var ErrRunInUse = errors.New("in use by another agent process")
