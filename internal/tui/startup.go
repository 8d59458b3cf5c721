package tui

import (
	"os"
	"runtime/debug"
	"sync"
	"time"
)

// warmDelay is how long after the first window size the session starts
// filling its caches (the repo map's cold parse, the tokenizer's
// vocabulary: tens of milliseconds of CPU). Started at once, that work ran
// beside the first frame on a two-core machine and delayed it; a person
// takes longer than this to type a first prompt, and a prompt sent sooner
// loads what it needs itself (docs/benchmarks.md, "Issue 21: the first
// frame").
const warmDelay = 250 * time.Millisecond

// quietStartMaxLimit bounds the soft memory limit under which the start
// may run without the collector: the loop commands set 40 MiB (cmd/gc.go);
// a user's GOMEMLIMIT far above it leaves the collector on.
const quietStartMaxLimit = 256 << 20

// quietStart turns the collector off until the first frame is out and
// returns what turns it back on (idempotent; the root calls it with the
// warm-up, warmDelay after the first window size, and when the program
// ends). The start of a new session allocates ~10 MB in ~30 ms of CPU, and
// the three collections the default goal (4 MB) made in it cost ~10 ms of
// it (GOGC=off: 26-31 ms of CPU to the frame against 34-48, same minutes;
// docs/benchmarks.md). The soft memory limit stays in force, so the heap
// cannot run away in the meantime. GOGC given in the environment (or a
// limit above quietStartMaxLimit) is left alone; a reopened session,
// which decodes its journal at once, does not start quiet (tui.start).
func quietStart() (done func()) {
	if os.Getenv("GOGC") != "" || debug.SetMemoryLimit(-1) > quietStartMaxLimit {
		return func() {}
	}
	prev := debug.SetGCPercent(-1)
	if prev < 0 { // another session of this process is starting (tests): its done turns it back on
		return func() {}
	}
	var once sync.Once
	return func() { once.Do(func() { debug.SetGCPercent(prev) }) }
}
