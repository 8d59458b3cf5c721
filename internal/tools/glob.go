package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"path"
	"path/filepath"
	"strings"

	"agent/internal/event"
	"agent/internal/gitignore"
)

// Glob is the glob tool: the workspace files whose path matches a pattern.
type Glob struct{}

// globMaxResults bounds the paths listed.
const globMaxResults = 1000

type globArgs struct {
	Pattern string `json:"pattern"`
}

func (Glob) Name() string     { return "glob" }
func (Glob) Risk() event.Risk { return event.RiskRead }
func (Glob) Description() string {
	return "Find workspace files by path pattern, e.g. \"**/*.go\", \"src/**/test_*.py\", \"*.{ts,tsx}\". " +
		"\"*\", \"?\" and \"[...]\" match within one path segment, \"**\" matches any number of directories, " +
		"\"{a,b}\" gives alternatives. Patterns are relative to the workspace. Returns matching file paths, one a line, " +
		"sorted. Files ignored by .gitignore are left out unless the pattern's fixed leading directory is itself ignored."
}

func (Glob) Schema() *Schema {
	return objectOf(map[string]*Schema{
		"pattern": strField("Glob pattern relative to the workspace, e.g. \"**/*.go\"."),
	}, "pattern")
}

func (t Glob) Run(ctx context.Context, env *Env, raw json.RawMessage) (Result, error) {
	var a globArgs
	if err := decodeArgs(t.Name(), raw, &a); err != nil {
		return Result{}, err
	}
	if err := checkEnv(t.Name(), env); err != nil {
		return Result{}, err
	}
	pattern := strings.TrimSpace(a.Pattern)
	if pattern == "" {
		return Result{}, &ArgError{Tool: t.Name(), Field: "pattern", Problem: `field "pattern" must not be empty`}
	}
	ws, err := workspaceRoot(env.Workspace)
	if err != nil {
		return Result{}, fmt.Errorf("glob: %w", err)
	}
	pattern, err = relativePattern(env.Workspace, ws, pattern)
	if err != nil {
		return Result{}, fmt.Errorf("glob: %w", err)
	}
	root, err := env.openRoot()
	if err != nil {
		return Result{}, fmt.Errorf("glob: %w", err)
	}
	prefix, rest := staticPrefix(pattern)
	_, startRel, err := Resolve(env.Workspace, prefix)
	if err != nil {
		return Result{}, fmt.Errorf("glob: %w", err)
	}

	var matches []string
	if rest == "" { // no wildcard: the pattern names one path
		if fi, err := root.Stat(startRel); err == nil && !fi.IsDir() {
			matches = append(matches, prefix)
		}
		return Result{Output: renderMatches(a.Pattern, matches, 0)}, nil
	}
	g, err := compileGlob(rest)
	if err != nil {
		return Result{}, &ArgError{Tool: t.Name(), Field: "pattern", Problem: err.Error()}
	}
	if fi, err := root.Stat(startRel); err != nil || !fi.IsDir() {
		return Result{Output: renderMatches(a.Pattern, nil, 0)}, nil
	}
	more := 0
	err = walkWorkspace(ctx, root, startRel, func(e gitignore.Entry) error {
		rel := e.Rel
		if env.hidden(rel) {
			if e.IsDir() {
				return fs.SkipDir
			}
			return nil
		}
		sub := strings.TrimPrefix(rel, startRel+"/")
		if startRel == "." {
			sub = rel
		}
		if e.IsDir() {
			if !g.mayContain(sub) {
				return fs.SkipDir
			}
			return nil
		}
		if !g.match(sub) {
			return nil
		}
		if e.Type&fs.ModeSymlink != 0 && !symlinkToFileInside(env, root, rel) {
			return nil
		}
		if len(matches) == globMaxResults {
			more++
			return nil
		}
		matches = append(matches, path.Join(prefix, sub))
		return nil
	})
	if err != nil {
		return Result{}, fmt.Errorf("glob: %w", confined(env.Workspace, prefix, err))
	}
	return Result{Output: Truncate(renderMatches(a.Pattern, matches, more), MaxOutput)}, nil
}

// relativePattern turns an absolute pattern inside the workspace into a
// relative one and strips a leading "./".
func relativePattern(workspace, root, pattern string) (string, error) {
	pattern = filepath.ToSlash(pattern)
	if path.IsAbs(pattern) {
		prefix, _ := staticPrefix(pattern)
		absPrefix := "/" + prefix
		for _, base := range []string{filepath.Clean(workspace), root} {
			if r, ok := within(base, filepath.FromSlash(absPrefix)); ok {
				return strings.TrimPrefix(path.Join(r, strings.TrimPrefix(pattern, absPrefix)), "/"), nil
			}
		}
		return "", &PathError{Path: pattern, Workspace: root, Reason: ReasonOutside}
	}
	for strings.HasPrefix(pattern, "./") {
		pattern = pattern[2:]
	}
	return pattern, nil
}

func renderMatches(pattern string, matches []string, more int) string {
	if len(matches) == 0 {
		return fmt.Sprintf("no files match %q", pattern)
	}
	var b strings.Builder
	for _, m := range matches {
		b.WriteString(m)
		b.WriteByte('\n')
	}
	if more > 0 {
		fmt.Fprintf(&b, "[... %d more matches not shown; narrow the pattern]\n", more)
	}
	return b.String()
}
