package cmd

import (
	"encoding/json"
	"fmt"
	"runtime"
	"runtime/debug"

	"github.com/spf13/cobra"
)

// Set with -ldflags "-X agent/cmd.version=... -X agent/cmd.commit=...".
var (
	version = "dev"
	commit  = ""
)

func buildInfo() (string, string) {
	c := commit
	if c == "" {
		if bi, ok := debug.ReadBuildInfo(); ok {
			for _, s := range bi.Settings {
				if s.Key == "vcs.revision" {
					c = s.Value
				}
			}
		}
	}
	if c == "" {
		c = "unknown"
	}
	return version, c
}

func newVersionCmd() *cobra.Command {
	var asJSON bool
	c := &cobra.Command{
		Use:     "version",
		Short:   "Print the version, commit and Go version",
		Example: "  agent version\n  agent version --json",
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			v, c := buildInfo()
			if asJSON {
				return json.NewEncoder(cmd.OutOrStdout()).Encode(map[string]string{"version": v, "commit": c, "go": runtime.Version()})
			}
			fmt.Fprintf(cmd.OutOrStdout(), "agent %s\ncommit %s\n%s %s/%s\n", v, c, runtime.Version(), runtime.GOOS, runtime.GOARCH)
			return nil
		},
	}
	c.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	return c
}
