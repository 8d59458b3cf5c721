// Package gitignore owns the agent's one reading of git's ignore rules: how a
// .gitignore line is parsed and matched, which ignore files are in force for a
// workspace (the repository's info/exclude and every .gitignore from the git
// top level down, also for a workspace below the top level), and the
// ignore-aware walk of a workspace beneath its root that never follows a
// directory swapped for a symlink. The file tools (grep, glob, list_dir), the
// repo map and checkpoints all decide "ignored" here, so what grep hides, what
// the map lists and what a snapshot holds cannot diverge.
//
// Matching follows git: a pattern without a slash matches a name at any depth
// below its .gitignore, one with a slash matches the path relative to its
// .gitignore, "**" spans directories, a trailing "/" matches directories only,
// "!" re-includes, and the last matching pattern wins. A path inside an
// ignored directory is ignored whatever later patterns say (walks never enter
// ignored directories; single-path queries check every directory above).
// Three deliberate choices: the user's global core.excludesFile is not read (what the agent
// sees does not depend on the home directory); .gitignore files that are not
// regular files (symlinks) are not read, as git does not follow them; and a
// workspace that the repository itself ignores (a checkout inside build/, say)
// is not hidden from itself: only its own .gitignore files apply.
//
// It must not write anything. It reads ignore files, directory listings, and
// the files its callers open through a Dir; nothing else.
package gitignore

import (
	"bytes"
	"path"
	"strings"
)

// MaxFile bounds how much of one ignore file is read; later lines are not.
const MaxFile = 1 << 20

// Rule is one parsed ignore pattern, placed at the directory of the file it
// came from.
type Rule struct {
	name    string   // a pattern without "/": matched against each name below its directory
	segs    []string // a pattern with "/": its segments, anchored at its directory
	simple  bool     // name, not segs
	literal bool     // name has no glob metacharacters
	dirOnly bool     // trailing "/": directories only
	negate  bool     // leading "!": re-include
	never   bool     // an empty pattern: matches nothing
	// depth is how many leading components of a workspace path name the
	// rule's directory (0 for rules from above the workspace).
	depth int
	// pre, for a rule from above the workspace, is the workspace's path below
	// the rule's directory; up is the depth of that directory below the git
	// top level (-1 for rules inside the workspace).
	pre []string
	up  int
}

// Parse parses an ignore file found in the workspace directory dir (slash
// components relative to the workspace; nil for the root).
func Parse(data []byte, dir []string) []Rule {
	return parse(data, len(dir), nil, -1)
}

func parse(data []byte, depth int, pre []string, up int) []Rule {
	if len(data) > MaxFile {
		data = data[:MaxFile]
		if i := bytes.LastIndexByte(data, '\n'); i >= 0 {
			data = data[:i]
		}
	}
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf")) // a UTF-8 BOM, as git skips it
	var rules []Rule
	for len(data) > 0 {
		line := data
		if i := bytes.IndexByte(data, '\n'); i >= 0 {
			line, data = data[:i], data[i+1:]
		} else {
			data = nil
		}
		if r, ok := parseLine(string(bytes.TrimSuffix(line, []byte("\r")))); ok {
			r.depth, r.pre, r.up = depth, pre, up
			rules = append(rules, r)
		}
	}
	return rules
}

// parseLine parses one line the way git's dir.c does; ok is false for blank
// lines and comments.
func parseLine(line string) (Rule, bool) {
	if line == "" || line[0] == '#' {
		return Rule{}, false
	}
	line = trimTrailingSpaces(line)
	if line == "" {
		return Rule{}, false
	}
	var r Rule
	if line[0] == '!' {
		r.negate = true
		line = line[1:]
	}
	if strings.HasSuffix(line, "/") {
		r.dirOnly = true
		line = line[:len(line)-1]
	}
	if !strings.Contains(line, "/") {
		r.simple = true
		r.name = bangClass(line)
		r.literal = !strings.ContainsAny(r.name, `*?[\`)
		r.never = line == ""
		return r, true
	}
	for _, s := range strings.Split(strings.TrimPrefix(line, "/"), "/") {
		if s != "" {
			r.segs = append(r.segs, bangClass(s))
		}
	}
	r.never = len(r.segs) == 0
	return r, true
}

// trimTrailingSpaces drops trailing spaces not escaped with a backslash.
func trimTrailingSpaces(s string) string {
	end := 0
	for i := 0; i < len(s); i++ {
		switch {
		case s[i] == '\\' && i+1 < len(s):
			i++ // the escaped character stays, space or not
			end = i + 1
		case s[i] != ' ':
			end = i + 1
		}
	}
	return s[:end]
}

// bangClass turns git's "[!...]" into path.Match's "[^...]".
func bangClass(p string) string {
	if !strings.Contains(p, "[!") {
		return p
	}
	b := []byte(p)
	for i := 0; i < len(b)-1; i++ {
		switch b[i] {
		case '\\':
			i++
		case '[':
			if b[i+1] == '!' {
				b[i+1] = '^'
			}
		}
	}
	return string(b)
}

func (r *Rule) nameMatch(name string) bool {
	if r.literal {
		return r.name == name
	}
	ok, err := path.Match(r.name, name)
	return err == nil && ok
}

// globMatch matches the segments against the components pre+rest (virtually
// concatenated). As in go-git, the pattern may match a leading part of the
// path: "a/b" matches a/b and everything below it.
func (r *Rule) globMatch(pre, rest []string, isDir bool) bool {
	return r.globFrom(0, 0, pre, rest, isDir)
}

func (r *Rule) globFrom(si, ci int, pre, rest []string, isDir bool) bool {
	n := len(pre) + len(rest)
	for ; si < len(r.segs); si, ci = si+1, ci+1 {
		s := r.segs[si]
		if s == "**" {
			if si == len(r.segs)-1 {
				// Trailing "/**": everything inside, not the directory itself.
				if r.dirOnly {
					return ci < n-1 || (ci < n && isDir)
				}
				return ci < n
			}
			for k := ci; k < n; k++ {
				if r.globFrom(si+1, k, pre, rest, isDir) {
					return true
				}
			}
			return false
		}
		if ci >= n {
			return false
		}
		c := rest[max(ci-len(pre), 0)]
		if ci < len(pre) {
			c = pre[ci]
		}
		if ok, err := path.Match(s, c); err != nil || !ok {
			return false
		}
	}
	return !(r.dirOnly && !isDir && ci == n)
}

// matchComps matches comps, the whole path below the rule's directory, with
// no incremental state (for the few checks made once per workspace).
func (r *Rule) matchComps(comps []string, isDir bool) bool {
	if r.never || len(comps) == 0 {
		return false
	}
	if !r.simple {
		return r.globMatch(nil, comps, isDir)
	}
	for i, c := range comps {
		if r.nameMatch(c) && !(r.dirOnly && !isDir && i == len(comps)-1) {
			return true
		}
	}
	return false
}
