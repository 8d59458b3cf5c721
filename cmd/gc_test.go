package cmd

import (
	"runtime/debug"
	"strings"
	"testing"

	"github.com/spf13/cobra"
)

// TestGCModeOfEveryCommand: the commands that run the agent loop collect
// at GOGC 400, every other command (each one the root has, found by its
// path) at Go's 100, so that adding a command makes it one-shot unless it
// says otherwise.
func TestGCModeOfEveryCommand(t *testing.T) {
	loop := map[string]bool{"agent": true, "agent run": true, "agent resume": true}
	seen := map[string]bool{}
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		seen[c.CommandPath()] = true
		want := 100
		if loop[c.CommandPath()] {
			want = 400
		}
		if got := gcModeOf(c).gcPercent(); got != want {
			t.Errorf("%s: GOGC %d, want %d", c.CommandPath(), got, want)
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
	noEnv := func(string) string { return "" }
	tuneGC(run, noEnv)
	if got := debug.SetGCPercent(100); got != 400 {
		t.Errorf("agent run: GOGC %d, want 400", got)
	}
	tuneGC(run, func(k string) string {
		if k == "GOGC" {
			return "50"
		}
		return ""
	})
	if got := debug.SetGCPercent(100); got != 100 {
		t.Errorf("GOGC=50 in the environment: tuneGC changed the percent to %d", got)
	}
	repomap, _, _ := root.Find([]string{"repomap"})
	debug.SetGCPercent(400)
	tuneGC(repomap, noEnv)
	if got := debug.SetGCPercent(100); got != 100 {
		t.Errorf("agent repomap: GOGC %d, want 100", got)
	}
}
