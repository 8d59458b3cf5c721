// Command agent is a terminal coding agent whose runtime is recoverable and
// auditable. See README.md.
package main

import (
	"os"
	"runtime/debug"

	"agent/cmd"
)

func main() {
	// The soft limit keeps the memory of a one-shot command bounded; the
	// commands that run the agent loop replace it with one that follows
	// their live heap (cmd/gc.go). GOGC and GOMEMLIMIT in the environment
	// take precedence.
	if os.Getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(96 << 20)
	}
	os.Exit(cmd.Execute())
}
