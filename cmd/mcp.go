package cmd

import (
	"fmt"
	"os"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"agent/internal/app"
	"agent/internal/termtext"
)

func newMCPCmd() *cobra.Command {
	c := &cobra.Command{
		Use:   "mcp",
		Short: "MCP servers: list the configured ones, their status and tools",
		Args:  cobra.NoArgs,
		RunE:  func(cmd *cobra.Command, _ []string) error { return cmd.Help() },
	}
	c.AddCommand(newMCPListCmd())
	return c
}

// mcpServerJSON is one server of `agent mcp list --json`.
type mcpServerJSON struct {
	Name      string        `json:"name"`
	Transport string        `json:"transport"`
	Target    string        `json:"target"`
	Status    string        `json:"status"`
	Error     string        `json:"error,omitempty"`
	Tools     []mcpToolJSON `json:"tools"`
}

type mcpToolJSON struct {
	Name    string `json:"name"`
	Risk    string `json:"risk,omitempty"`
	Refused string `json:"refused,omitempty"`
}

func newMCPListCmd() *cobra.Command {
	var asJSON bool
	var dir string
	c := &cobra.Command{
		Use:   "list",
		Short: "List the configured MCP servers, their status and tools",
		Long: `List the MCP servers of [mcp.servers.NAME] in the user config file: each is
started, asked for its tools and stopped again. A tool is offered to the model as
mcp__SERVER__TOOL; its risk is exec (it asks under ask and auto-edit) unless the
server's read_only_tools names it. Tools a server offers that the agent refuses
(a schema that is not an object, a huge description, a bad name) are listed with why.`,
		Example: `  agent mcp list
  agent mcp list --json | jq -r '.[] | .tools[] | .name'`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			l, err := app.ListMCP(cmd.Context(), dir)
			if err != nil {
				return appErr(err)
			}
			for _, w := range l.Warnings {
				warn(os.Stderr, w)
			}
			out := make([]mcpServerJSON, 0, len(l.Servers))
			for _, s := range l.Servers {
				j := mcpServerJSON{Name: s.Name, Transport: s.Transport, Target: s.Target, Status: s.State.String(), Error: s.Err, Tools: []mcpToolJSON{}}
				for _, t := range s.Tools {
					j.Tools = append(j.Tools, mcpToolJSON{Name: t.Name, Risk: t.Risk, Refused: t.Refused})
				}
				out = append(out, j)
			}
			if asJSON {
				return writeJSON(cmd.OutOrStdout(), out)
			}
			w := cmd.OutOrStdout()
			if len(out) == 0 {
				fmt.Fprintln(w, "no MCP server configured; add one to the user config file, e.g.\n\n"+
					"  [mcp.servers.everything]\n  command = \"npx\"\n  args = [\"-y\", \"@modelcontextprotocol/server-everything\"]")
				return nil
			}
			tw := tabwriter.NewWriter(w, 2, 4, 2, ' ', 0)
			fmt.Fprintln(tw, "SERVER\tSTATUS\tTRANSPORT\tTOOLS\tTARGET")
			for _, s := range out {
				offered := 0
				for _, t := range s.Tools {
					if t.Refused == "" {
						offered++
					}
				}
				fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%s\n", termtext.Field(s.Name), s.Status, termtext.Field(s.Transport), offered, oneLine(s.Target, 60))
			}
			if err := tw.Flush(); err != nil {
				return err
			}
			for _, s := range out {
				if s.Error != "" {
					fmt.Fprintf(w, "\n%s: %s\n", termtext.Field(s.Name), termtext.Visible(s.Error))
				}
				if len(s.Tools) == 0 {
					continue
				}
				fmt.Fprintf(w, "\n%s:\n", termtext.Field(s.Name))
				tw := tabwriter.NewWriter(w, 2, 4, 2, ' ', 0)
				for _, t := range s.Tools {
					if t.Refused != "" {
						fmt.Fprintf(tw, "  %s\trefused: %s\n", termtext.Field(t.Name), oneLine(t.Refused, 100))
					} else {
						fmt.Fprintf(tw, "  %s\t%s\n", termtext.Field(t.Name), termtext.Field(t.Risk))
					}
				}
				if err := tw.Flush(); err != nil {
					return err
				}
			}
			return nil
		},
	}
	c.Flags().BoolVar(&asJSON, "json", false, "print one JSON array")
	c.Flags().StringVarP(&dir, "dir", "C", "", "the workspace (its .agent/config.toml may turn servers off; stdio servers run in it)")
	return c
}
