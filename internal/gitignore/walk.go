package gitignore

import (
	"context"
	"errors"
	"io"
	"io/fs"
	"os"
	"path"
	"slices"
	"strings"
)

// Dir is a directory of the workspace opened beneath its root. Its entries
// are opened relative to it and never through a symlink, so a directory
// swapped for a symlink after it was listed cannot lead a walk or a read
// outside the workspace.
type Dir struct {
	f    *os.File
	root *os.Root
	rel  string // slash path relative to the workspace ("." for the root)
}

// OpenDir opens the directory rel (slash, relative to root) beneath root.
func OpenDir(root *os.Root, rel string) (*Dir, error) {
	if rel == "" {
		rel = "."
	}
	f, err := openDirIn(root, rel)
	if err != nil {
		return nil, err
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	if !fi.IsDir() {
		f.Close()
		return nil, &fs.PathError{Op: "open", Path: rel, Err: errNotDir}
	}
	return &Dir{f: f, root: root, rel: rel}, nil
}

var errNotDir = errors.New("not a directory")

// Rel is the directory's path relative to the workspace ("." for the root).
func (d *Dir) Rel() string { return d.rel }

// Close closes the directory.
func (d *Dir) Close() error { return d.f.Close() }

// Entries lists the directory, sorted by name.
func (d *Dir) Entries() ([]fs.DirEntry, error) {
	es, err := d.f.ReadDir(-1)
	slices.SortFunc(es, func(a, b fs.DirEntry) int { return strings.Compare(a.Name(), b.Name()) })
	return es, err
}

// child is the workspace-relative path of the entry name.
func (d *Dir) child(name string) string {
	if d.rel == "." {
		return name
	}
	return d.rel + "/" + name
}

// ReadSmall reads up to limit bytes of the regular file name in d.
func (d *Dir) ReadSmall(name string, limit int64) ([]byte, error) {
	f, err := d.OpenFile(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, &fs.PathError{Op: "read", Path: d.child(name), Err: errNotRegular}
	}
	return io.ReadAll(io.LimitReader(f, limit))
}

var errNotRegular = errors.New("not a regular file")

// Entry is one entry a Walk visits.
type Entry struct {
	Rel    string      // slash path relative to the workspace
	Type   fs.FileMode // the type bits from the listing (fs.ModeDir, fs.ModeSymlink, ...; 0 for a regular file)
	Parent *Dir        // the directory holding it, open while fn runs
}

// Name is the entry's name.
func (e Entry) Name() string { return path.Base(e.Rel) }

// IsDir reports whether the entry is a directory (not a symlink to one).
func (e Entry) IsDir() bool { return e.Type.IsDir() }

// Open opens the entry (not a directory) for reading, relative to its
// directory and never through a symlink; see Dir.OpenFile.
func (e Entry) Open() (*os.File, error) { return e.Parent.OpenFile(e.Name()) }

// Info stats the entry without following a symlink.
func (e Entry) Info() (fs.FileInfo, error) { return e.Parent.Lstat(e.Name()) }

// WalkFunc sees one entry. Returning fs.SkipDir skips a directory (or the
// rest of a file's directory), fs.SkipAll ends the walk.
type WalkFunc func(e Entry) error

// Walk visits the directory start (slash, relative to the workspace) of the
// workspace opened as root, in lexical order, depth first, skipping .git
// entries and what the ignore rules of tree exclude. Symlinks are reported
// but never followed, and a directory is entered only as a real directory
// opened relative to its parent (a symlink swapped in is not entered).
// Unreadable directories are skipped, as git does. When start itself is
// ignored the rules are off below it: the caller named it explicitly. A nil
// tree applies no rules.
func Walk(ctx context.Context, root *os.Root, tree *Tree, start string, fn WalkFunc) error {
	d, err := OpenDir(root, start)
	if err != nil {
		return err
	}
	defer d.Close()
	var set *Set
	if tree != nil {
		var ignored bool
		if set, ignored = tree.Dir(Split(d.rel)); ignored {
			tree = nil
		}
	}
	w := &walker{ctx: ctx, tree: tree, fn: fn}
	err = w.dir(d, Split(d.rel), set, false)
	if errors.Is(err, fs.SkipAll) {
		return nil
	}
	return err
}

type walker struct {
	ctx  context.Context
	tree *Tree
	fn   WalkFunc
}

// dir walks d, whose components are parts; set is in force in it, without
// d's own .gitignore unless loaded says it is included.
func (w *walker) dir(d *Dir, parts []string, set *Set, load bool) error {
	if err := w.ctx.Err(); err != nil {
		return err
	}
	entries, err := d.Entries()
	if err != nil {
		return nil // unreadable: skipped
	}
	if load && w.tree != nil {
		for _, de := range entries {
			if de.Name() == ".gitignore" {
				set = set.Extend(d.ownRules(parts))
				break
			}
		}
	}
	scratch := append(parts[:len(parts):len(parts)], "")
	for _, de := range entries {
		name := de.Name()
		if name == ".git" {
			continue
		}
		isDir := de.IsDir()
		scratch[len(parts)] = name
		if w.tree != nil && set.Match(scratch, isDir) {
			continue
		}
		err := w.fn(Entry{Rel: d.child(name), Type: de.Type(), Parent: d})
		if errors.Is(err, fs.SkipDir) {
			if !isDir {
				return nil
			}
			continue
		}
		if err != nil {
			return err
		}
		if !isDir {
			continue
		}
		sub, err := d.Sub(name)
		if err != nil {
			continue // vanished, unreadable, or no longer a real directory
		}
		kp := append(parts[:len(parts):len(parts)], name)
		err = w.dir(sub, kp, set.Descend(kp), true)
		sub.Close()
		if err != nil {
			return err
		}
	}
	return nil
}

// ownRules parses the directory's own .gitignore, if it is a regular file.
func (d *Dir) ownRules(parts []string) []Rule {
	data, err := d.ReadSmall(".gitignore", MaxFile+1)
	if err != nil {
		return nil
	}
	return Parse(data, parts)
}
