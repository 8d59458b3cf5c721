// Command agent is a terminal coding agent whose runtime is recoverable and
// auditable. See README.md.
package main

import (
	"os"

	"agent/cmd"
)

func main() {
	os.Exit(cmd.Execute())
}
