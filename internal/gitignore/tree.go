package gitignore

import (
	"io"
	"io/fs"
	"os"
	"path"
	"strings"
)

// Tree reads one workspace's ignore rules: those from above it once, when
// made, and each directory's .gitignore on demand through a file system
// rooted at the workspace (an os.Root's FS, so that reading stays beneath
// it).
type Tree struct {
	fsys fs.FS
	root *Set
}

// NewTree reads the rules in force at the root of workspace; fsys reads the
// workspace's own files.
func NewTree(workspace string, fsys fs.FS) *Tree {
	t := &Tree{fsys: fsys}
	l := Locate(workspace)
	var above []Rule
	for _, src := range l.Above() {
		if data := readOutside(src.Path); data != nil {
			above = append(above, l.ParseAbove(data, src)...)
		}
	}
	t.root = l.RootSet(above, t.own(nil))
	return t
}

// Root is the set in force for the workspace root's entries.
func (t *Tree) Root() *Set { return t.root }

// Enter is the set in force for the entries of directory dir (components),
// given set, the one in force in its parent.
func (t *Tree) Enter(set *Set, dir []string) *Set {
	return set.Descend(dir).Extend(t.own(dir))
}

// Dir is the set in force for the entries of directory dir, and whether dir
// or a directory above it is ignored.
func (t *Tree) Dir(dir []string) (*Set, bool) {
	set := t.root
	for i := range dir {
		if set.Match(dir[:i+1], true) {
			return nil, true
		}
		set = t.Enter(set, dir[:i+1])
	}
	return set, false
}

// Ignored reports whether the path p (components) is ignored, itself or
// through a directory above it.
func (t *Tree) Ignored(p []string, isDir bool) bool {
	if len(p) == 0 {
		return false
	}
	set, ignored := t.Dir(p[:len(p)-1])
	return ignored || set.Match(p, isDir)
}

// own parses the .gitignore of dir, if it is a regular file.
func (t *Tree) own(dir []string) []Rule {
	name := path.Join(append(append([]string(nil), dir...), ".gitignore")...)
	if fi, err := fs.Lstat(t.fsys, name); err != nil || !fi.Mode().IsRegular() {
		return nil
	}
	f, err := t.fsys.Open(name)
	if err != nil {
		return nil
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, MaxFile+1))
	if err != nil {
		return nil
	}
	return Parse(data, dir)
}

// readOutside reads an ignore file outside the workspace (info/exclude, a
// .gitignore above); nil if it is absent, unreadable or not a regular file.
func readOutside(p string) []byte {
	fi, err := os.Lstat(p)
	if err != nil || !fi.Mode().IsRegular() {
		return nil
	}
	f, err := os.Open(p)
	if err != nil {
		return nil
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, MaxFile+1))
	if err != nil {
		return nil
	}
	return data
}

// Split turns a slash path relative to the workspace into components ("" and
// "." are the root: none).
func Split(rel string) []string {
	if rel == "" || rel == "." {
		return nil
	}
	return strings.Split(rel, "/")
}
