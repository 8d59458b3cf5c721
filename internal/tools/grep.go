package tools

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"regexp"
	"strings"
	"unicode/utf8"

	"agent/internal/event"
	"agent/internal/gitignore"
)

// Grep is the grep tool: lines matching an RE2 pattern, as path:line:text.
type Grep struct{}

const (
	grepMaxMatches  = 500      // matching lines listed before the search stops
	grepMaxLineLen  = 400      // characters of a matching line shown
	grepMaxFileSize = 10 << 20 // larger files are skipped
)

type grepArgs struct {
	Pattern string `json:"pattern"`
	Path    string `json:"path"`
	Include string `json:"include"`
}

func (Grep) Name() string     { return "grep" }
func (Grep) Risk() event.Risk { return event.RiskRead }
func (Grep) Description() string {
	return "Search file contents with an RE2 regular expression (Go syntax; \"(?i)\" for case-insensitive). " +
		"Searches path (a file or a directory, default the whole workspace) recursively; include restricts the files " +
		"searched to a glob on the file name (\"*.go\", \"*.{ts,tsx}\") or, if it contains \"/\", on the path. " +
		"Output: one matching line a line, as path:line:text. Binary files and files ignored by .gitignore are skipped."
}

func (Grep) Schema() *Schema {
	return objectOf(map[string]*Schema{
		"pattern": strField("RE2 regular expression to search for."),
		"path":    strField("File or directory to search, relative to the workspace (default: the workspace)."),
		"include": strField("Only search files matching this glob, e.g. \"*.go\"."),
	}, "pattern")
}

func (t Grep) Run(ctx context.Context, env *Env, raw json.RawMessage) (Result, error) {
	var a grepArgs
	if err := decodeArgs(t.Name(), raw, &a); err != nil {
		return Result{}, err
	}
	if err := checkEnv(t.Name(), env); err != nil {
		return Result{}, err
	}
	re, err := regexp.Compile(a.Pattern)
	if err != nil {
		return Result{}, fmt.Errorf("grep: invalid RE2 pattern %q: %w", a.Pattern, err)
	}
	var include *globPattern
	if a.Include != "" {
		if include, err = compileGlob(a.Include); err != nil {
			return Result{}, fmt.Errorf("grep: include: %w", err)
		}
	}
	root, err := env.openRoot()
	if err != nil {
		return Result{}, fmt.Errorf("grep: %w", err)
	}
	_, rel, err := Resolve(env.Workspace, a.Path)
	if err != nil {
		return Result{}, fmt.Errorf("grep: %w", err)
	}
	fi, err := root.Stat(rel)
	if errors.Is(err, fs.ErrNotExist) {
		return Result{}, fmt.Errorf("grep: %s: no such file or directory: %w", rel, fs.ErrNotExist)
	}
	if err != nil {
		return Result{}, fmt.Errorf("grep: %w", confined(env.Workspace, a.Path, err))
	}

	s := &grepSearch{re: re}
	if !fi.IsDir() {
		f, _, err := OpenRegular(root, rel)
		switch {
		case err == nil:
			s.file(f, rel) // named explicitly: searched even if ignored
		case escaped(err):
			return Result{}, fmt.Errorf("grep: %w", confined(env.Workspace, a.Path, err))
		}
	} else {
		err = walkWorkspace(ctx, root, rel, func(e gitignore.Entry) error {
			if env.hidden(e.Rel) {
				if e.IsDir() {
					return fs.SkipDir
				}
				return nil
			}
			if e.IsDir() {
				return nil
			}
			if include != nil && !includeMatch(include, a.Include, e.Rel, rel) {
				return nil
			}
			f, err := openEntry(env, root, e)
			if err != nil {
				return nil // vanished, special, or a symlink that leads out or to a hidden file
			}
			if s.file(f, e.Rel) {
				return fs.SkipAll
			}
			return nil
		})
		if err != nil {
			return Result{}, fmt.Errorf("grep: %w", confined(env.Workspace, a.Path, err))
		}
	}
	return Result{Output: Truncate(s.render(a.Pattern, rel), MaxOutput)}, nil
}

// includeMatch applies the include glob to the base name, or to the path
// (relative to the workspace or to the searched directory) when it has a "/".
func includeMatch(g *globPattern, raw, rel, searchRel string) bool {
	if !strings.Contains(raw, "/") {
		return g.match(path.Base(rel))
	}
	if g.match(rel) {
		return true
	}
	if searchRel != "." {
		return g.match(strings.TrimPrefix(rel, searchRel+"/"))
	}
	return false
}

type grepSearch struct {
	re            *regexp.Regexp
	out           strings.Builder
	matches       int
	full          bool
	binary, large int
}

// file searches one open file and closes it; it reports whether the match
// limit was reached.
func (s *grepSearch) file(f *os.File, rel string) bool {
	defer f.Close()
	fi, err := f.Stat()
	if err != nil || !fi.Mode().IsRegular() {
		return false // special: nothing to search
	}
	if fi.Size() > grepMaxFileSize {
		s.large++
		return false
	}
	data, err := io.ReadAll(io.LimitReader(f, grepMaxFileSize+1))
	if err != nil || len(data) > grepMaxFileSize {
		return false // unreadable, or grew past the limit: skipped, as grep -s does
	}
	if isBinary(data) {
		s.binary++
		return false
	}
	// Cheap prefilter: every match starts with the pattern's literal prefix.
	// (Matching the whole file would not do: "^" and "$" mean the line.)
	if prefix, _ := s.re.LiteralPrefix(); prefix != "" && !bytes.Contains(data, []byte(prefix)) {
		return false
	}
	for n := 1; len(data) > 0; n++ {
		line := data
		if i := bytes.IndexByte(data, '\n'); i >= 0 {
			line, data = data[:i], data[i+1:]
		} else {
			data = nil
		}
		line = bytes.TrimSuffix(line, []byte("\r"))
		if !s.re.Match(line) {
			continue
		}
		if s.matches == grepMaxMatches {
			s.full = true
			return true
		}
		s.matches++
		text := string(line)
		if utf8.RuneCountInString(text) > grepMaxLineLen {
			text = text[:byteOffset(text, grepMaxLineLen)] + " …"
		}
		fmt.Fprintf(&s.out, "%s:%d:%s\n", rel, n, strings.ToValidUTF8(text, "\uFFFD"))
	}
	return false
}

func (s *grepSearch) render(pattern, rel string) string {
	var b strings.Builder
	if s.matches == 0 {
		fmt.Fprintf(&b, "no matches for %q in %s\n", pattern, rel)
	} else {
		b.WriteString(s.out.String())
	}
	if s.full {
		fmt.Fprintf(&b, "[stopped after %d matching lines; narrow the pattern, path or include]\n", grepMaxMatches)
	}
	if s.binary > 0 {
		fmt.Fprintf(&b, "(%d binary files skipped)\n", s.binary)
	}
	if s.large > 0 {
		fmt.Fprintf(&b, "(%d files over %d MiB skipped)\n", s.large, grepMaxFileSize>>20)
	}
	return b.String()
}
