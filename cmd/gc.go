package cmd

import (
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"sync"

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
	// gcLoop is for the commands that run the agent loop (the TUI, run,
	// resume; eval runs its tasks as agent run processes): Go's GOGC 100
	// and a soft memory limit that follows the live heap (loopLimit). A
	// long run's heap is mostly the request of each step, rebuilt from the
	// whole conversation; under GOGC 400 an 800-step run grew to 120 MiB
	// (Crush: 115); under GOGC 100 and this limit it stays at 68.5, for
	// 1.5-2.4 s more GC CPU over the 800 steps (docs/benchmarks.md, "Issue
	// 24: memory at 800 steps").
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
	return 100
}

// The soft memory limit of the loop commands: loopLimitFloor while the
// live heap is small, then one and a half times the live heap, so that a
// session whose live heap outgrows the floor (a reopened 10,000-item
// session holds ~42 MB) is never collected back to back: the limit always
// leaves half a live heap of room (GOGC 50's goal; GOGC 100 applies below
// it). At 800 steps the live heap is 15-22 MB and the floor binds: max RSS
// 68.5 MiB, 0.60x Crush's; with twice the live heap 71.5, with twice and
// 8 MiB 72.4 (docs/benchmarks.md, "Issue 24: memory at 800 steps").
const loopLimitFloor = 40 << 20

// loopLimit is the soft memory limit of a loop command with live bytes of
// live heap.
func loopLimit(live uint64) int64 {
	return max(loopLimitFloor, 3*int64(min(live, 1<<50))/2)
}

// tuneGC sets the collector for the command that runs: GOGC unless GOGC is
// set in the environment, and for the loop commands the soft memory limit
// that follows the live heap unless GOMEMLIMIT is (the environment always
// takes precedence). stop ends the following (tests; a command runs with
// it to its end).
func tuneGC(c *cobra.Command, getenv func(string) string) (stop func()) {
	m := gcModeOf(c)
	if getenv("GOGC") == "" {
		debug.SetGCPercent(m.gcPercent())
	}
	if m == gcLoop && getenv("GOMEMLIMIT") == "" {
		return followLiveHeap()
	}
	return func() {}
}

// followLiveHeap sets the soft memory limit to loopLimit of the live heap
// now and after every collection (a finalizer re-armed each cycle runs on
// the runtime's finalizer goroutine once the collection is done), until
// stop is called (tests; a command never stops it).
func followLiveHeap() (stop func()) {
	sample := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	set := func() {
		metrics.Read(sample)
		if sample[0].Value.Kind() == metrics.KindUint64 {
			debug.SetMemoryLimit(loopLimit(sample[0].Value.Uint64()))
		}
	}
	set()
	return afterEachGC(set)
}

// afterEachGC calls fn after each collection until stop is called; once
// stop has returned, fn is not running and never runs again.
func afterEachGC(fn func()) (stop func()) {
	type sentinel struct{ _ [16]byte } // not tiny-allocated: it dies alone
	var (
		mu      sync.Mutex
		stopped bool
		arm     func(*sentinel)
	)
	arm = func(s *sentinel) {
		mu.Lock()
		defer mu.Unlock()
		if stopped {
			return
		}
		fn()
		runtime.SetFinalizer(s, arm)
	}
	runtime.SetFinalizer(&sentinel{}, arm)
	return func() {
		mu.Lock()
		stopped = true
		mu.Unlock()
	}
}
