package tools

import (
	"fmt"
	"path"
	"strings"
)

// globPattern is a compiled glob: slash-separated segments in path.Match
// syntax, where a "**" segment matches any number of directories, and
// "{a,b}" alternatives are expanded.
type globPattern struct {
	alts [][]string // one segment list per brace alternative
}

// maxBraceAlts bounds brace expansion.
const maxBraceAlts = 256

func compileGlob(pattern string) (*globPattern, error) {
	alts, err := expandBraces(pattern)
	if err != nil {
		return nil, err
	}
	g := &globPattern{}
	for _, a := range alts {
		segs := splitGlob(a)
		for i, s := range segs {
			if s == "**" {
				continue
			}
			// "a**b" behaves as "a*b", as in git and most shells.
			segs[i] = collapseStars(s)
			if _, err := path.Match(segs[i], ""); err != nil {
				return nil, fmt.Errorf("invalid glob pattern %q: %w", pattern, err)
			}
		}
		g.alts = append(g.alts, segs)
	}
	return g, nil
}

func collapseStars(s string) string {
	for strings.Contains(s, "**") {
		s = strings.ReplaceAll(s, "**", "*")
	}
	return s
}

// splitGlob splits a pattern into segments, dropping empty and "." ones.
func splitGlob(p string) []string {
	var segs []string
	for _, s := range strings.Split(p, "/") {
		if s != "" && s != "." {
			segs = append(segs, s)
		}
	}
	return segs
}

// match reports whether the slash path name matches.
func (g *globPattern) match(name string) bool {
	segs := splitGlob(name)
	for _, a := range g.alts {
		if matchSegs(a, segs) {
			return true
		}
	}
	return false
}

// mayContain reports whether some path below the directory dir could match,
// so a walk can prune the directories that cannot.
func (g *globPattern) mayContain(dir string) bool {
	segs := splitGlob(dir)
	for _, a := range g.alts {
		if matchPrefix(a, segs) {
			return true
		}
	}
	return false
}

func matchSegs(pat, segs []string) bool {
	for len(pat) > 0 {
		if pat[0] == "**" {
			for len(pat) > 0 && pat[0] == "**" {
				pat = pat[1:]
			}
			if len(pat) == 0 {
				return true
			}
			for i := 0; i < len(segs); i++ {
				if matchSegs(pat, segs[i:]) {
					return true
				}
			}
			return false
		}
		if len(segs) == 0 {
			return false
		}
		if ok, _ := path.Match(pat[0], segs[0]); !ok {
			return false
		}
		pat, segs = pat[1:], segs[1:]
	}
	return len(segs) == 0
}

func matchPrefix(pat, dir []string) bool {
	for len(dir) > 0 {
		if len(pat) == 0 {
			return false
		}
		if pat[0] == "**" {
			return true
		}
		if ok, _ := path.Match(pat[0], dir[0]); !ok {
			return false
		}
		pat, dir = pat[1:], dir[1:]
	}
	return len(pat) > 0
}

// staticPrefix returns the leading segments of pattern without any glob
// metacharacter: the directory a walk can start from.
func staticPrefix(pattern string) (prefix, rest string) {
	segs := splitGlob(pattern)
	i := 0
	for i < len(segs) && !strings.ContainsAny(segs[i], "*?[{\\") {
		i++
	}
	return strings.Join(segs[:i], "/"), strings.Join(segs[i:], "/")
}

// expandBraces expands "{a,b}" alternatives (nested too); a brace without a
// comma or without its closing brace is literal.
func expandBraces(p string) ([]string, error) {
	open := -1
	depth := 0
	for i := 0; i < len(p); i++ {
		switch p[i] {
		case '\\':
			i++
		case '{':
			if depth == 0 {
				open = i
			}
			depth++
		case '}':
			if depth == 0 {
				continue
			}
			depth--
			if depth > 0 {
				continue
			}
			parts := splitTopLevel(p[open+1 : i])
			if len(parts) < 2 {
				open = -1
				continue
			}
			var out []string
			for _, part := range parts {
				sub, err := expandBraces(p[:open] + part + p[i+1:])
				if err != nil {
					return nil, err
				}
				out = append(out, sub...)
				if len(out) > maxBraceAlts {
					return nil, fmt.Errorf("glob pattern %q expands to more than %d alternatives", p, maxBraceAlts)
				}
			}
			return out, nil
		}
	}
	return []string{p}, nil
}

// splitTopLevel splits s at commas outside nested braces.
func splitTopLevel(s string) []string {
	var parts []string
	depth, start := 0, 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '\\':
			i++
		case '{':
			depth++
		case '}':
			depth--
		case ',':
			if depth == 0 {
				parts = append(parts, s[start:i])
				start = i + 1
			}
		}
	}
	return append(parts, s[start:])
}
