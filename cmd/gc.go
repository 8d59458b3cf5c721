package cmd

import (
	"runtime/debug"

	"github.com/spf13/cobra"
)

// gcMode is how a command's process collects garbage.
type gcMode uint8

const (
	// gcOneShot is Go's default (GOGC 100): a command that builds
	// something, prints it and exits (repomap, runs, trace, export, ...)
	// peaks at about twice its live heap. Under GOGC 400 the same work
	// peaked at up to five times it, or at the soft memory limit: agent
	// repomap on 1,040 Go files took 70 MiB against 59 at the same wall
	// time (docs/benchmarks.md, "The process floor").
	gcOneShot gcMode = iota
	// gcLoop is GOGC 400, for the commands that run the agent loop (the
	// TUI, run, resume; eval runs its tasks as agent run processes): their
	// heap is small and short-lived, and collecting it four times less
	// often saves CPU per step. The soft memory limit main sets bounds a
	// long session.
	gcLoop
)

// gcAnnotation marks a command with its gcMode (cobra.Command.Annotations).
const gcAnnotation = "agent.gc"

// loopGC marks c as a command that runs the agent loop.
func loopGC(c *cobra.Command) *cobra.Command {
	if c.Annotations == nil {
		c.Annotations = map[string]string{}
	}
	c.Annotations[gcAnnotation] = "loop"
	return c
}

// gcModeOf is the mode of the command that runs.
func gcModeOf(c *cobra.Command) gcMode {
	if c.Annotations[gcAnnotation] == "loop" {
		return gcLoop
	}
	return gcOneShot
}

// gcPercent is the GOGC of a mode.
func (m gcMode) gcPercent() int {
	if m == gcLoop {
		return 400
	}
	return 100
}

// tuneGC sets the collector for the command that runs, unless GOGC is
// set in the environment (it always takes precedence).
func tuneGC(c *cobra.Command, getenv func(string) string) {
	if getenv("GOGC") != "" {
		return
	}
	debug.SetGCPercent(gcModeOf(c).gcPercent())
}
