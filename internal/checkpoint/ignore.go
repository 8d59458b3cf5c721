package checkpoint

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"agent/internal/gitignore"
)

// ignoreRule is one ignore pattern, parsed and matched by the agent's one
// ignore engine (internal/gitignore), which the file tools and the repo map
// use too: what a snapshot leaves out is what grep hides.
type ignoreRule = gitignore.Rule

// ignoreSet is the rules in force in one directory; a nil *ignoreSet holds
// none. See gitignore.Set.
type ignoreSet struct{ set *gitignore.Set }

func (s *ignoreSet) inner() *gitignore.Set {
	if s == nil {
		return nil
	}
	return s.set
}

func (s *ignoreSet) wrap(set *gitignore.Set) *ignoreSet {
	switch {
	case set == nil:
		return nil
	case set == s.inner():
		return s
	}
	return &ignoreSet{set: set}
}

// match reports whether path (the directory's path plus name) is ignored.
func (s *ignoreSet) match(path []string, isDir bool) bool { return s.inner().Match(path, isDir) }

// descend is the set in force in a subdirectory (path is the
// subdirectory's path) before its own .gitignore is added.
func (s *ignoreSet) descend(path []string) *ignoreSet { return s.wrap(s.inner().Descend(path)) }

// extend adds the rules of a directory's own .gitignore (highest priority).
func (s *ignoreSet) extend(own []ignoreRule) *ignoreSet { return s.wrap(s.inner().Extend(own)) }

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
	return s.loadRules(abs, func(data []byte) []ignoreRule { return parseIgnore(data, domain) })
}

// loadRules is loadIgnore with the parser given.
func (s *Store) loadRules(abs string, parse func([]byte) []ignoreRule) ([]ignoreRule, uint64) {
	f, tok := s.smallFile(abs, func(data []byte) *ignoreFile {
		return &ignoreFile{rules: parse(data)}
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
	fresh := racy(s.slack, st.mtime, st.ctime, time.Now().UnixNano())
	if f, ok := s.ignores[abs]; ok && f.sig == sig && !fresh {
		return f, mixFP(0x9e3779b97f4a7c15, sig)
	}
	data, err := readLimited(abs, gitignore.MaxFile+1)
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

// parseIgnore parses a .gitignore of the workspace directory domain.
func parseIgnore(data []byte, domain []string) []ignoreRule { return gitignore.Parse(data, domain) }

// readLimited reads at most limit bytes of the file at p.
func readLimited(p string, limit int64) ([]byte, error) {
	f, err := os.Open(p)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(io.LimitReader(f, limit))
}

// rootIgnore is the set in force at the workspace root and its fingerprint:
// the repository's info/exclude and the .gitignore files from its top level
// down to the workspace (which may lie below the top level), then the
// workspace's own .gitignore.
func (s *Store) rootIgnore() (*ignoreSet, uint64) {
	l := gitignore.Locate(s.workspace)
	srcs := l.Above()
	fp := mixTok(1, uint64(len(srcs)))
	var above []ignoreRule
	for _, src := range srcs {
		r, tok := s.loadRules(src.Path, func(data []byte) []ignoreRule { return l.ParseAbove(data, src) })
		above, fp = append(above, r...), mixTok(fp, tok)
	}
	own, tok := s.loadIgnore(filepath.Join(s.workspace, ".gitignore"), nil)
	fp = mixTok(fp, tok)
	return (*ignoreSet)(nil).wrap(l.RootSet(above, own)), fp
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
