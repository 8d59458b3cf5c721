// Command agent is a terminal coding agent whose runtime is recoverable and
// auditable. See README.md.
package main

import (
	"os"
	"runtime/debug"

	"agent/cmd"
)

func main() {
	// The soft limit keeps the memory of a long session bounded; each
	// command sets its GOGC before it runs (cmd/gc.go: 400 for the agent
	// loop, Go's 100 for one-shot commands). GOGC and GOMEMLIMIT in the
	// environment take precedence.
	if os.Getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(96 << 20)
	}
	os.Exit(cmd.Execute())
}
