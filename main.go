// Command agent is a terminal coding agent whose runtime is recoverable and
// auditable. See README.md.
package main

import (
	"os"
	"runtime/debug"

	"agent/cmd"
)

func main() {
	// The heap of a run is small and short-lived; collecting it four times
	// less often saves CPU per step, and the soft limit keeps the memory of a
	// long session bounded. GOGC and GOMEMLIMIT still take precedence.
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(400)
	}
	if os.Getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(96 << 20)
	}
	os.Exit(cmd.Execute())
}
