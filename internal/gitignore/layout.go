package gitignore

import (
	"os"
	"path/filepath"
	"strings"
)

// Layout is where a workspace's ignore rules come from: the git repository
// that holds it, if any, and the workspace's place in it.
type Layout struct {
	Workspace string   // absolute and clean
	Top       string   // the repository's top level ("" outside a repository)
	Prefix    []string // the workspace below Top (nil when it is the top level)
	Exclude   string   // the repository's info/exclude ("" outside a repository)
}

// Source is an ignore file in force at the workspace root that lives outside
// it: the repository's info/exclude, or a .gitignore of a directory between
// the top level and the workspace.
type Source struct {
	Path string
	Dir  []string // the directory its patterns are relative to, below Top
}

// Locate finds the repository holding workspace: the nearest directory at or
// above it with a .git entry (a directory, or a file naming the git
// directory, as in worktrees and submodules). It reads only .git entries.
func Locate(workspace string) Layout {
	l := Layout{Workspace: filepath.Clean(workspace)}
	for dir := l.Workspace; ; {
		if gitDir, ok := gitDirOf(dir); ok {
			l.Top = dir
			l.Exclude = filepath.Join(commonDir(gitDir), "info", "exclude")
			if rel, err := filepath.Rel(dir, l.Workspace); err == nil && rel != "." {
				l.Prefix = strings.Split(filepath.ToSlash(rel), "/")
			}
			return l
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return l
		}
		dir = parent
	}
}

// gitDirOf returns the git directory of a working tree at dir.
func gitDirOf(dir string) (string, bool) {
	p := filepath.Join(dir, ".git")
	fi, err := os.Stat(p)
	if err != nil {
		return "", false
	}
	if fi.IsDir() {
		return p, true
	}
	b, err := readSmall(p)
	if err != nil {
		return "", false
	}
	line, _, _ := strings.Cut(string(b), "\n")
	d, ok := strings.CutPrefix(strings.TrimSpace(line), "gitdir:")
	if !ok {
		return "", false
	}
	d = strings.TrimSpace(d)
	if !filepath.IsAbs(d) {
		d = filepath.Join(dir, d)
	}
	return filepath.Clean(d), true
}

// commonDir is where a linked worktree's shared files (info/exclude among
// them) live: the "commondir" file names it; otherwise the git directory.
func commonDir(gitDir string) string {
	b, err := readSmall(filepath.Join(gitDir, "commondir"))
	if err != nil {
		return gitDir
	}
	d := strings.TrimSpace(string(b))
	if d == "" {
		return gitDir
	}
	if !filepath.IsAbs(d) {
		d = filepath.Join(gitDir, d)
	}
	return filepath.Clean(d)
}

func readSmall(p string) ([]byte, error) {
	f, err := os.Open(p)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	buf := make([]byte, 4096)
	n, err := f.Read(buf)
	if n > 0 {
		return buf[:n], nil
	}
	return nil, err
}

// Above lists the ignore files in force at the workspace root that live
// outside it, lowest priority first: info/exclude, then the .gitignore of
// the top level and of each directory down to the workspace's parent.
func (l Layout) Above() []Source {
	if l.Top == "" {
		return nil
	}
	out := []Source{{Path: l.Exclude}}
	for i := range l.Prefix {
		parts := append([]string{l.Top}, l.Prefix[:i]...)
		out = append(out, Source{Path: filepath.Join(append(parts, ".gitignore")...), Dir: l.Prefix[:i]})
	}
	return out
}

// ParseAbove parses the content of src, one of Above's sources.
func (l Layout) ParseAbove(data []byte, src Source) []Rule {
	return parse(data, 0, l.Prefix[len(src.Dir):], len(src.Dir))
}

// RootSet is the set in force at the workspace root: above (the parsed
// Above sources, in order) and then own, the workspace's own .gitignore.
// When the rules above ignore the workspace itself, they are dropped.
func (l Layout) RootSet(above, own []Rule) *Set {
	if len(above) > 0 && l.selfIgnored(above) {
		above = nil
	}
	s := NewSet(above)
	if s != nil {
		// Name patterns from above already matched the directories between
		// their .gitignore and the workspace.
		for i := range s.rules {
			r := &s.rules[i]
			s.anc[i] = r.simple && !r.never && r.matchComps(r.pre, true)
		}
	}
	return s.Extend(own)
}

// selfIgnored reports whether the rules from above ignore the workspace, or
// a directory between it and the top level, as git would.
func (l Layout) selfIgnored(above []Rule) bool {
	for k := 1; k <= len(l.Prefix); k++ {
		for i := len(above) - 1; i >= 0; i-- {
			r := &above[i]
			if r.up >= k || !r.matchComps(r.pre[:k-r.up], true) {
				continue
			}
			if !r.negate {
				return true
			}
			break
		}
	}
	return false
}
