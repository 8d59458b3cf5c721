package cmd

import (
	"agent/internal/app"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"agent/internal/repomap"
	"agent/internal/termtext"
)

// Bounds of --tokens.
const (
	minMapTokens = 64
	maxMapTokens = 1_000_000
)

func newRepomapCmd() *cobra.Command {
	var (
		dir, query      string
		focus           []string
		tokens          int
		asJSON, noCache bool
	)
	c := &cobra.Command{
		Use:                   "repomap [-C DIR] [--tokens N] [--focus PATH]... [--query TEXT] [--json]",
		DisableFlagsInUseLine: true,
		Short:                 "Print the repository map the agent would send for a request",
		Long: `Print the repository map: a ranked skeleton of the workspace's source files
(definitions with their signatures) and a short orientation section (README, entry
points, tree, tests, routes, recent changes), cut to a token budget counted with
the o200k_base tokenizer. It is the text the model sees for that request.

The ranking is a personalized PageRank over the files' references: identifiers and
paths named in --query and the files named with --focus pull the map towards them.
The whole index of the workspace is kept in $AGENT_HOME/repomap/ (and the tags of
non-Go files per file in $AGENT_HOME/agent.db: Go files are cheaper to read again), so
a second run reads one file and parses only the files that changed.

--json prints {budget, tokens, files: [{path, rank, symbols: [{name, kind, line,
signature}]}], text, stats}, files in rank order.`,
		Example: `  agent repomap
  agent repomap --tokens 4096 --query "why does ServeMux reject this path?"
  agent repomap -C ~/src/app --focus internal/store/runs.go --focus cmd/run.go
  agent repomap --json --tokens 512 | jq -r '.files[].path'`,
		Args: func(_ *cobra.Command, args []string) error {
			if len(args) > 0 {
				return usageErr("agent repomap takes no arguments (got %q); pass the request with --query %q", args[0], strings.Join(args, " "))
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, _ []string) error {
			if tokens < minMapTokens || tokens > maxMapTokens {
				return usageErr("--tokens %d is out of range: use a budget between %d and %d tokens, e.g. --tokens %d", tokens, minMapTokens, maxMapTokens, repomap.DefaultTokens)
			}
			ws, err := app.ResolveWorkspace(dir)
			if err != nil {
				return err
			}
			groups, err := resolveFocus(ws, focus)
			if err != nil {
				return err
			}
			opts := repomap.Options{Root: ws, Tokens: tokens, Focus: slices.Concat(groups...), Query: query, Workers: min(runtime.GOMAXPROCS(0), 8)}
			if !noCache {
				h, err := openHome(cmd)
				if err != nil {
					return err
				}
				defer h.Close()
				// rows and snapshot are redacted as a run's are: the tags
				// quote signatures, and a constant may hold a secret
				c, err := h.RepoMapCache(cmd.Context(), ws, func(w string) { warn(os.Stderr, w) })
				if err != nil {
					return withCode(ExitFailed, err)
				}
				opts.Cache = c
			}
			m, err := repomap.Build(cmd.Context(), opts)
			if err != nil {
				if ctxErr := cmd.Context().Err(); ctxErr != nil {
					return withCode(ExitInterrupted, fmt.Errorf("repomap interrupted: %w", ctxErr))
				}
				return withCode(ExitFailed, err)
			}
			warnUnmapped(ws, focus, groups, m)
			if asJSON {
				return writeJSON(cmd.OutOrStdout(), m)
			}
			if m.Stats.Files == 0 {
				fmt.Fprintf(os.Stderr, "agent: no source files under %s (the map covers Go, Python, JavaScript, TypeScript, Rust and Java)\n", ws)
			}
			// the map quotes the workspace's code: visible on a terminal, exact in a file
			_, err = fmt.Fprint(cmd.OutOrStdout(), termtext.ForTerminal(cmd.OutOrStdout(), m.Text))
			return err
		},
	}
	fl := c.Flags()
	fl.StringVarP(&dir, "dir", "C", "", "workspace directory (default: the git top-level of the current directory)")
	fl.IntVar(&tokens, "tokens", repomap.DefaultTokens, fmt.Sprintf("token budget of the map (%d to %d)", minMapTokens, maxMapTokens))
	fl.StringArrayVar(&focus, "focus", nil, "file or directory to centre the map on, relative to the workspace (repeatable)")
	fl.StringVar(&query, "query", "", "the request: identifiers and paths it names seed the ranking")
	fl.BoolVar(&asJSON, "json", false, "print the map as JSON")
	fl.BoolVar(&noCache, "no-cache", false, "parse every file, neither reading nor writing the tag cache")
	return c
}

// resolveFocus turns --focus paths into absolute files inside ws, one
// group per path. A path is taken relative to the workspace, else to the
// current directory; a directory stands for the files under it. A path
// that does not exist or resolves outside the workspace is a usage error.
func resolveFocus(ws string, focus []string) ([][]string, error) {
	var out [][]string
	for _, f := range focus {
		if strings.TrimSpace(f) == "" {
			return nil, usageErr("--focus needs a path, e.g. --focus cmd/run.go")
		}
		cands := []string{f}
		if !filepath.IsAbs(f) {
			cands = []string{filepath.Join(ws, f)}
			if abs, err := filepath.Abs(f); err == nil && abs != cands[0] {
				cands = append(cands, abs)
			}
		}
		var real string
		for _, c := range cands {
			if r, err := filepath.EvalSymlinks(c); err == nil {
				real = r
				break
			}
		}
		if real == "" {
			return nil, usageErr("--focus %s: no such file in the workspace %s (give a path relative to it)", f, ws)
		}
		if rel, err := filepath.Rel(ws, real); err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			return nil, usageErr("--focus %s resolves to %s, outside the workspace %s: name a file inside it, or map that tree with -C", f, real, ws)
		}
		fi, err := os.Stat(real)
		if err != nil {
			return nil, usageErr("--focus %s: %v", f, err)
		}
		if !fi.IsDir() {
			out = append(out, []string{real})
			continue
		}
		var group []string
		err = filepath.WalkDir(real, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return nil // unreadable: leave it out, as the map does
			}
			if p != real && strings.HasPrefix(d.Name(), ".") {
				if d.IsDir() {
					return filepath.SkipDir
				}
				return nil
			}
			if d.Type().IsRegular() {
				group = append(group, p)
			}
			return nil
		})
		if err != nil {
			return nil, withCode(ExitFailed, fmt.Errorf("--focus %s: %w", f, err))
		}
		out = append(out, group)
	}
	return out, nil
}

// warnUnmapped says on stderr which --focus paths left no file in the map,
// so that a typo or a non-source file is not silently ignored.
func warnUnmapped(ws string, focus []string, groups [][]string, m *repomap.Map) {
	shown := map[string]bool{}
	for _, f := range m.Files {
		shown[f.Path] = true
	}
	for i, group := range groups {
		hit := false
		for _, abs := range group {
			if rel, err := filepath.Rel(ws, abs); err == nil && shown[filepath.ToSlash(rel)] {
				hit = true
				break
			}
		}
		if !hit {
			fmt.Fprintf(os.Stderr, "agent: warning: --focus %s is not in the map (not a source file, ignored by .gitignore, without definitions, or past the budget)\n", termtext.Field(focus[i]))
		}
	}
}
