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
	data   []byte // the bytes parsed (ignore files only), for the snapshot's record of its rules
	unsafe bool
}

// loadIgnore reads the ignore file src (nil rules if absent); domain is
// the directory the patterns are relative to. The token identifies this
// version of the file (0: absent) for the ignore-decision cache; a file
// changed too recently to be told apart by its stat data gets a fresh token
// each time, so decisions made under it are never reused.
// rec, when not nil, is given the file's bytes under key (see ruleRecord).
func (s *Store) loadIgnore(src fileAt, domain []string, rec ruleRecord, key string) ([]ignoreRule, uint64) {
	return s.loadRules(src, func(data []byte) []ignoreRule { return parseIgnore(data, domain) }, rec, key)
}

// loadRules is loadIgnore with the parser given.
func (s *Store) loadRules(src fileAt, parse func([]byte) []ignoreRule, rec ruleRecord, key string) ([]ignoreRule, uint64) {
	f, tok := s.smallFile(src, func(data []byte) *ignoreFile {
		return &ignoreFile{rules: parse(data), data: data}
	})
	if f == nil {
		return nil, 0
	}
	if rec != nil {
		rec[key] = f.data
	}
	return f.rules, tok
}

// attrUnsafe reports whether the .gitattributes src may make blobs in the
// user's index differ from the files.
func (s *Store) attrUnsafe(src fileAt) bool {
	f, _ := s.smallFile(src, func(data []byte) *ignoreFile {
		return &ignoreFile{unsafe: unsafeAttributes(data)}
	})
	return f != nil && f.unsafe
}

func (s *Store) smallFile(src fileAt, parse func([]byte) *ignoreFile) (*ignoreFile, uint64) {
	abs := src.key()
	var st fileStat
	if err := src.lstat(&st); err != nil || !st.isRegular() {
		delete(s.ignores, abs)
		return nil, 0
	}
	now := time.Now().UnixNano()
	sig := st.sig()
	fresh := racy(s.slack, st.mtime, st.ctime, now)
	if f, ok := s.ignores[abs]; ok && f.sig == sig && !fresh {
		return f, mixFP(0x9e3779b97f4a7c15, sig)
	}
	if s.beforeOpen != nil && src.dir != nil {
		if rel, err := filepath.Rel(s.workspace, abs); err == nil {
			s.beforeOpen(filepath.ToSlash(rel))
		}
	}
	data, err := src.read(gitignore.MaxFile+1, &st) // never through a symlink swapped in
	if err != nil {
		return nil, 0
	}
	sig = st.sig()
	fresh = racy(s.slack, st.mtime, st.ctime, now)
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
// workspace's own .gitignore, read in root (the workspace held open; nil:
// none is read). rec, when not nil, records every ignore file read.
func (s *Store) rootIgnore(root *dirReader, rec ruleRecord) (*ignoreSet, uint64) {
	l := gitignore.Locate(s.workspace)
	srcs := l.Above()
	fp := mixTok(1, uint64(len(srcs)))
	var above []ignoreRule
	for i, src := range srcs {
		r, tok := s.loadRules(fileAt{name: src.Path}, func(data []byte) []ignoreRule { return l.ParseAbove(data, src) }, rec, aboveKey(i))
		above, fp = append(above, r...), mixTok(fp, tok)
	}
	var own []ignoreRule
	var tok uint64
	if root != nil {
		own, tok = s.loadIgnore(fileAt{root, ".gitignore"}, nil, rec, wsKey(""))
	}
	fp = mixTok(fp, tok)
	return (*ignoreSet)(nil).wrap(l.RootSet(above, own)), fp
}

// ignoredPath reports whether rel (slash-separated, relative to the
// workspace) is ignored, itself or through an ignored parent directory.
func (s *Store) ignoredPath(rel string, isDir bool) bool {
	parts := strings.Split(rel, "/")
	root, err := openDir(s.workspace)
	if err != nil {
		root = nil // no rules of the workspace's own are read
	}
	at := s.dirIgnore(root, parts[:len(parts)-1])
	at.close(root)
	if root != nil {
		root.close()
	}
	return at.ignored || at.set.match(parts, isDir)
}

// dirAt is a directory of the workspace as dirIgnore found it.
type dirAt struct {
	dir     *dirReader // open beneath the root; nil when it, or a directory above it, is missing, not a real directory or ignored
	set     *ignoreSet // the rules in force inside it, its own .gitignore included
	fp      uint64     // their fingerprint, as a scan computes it
	ignored bool       // it or a directory above it is ignored
}

// close closes the directory unless it is root.
func (a *dirAt) close(root *dirReader) { closeBelow(a.dir, root) }

// closeBelow closes d unless it is nil or root.
func closeBelow(d, root *dirReader) {
	if d != nil && d != root {
		d.close()
	}
}

// dirIgnore opens directory parts of the workspace held open as root
// (root itself for none), each one relative to the one above and never
// through a symlink, reading each one's .gitignore in it, and returns it
// with the rules in force inside it. A directory that cannot be opened
// contributes no rules, as one without a .gitignore. The caller closes the
// result (dirAt.close).
func (s *Store) dirIgnore(root *dirReader, parts []string) dirAt {
	set, fp := s.rootIgnore(root, nil)
	d := root
	for i, name := range parts {
		p := parts[:i+1]
		if set.match(p, true) {
			closeBelow(d, root)
			return dirAt{ignored: true}
		}
		var own []ignoreRule
		var tok uint64
		if d != nil {
			if s.beforeOpen != nil {
				s.beforeOpen(strings.Join(p, "/"))
			}
			sub, err := d.sub(name)
			closeBelow(d, root)
			d = nil
			if err == nil {
				d = sub
				own, tok = s.loadIgnore(fileAt{d, ".gitignore"}, p, nil, "")
			}
		}
		set, fp = set.descend(p).extend(own), mixTok(fp, tok)
	}
	return dirAt{dir: d, set: set, fp: fp}
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
