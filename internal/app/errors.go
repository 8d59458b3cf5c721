// Package app owns agent sessions: resolving settings (flags, environment,
// config files), opening the journal, the shadow repository, the redactor and
// the model provider, and driving runs through the loop — start, resume,
// decide, message, interrupt, roll back — with the run lock, retention and a
// subscription to each run's events and live, already redacted stream deltas
// (Service, Run); and the read and maintenance side of the state directory
// (Home): runs, peek, checkpoints paired and counted, patches and previews,
// the model request at a step, grants, audit, export, prune and delete,
// rollback, eval capture; and the children of task calls (subagents: child
// runs in the same journal, workers' git worktrees, their deletion with
// their tree). It is the front door: the headless command line
// (cmd), the TUI (internal/tui) and the editors' ACP server (internal/acp)
// are its frontends; they render updates and send commands in the vocabulary
// of internal/protocol, and never import the store, the shadow repository or
// the loop (frontdoor_test.go fails if one does).
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
