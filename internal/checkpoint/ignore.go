package checkpoint

import (
	"bufio"
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/go-git/go-git/v5/plumbing/format/gitignore"
)

// ignoreRule is one gitignore pattern. Matching follows go-git's
// gitignore.Pattern exactly; single-component ("simple") patterns take a
// fast path that remembers, per directory, whether the pattern already
// matched an ancestor component, so a file costs one name match per rule
// instead of one per path component.
type ignoreRule struct {
	p       gitignore.Pattern
	depth   int    // len(domain)
	simple  bool   // no "/" in the pattern: matched against each component
	glob    string // the simple pattern
	literal bool   // glob has no metacharacters
	dirOnly bool
	incl    bool
}

func parseRule(line string, domain []string) ignoreRule {
	r := ignoreRule{p: gitignore.ParsePattern(line, domain), depth: len(domain)}
	p := line
	if strings.HasPrefix(p, "!") {
		r.incl = true
		p = p[1:]
	}
	if !strings.HasSuffix(p, "\\ ") {
		p = strings.TrimRight(p, " ")
	}
	if strings.HasSuffix(p, "/") {
		r.dirOnly = true
		p = p[:len(p)-1]
	}
	if !strings.Contains(p, "/") {
		if _, err := filepath.Match(p, "x"); err == nil {
			r.simple = true
			r.glob = p
			r.literal = !strings.ContainsAny(p, `*?[\`)
		}
	}
	return r
}

func (r *ignoreRule) nameMatch(name string) bool {
	if r.literal {
		return r.glob == name
	}
	ok, err := filepath.Match(r.glob, name)
	return err == nil && ok
}

// ignoreSet is the rules in force in one directory (lowest priority first)
// and, for simple rules, whether they matched a component of the directory's
// own path below their domain.
type ignoreSet struct {
	rules []ignoreRule
	anc   []bool
}

// match reports whether path (the directory's path plus name) is ignored.
func (s *ignoreSet) match(path []string, isDir bool) bool {
	if s == nil {
		return false
	}
	name := path[len(path)-1]
	for i := len(s.rules) - 1; i >= 0; i-- {
		r := &s.rules[i]
		var hit bool
		if r.simple {
			if len(path) <= r.depth {
				continue
			}
			hit = s.anc[i] || (r.nameMatch(name) && !(r.dirOnly && !isDir))
		} else {
			hit = r.p.Match(path, isDir) != gitignore.NoMatch
		}
		if hit {
			return !r.incl
		}
	}
	return false
}

// descend is the set in force in a subdirectory (path is the
// subdirectory's path) before its own .gitignore is added.
func (s *ignoreSet) descend(path []string) *ignoreSet {
	if s == nil {
		return nil
	}
	name := path[len(path)-1]
	c := &ignoreSet{rules: s.rules, anc: make([]bool, len(s.rules))}
	for i := range s.rules {
		r := &s.rules[i]
		c.anc[i] = s.anc[i] || (r.simple && len(path) > r.depth && r.nameMatch(name))
	}
	return c
}

// extend adds the rules of a directory's own .gitignore (highest priority).
func (s *ignoreSet) extend(own []ignoreRule) *ignoreSet {
	if len(own) == 0 {
		return s
	}
	c := &ignoreSet{}
	if s != nil {
		c.rules = s.rules[:len(s.rules):len(s.rules)]
		c.anc = s.anc[:len(s.anc):len(s.anc)]
	}
	c.rules = append(c.rules, own...)
	c.anc = append(c.anc, make([]bool, len(own))...)
	return c
}

// ignoreFile is a parsed .gitignore (or info/exclude), or the verdict on a
// .gitattributes, cached by stat data.
type ignoreFile struct {
	sig    fileSig
	rules  []ignoreRule
	unsafe bool
}

// loadIgnore reads the ignore file at abs (nil rules if absent); domain is
// the directory the patterns are relative to. The token identifies this
// version of the file (0: absent) for the ignore-decision cache; a file
// changed too recently to be told apart by its stat data gets a fresh token
// each time, so decisions made under it are never reused.
func (s *Store) loadIgnore(abs string, domain []string) ([]ignoreRule, uint64) {
	f, tok := s.smallFile(abs, func(data []byte) *ignoreFile {
		return &ignoreFile{rules: parseIgnore(data, domain)}
	})
	if f == nil {
		return nil, 0
	}
	return f.rules, tok
}

// attrUnsafe reports whether the .gitattributes at abs may make blobs in
// the user's index differ from the files.
func (s *Store) attrUnsafe(abs string) bool {
	f, _ := s.smallFile(abs, func(data []byte) *ignoreFile {
		return &ignoreFile{unsafe: unsafeAttributes(data)}
	})
	return f != nil && f.unsafe
}

func (s *Store) smallFile(abs string, parse func([]byte) *ignoreFile) (*ignoreFile, uint64) {
	var st fileStat
	if err := lstatPath(abs, &st); err != nil || !st.isRegular() {
		delete(s.ignores, abs)
		return nil, 0
	}
	sig := st.sig()
	fresh := racy(st.mtime, st.ctime, time.Now().UnixNano())
	if f, ok := s.ignores[abs]; ok && f.sig == sig && !fresh {
		return f, mixFP(0x9e3779b97f4a7c15, sig)
	}
	data, err := os.ReadFile(abs)
	if err != nil {
		return nil, 0
	}
	f := parse(data)
	f.sig = sig
	s.ignores[abs] = f
	if fresh {
		s.nonce++
		return f, s.nonce
	}
	return f, mixFP(0x9e3779b97f4a7c15, sig)
}

// mixFP folds a file's stat data into a fingerprint.
func mixFP(fp uint64, sig fileSig) uint64 {
	for _, v := range []uint64{uint64(sig.size), uint64(sig.mtime), uint64(sig.ctime), sig.ino} {
		fp ^= v
		fp *= 0x100000001b3
		fp ^= fp >> 29
	}
	return fp
}

func mixTok(fp, tok uint64) uint64 {
	fp ^= tok
	fp *= 0x100000001b3
	return fp ^ fp>>31
}

// parseIgnore parses lines the way go-git's gitignore.ReadPatterns does.
func parseIgnore(data []byte, domain []string) []ignoreRule {
	var rules []ignoreRule
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		line := sc.Text()
		if !strings.HasPrefix(line, "#") && len(strings.TrimSpace(line)) > 0 {
			rules = append(rules, parseRule(line, domain))
		}
	}
	return rules
}

// rootIgnore is the set in force at the workspace root (.git/info/exclude,
// then the root .gitignore) and its fingerprint.
func (s *Store) rootIgnore() (*ignoreSet, uint64) {
	var own []ignoreRule
	fp := uint64(1)
	if gd := s.userGitDir(); gd != "" {
		r, tok := s.loadIgnore(filepath.Join(gd, "info", "exclude"), nil)
		own, fp = append(own, r...), mixTok(fp, tok)
	}
	r, tok := s.loadIgnore(filepath.Join(s.workspace, ".gitignore"), nil)
	own, fp = append(own, r...), mixTok(fp, tok)
	if len(own) == 0 {
		return nil, fp
	}
	return &ignoreSet{rules: own, anc: make([]bool, len(own))}, fp
}

// ignoredPath reports whether rel (slash-separated, relative to the
// workspace) is ignored, itself or through an ignored parent directory.
func (s *Store) ignoredPath(rel string, isDir bool) bool {
	parts := strings.Split(rel, "/")
	set, _, ignored := s.dirIgnore(parts[:len(parts)-1])
	return ignored || set.match(parts, isDir)
}

// dirIgnore returns the rules in force inside directory parts (its own
// .gitignore included), their fingerprint as a scan computes it, and
// whether the directory itself is ignored.
func (s *Store) dirIgnore(parts []string) (*ignoreSet, uint64, bool) {
	set, fp := s.rootIgnore()
	for i := range parts {
		p := parts[:i+1]
		if set.match(p, true) {
			return nil, 0, true
		}
		own, tok := s.loadIgnore(filepath.Join(s.workspace, filepath.FromSlash(strings.Join(p, "/")), ".gitignore"), p)
		set, fp = set.descend(p).extend(own), mixTok(fp, tok)
	}
	return set, fp, false
}

// userGitDir is the workspace's own git directory ("" if none); read only.
func (s *Store) userGitDir() string {
	p := filepath.Join(s.workspace, ".git")
	fi, err := os.Lstat(p)
	if err != nil {
		return ""
	}
	if fi.IsDir() {
		return p
	}
	b, err := os.ReadFile(p)
	if err != nil {
		return ""
	}
	line := strings.TrimSpace(string(b))
	if !strings.HasPrefix(line, "gitdir:") {
		return ""
	}
	d := strings.TrimSpace(strings.TrimPrefix(line, "gitdir:"))
	if !filepath.IsAbs(d) {
		d = filepath.Join(s.workspace, d)
	}
	return d
}
