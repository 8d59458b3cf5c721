package tools

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/go-git/go-git/v5/plumbing/format/gitignore"
)

// ignoreRules are the gitignore rules that apply inside one directory: those of
// .git/info/exclude and of every .gitignore from the repository's top level
// down to that directory. Paths are matched relative to the git top level,
// which may lie above the workspace.
type ignoreRules struct {
	prefix []string // the workspace relative to the git top level
	pats   []gitignore.Pattern
	off    bool // the walk started at an explicitly named ignored path
}

// maxIgnoreFile bounds how much of one .gitignore is read.
const maxIgnoreFile = 1 << 20

// loadRules returns the rules that apply to the entries of dirRel (a
// slash path relative to the workspace root, "." for the root). When dirRel
// itself is ignored the rules are off: the model named it explicitly.
func loadRules(root, dirRel string) *ignoreRules {
	r := &ignoreRules{}
	if top, ok := gitTopLevel(root); ok {
		if rel, ok := within(top, root); ok && rel != "." {
			r.prefix = strings.Split(rel, "/")
		}
		r.pats = append(r.pats, readIgnoreFile(filepath.Join(top, ".git", "info", "exclude"), nil)...)
		// .gitignore files between the top level and the workspace.
		for i := 0; i < len(r.prefix); i++ {
			dir := filepath.Join(append([]string{top}, r.prefix[:i]...)...)
			r.pats = append(r.pats, readIgnoreFile(filepath.Join(dir, ".gitignore"), r.prefix[:i])...)
		}
	}
	r = r.enter(root, ".")
	if dirRel == "." || dirRel == "" {
		return r
	}
	parts := strings.Split(dirRel, "/")
	for i := range parts {
		sub := strings.Join(parts[:i+1], "/")
		if r.ignored(sub, true) {
			return &ignoreRules{off: true}
		}
		r = r.enter(root, sub)
	}
	return r
}

// enter returns the rules for the entries of dirRel, a directory under the
// one r applies to: r plus dirRel's own .gitignore.
func (r *ignoreRules) enter(root, dirRel string) *ignoreRules {
	if r.off {
		return r
	}
	domain := r.components(dirRel)
	pats := readIgnoreFile(filepath.Join(root, filepath.FromSlash(dirRel), ".gitignore"), domain)
	if len(pats) == 0 {
		return r
	}
	// Full slice expression: siblings must not share a backing array.
	return &ignoreRules{prefix: r.prefix, pats: append(r.pats[:len(r.pats):len(r.pats)], pats...)}
}

// ignored reports whether rel (slash path relative to the workspace) is ignored.
func (r *ignoreRules) ignored(rel string, isDir bool) bool {
	if r.off || len(r.pats) == 0 {
		return false
	}
	return gitignore.NewMatcher(r.pats).Match(r.components(rel), isDir)
}

func (r *ignoreRules) components(rel string) []string {
	c := append([]string(nil), r.prefix...)
	if rel != "." && rel != "" {
		c = append(c, strings.Split(rel, "/")...)
	}
	return c
}

// readIgnoreFile parses one gitignore file; a missing or unreadable file has
// no patterns.
func readIgnoreFile(name string, domain []string) []gitignore.Pattern {
	f, err := os.Open(name)
	if err != nil {
		return nil
	}
	defer f.Close()
	var ps []gitignore.Pattern
	sc := bufio.NewScanner(io.LimitReader(f, maxIgnoreFile))
	for sc.Scan() {
		line := strings.TrimSuffix(sc.Text(), "\r")
		if strings.HasPrefix(line, "#") || strings.TrimSpace(line) == "" {
			continue
		}
		ps = append(ps, gitignore.ParsePattern(line, domain))
	}
	return ps
}

// gitTopLevel finds the repository containing dir: the nearest ancestor (or
// dir itself) holding a .git entry.
func gitTopLevel(dir string) (string, bool) {
	for {
		if _, err := os.Lstat(filepath.Join(dir, ".git")); err == nil {
			return dir, true
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", false
		}
		dir = parent
	}
}

// walkFunc sees one entry of a walk: rel is slash-separated and relative to
// the workspace. Returning fs.SkipDir skips a directory, fs.SkipAll ends the walk.
type walkFunc func(rel string, d fs.DirEntry) error

// walkTree walks the directory startRel of the workspace root in lexical
// order, skipping .git entries and what gitignore rules exclude. Symlinks are
// reported but never followed. Unreadable directories are skipped.
func walkTree(ctx context.Context, root, startRel string, fn walkFunc) error {
	err := walkDir(ctx, root, startRel, loadRules(root, startRel), fn)
	if errors.Is(err, fs.SkipAll) {
		return nil
	}
	return err
}

func walkDir(ctx context.Context, root, dirRel string, rules *ignoreRules, fn walkFunc) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	entries, err := os.ReadDir(filepath.Join(root, filepath.FromSlash(dirRel)))
	if err != nil {
		return nil // unreadable: skip, as git does
	}
	for _, d := range entries {
		name := d.Name()
		if name == ".git" {
			continue
		}
		rel := name
		if dirRel != "." {
			rel = path.Join(dirRel, name)
		}
		if rules.ignored(rel, d.IsDir()) {
			continue
		}
		err := fn(rel, d)
		if errors.Is(err, fs.SkipDir) {
			continue
		}
		if err != nil {
			return err
		}
		if d.IsDir() {
			if err := walkDir(ctx, root, rel, rules.enter(root, rel), fn); err != nil {
				return err
			}
		}
	}
	return nil
}

// readHead reads up to n bytes of the file name.
func readHead(name string, n int) ([]byte, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	buf := make([]byte, n)
	m, err := io.ReadFull(f, buf)
	if err != nil && !errors.Is(err, io.EOF) && !errors.Is(err, io.ErrUnexpectedEOF) {
		return nil, err
	}
	return bytes.Clone(buf[:m]), nil
}
