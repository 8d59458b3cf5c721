package cmd

import (
	"runtime"
	"runtime/debug"
	"strings"
	"testing"

	"github.com/spf13/cobra"
)

// TestGCModeOfEveryCommand: the commands that run the agent loop are in
// gcLoop (a soft memory limit that follows the live heap), every other
// command (each one the root has, found by its path) one-shot, so that
// adding a command makes it one-shot unless it says otherwise; all collect
// at Go's GOGC 100.
func TestGCModeOfEveryCommand(t *testing.T) {
	loop := map[string]bool{"agent": true, "agent run": true, "agent resume": true, "agent fork": true}
	seen := map[string]bool{}
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		seen[c.CommandPath()] = true
		want := gcOneShot
		if loop[c.CommandPath()] {
			want = gcLoop
		}
		if got := gcModeOf(c); got != want {
			t.Errorf("%s: gc mode %d, want %d", c.CommandPath(), got, want)
		}
		if got := gcModeOf(c).gcPercent(); got != 100 {
			t.Errorf("%s: GOGC %d, want 100", c.CommandPath(), got)
		}
		for _, s := range c.Commands() {
			walk(s)
		}
	}
	walk(newRoot())
	for p := range loop {
		if !seen[p] {
			t.Errorf("no command %q", p)
		}
	}
	for _, p := range []string{"agent repomap", "agent runs", "agent eval", "agent redact"} {
		if !seen[p] {
			t.Errorf("no command %q", p)
		}
	}
}

// TestTuneGCSetsThePercent: the setting is applied when the command runs,
// and GOGC in the environment wins over it.
func TestTuneGCSetsThePercent(t *testing.T) {
	orig := debug.SetGCPercent(100)
	defer debug.SetGCPercent(orig)
	root := newRoot()
	run, _, err := root.Find([]string{"run"})
	if err != nil || !strings.HasSuffix(run.CommandPath(), "run") {
		t.Fatalf("find run: %v", err)
	}
	origLimit := debug.SetMemoryLimit(-1)
	defer debug.SetMemoryLimit(origLimit)
	noEnv := func(string) string { return "" }
	debug.SetGCPercent(400)
	debug.SetMemoryLimit(96 << 20)
	tuneGC(run, noEnv)()
	if got := debug.SetGCPercent(100); got != 100 {
		t.Errorf("agent run: GOGC %d, want 100", got)
	}
	if got := debug.SetMemoryLimit(-1); got != loopLimitFloor {
		t.Errorf("agent run: memory limit %d, want the loop's %d", got, loopLimitFloor)
	}
	debug.SetGCPercent(400)
	debug.SetMemoryLimit(96 << 20)
	tuneGC(run, func(k string) string {
		if k == "GOGC" || k == "GOMEMLIMIT" {
			return "50"
		}
		return ""
	})()
	if got := debug.SetMemoryLimit(-1); got != 96<<20 {
		t.Errorf("GOMEMLIMIT in the environment: tuneGC changed the limit to %d", got)
	}
	if got := debug.SetGCPercent(100); got != 400 {
		t.Errorf("GOGC=50 in the environment: tuneGC changed the percent to %d", got)
	}
	repomap, _, _ := root.Find([]string{"repomap"})
	debug.SetGCPercent(400)
	tuneGC(repomap, noEnv)()
	if got := debug.SetGCPercent(100); got != 100 {
		t.Errorf("agent repomap: GOGC %d, want 100", got)
	}
	if got := debug.SetMemoryLimit(-1); got != 96<<20 {
		t.Errorf("agent repomap: memory limit %d, want main's 96 MiB kept", got)
	}
}

// TestLoopLimit: the floor while the live heap is small, then one and a
// half times the live heap, so that the limit always leaves room for the
// collector not to run back to back.
func TestLoopLimit(t *testing.T) {
	for _, c := range []struct {
		live uint64
		want int64
	}{
		{0, 40 << 20}, {10 << 20, 40 << 20}, {26 << 20, 40 << 20}, {28 << 20, 42 << 20},
		{42 << 20, 63 << 20}, {1 << 62, 3 << 49},
	} {
		if got := loopLimit(c.live); got != c.want {
			t.Errorf("loopLimit(%d) = %d, want %d", c.live, got, c.want)
		}
		if live := int64(min(c.live, 1<<50)); loopLimit(c.live) < live+live/2 {
			t.Errorf("loopLimit(%d) leaves less than half the live heap of room", c.live)
		}
	}
}

// TestFollowLiveHeap: the limit is set when the hook starts and again
// after each collection, from the live heap then; it grows with a live
// heap past the floor, and stops following once stopped.
func TestFollowLiveHeap(t *testing.T) {
	orig := debug.SetMemoryLimit(-1)
	defer debug.SetMemoryLimit(orig)
	debug.SetMemoryLimit(1 << 40)
	stop := followLiveHeap()
	defer stop()
	if got := debug.SetMemoryLimit(-1); got != loopLimitFloor {
		t.Fatalf("limit %d when the hook starts, want the floor %d", got, loopLimitFloor)
	}
	big := make([][]byte, 64) // 64 MiB kept live
	for i := range big {
		big[i] = make([]byte, 1<<20)
	}
	want := loopLimit(64 << 20)
	var got int64
	for range 100 { // the hook runs on the finalizer goroutine after a GC
		runtime.GC()
		if got = debug.SetMemoryLimit(-1); got >= want {
			break
		}
		runtime.Gosched()
	}
	if got < want {
		t.Fatalf("limit %d with 64 MiB live, want at least %d", got, want)
	}
	runtime.KeepAlive(big)
	stop()
	debug.SetMemoryLimit(1 << 40)
	for range 3 {
		runtime.GC()
		runtime.Gosched()
	}
	if got := debug.SetMemoryLimit(-1); got != 1<<40 {
		t.Errorf("the hook set the limit to %d after it was stopped", got)
	}
}
