package repomap

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
	"syscall"

	"agent/internal/gitignore"
)

// skipDirs are never descended into (besides hidden directories).
var skipDirs = map[string]bool{
	"node_modules": true, "vendor": true, "testdata": true, "__pycache__": true,
	"target": true, "dist": true, "bower_components": true, "site-packages": true, "venv": true,
}

type srcFile struct {
	rel, abs    string
	base        string // the root the walk found it under
	lang        string
	size, mtime int64
	info        *fileInfo // what the build keeps of its tags
	comp        *compiled // interned form; nil when skipped
	cached      bool      // from the Builder's memory or the cache
	parsed      bool
}

type tree struct {
	sources []*srcFile
	others  []string // slash paths of non-source files
}

// walk lists the files under root with the agent's one ignore engine
// (internal/gitignore: the repository's info/exclude and .gitignore files,
// from the git top level down), so that the map lists what grep and glob
// show and what a checkpoint holds; it also leaves out hidden and dependency
// directories and symlinks. Directories are opened beneath root, never
// through a symlink.
func walk(ctx context.Context, root string) (*tree, error) {
	r, err := os.OpenRoot(root)
	if err != nil {
		return nil, fmt.Errorf("repomap: read %s: %w", root, err)
	}
	defer r.Close()
	t := &tree{}
	err = gitignore.Walk(ctx, r, gitignore.NewTree(root, r.FS()), ".", func(e gitignore.Entry) error {
		name := e.Name()
		if strings.HasPrefix(name, ".") && name != ".github" {
			if e.IsDir() {
				return fs.SkipDir
			}
			return nil
		}
		switch {
		case e.Type&fs.ModeSymlink != 0:
		case e.IsDir():
			if skipDirs[name] {
				return fs.SkipDir
			}
		case !e.Type.IsRegular():
		case langOf(name) != "":
			// Stat relative to the open directory (one fstatat): a file the
			// cache knows is then never opened.
			info, err := e.Info()
			if err != nil || !info.Mode().IsRegular() {
				return nil
			}
			t.sources = append(t.sources, &srcFile{rel: e.Rel, abs: filepath.Join(root, filepath.FromSlash(e.Rel)), base: root,
				lang: langOf(name), size: info.Size(), mtime: info.ModTime().UnixNano()})
		default:
			t.others = append(t.others, e.Rel)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("repomap: walk %s: %w", root, err)
	}
	return t, nil
}

// scratch is the memory one parse worker reuses from file to file: scanGo's
// token buffer, and source buffers handed back (free) once the file's tags
// were compacted and interned, which copy what they keep.
type scratch struct {
	toks []gtok
	free chan []byte    // nil: nothing handed back
	tags chan *FileTags // scanGo's FileTags handed back, to be refilled
}

// Bounds of a FileTags kept for reuse: a map or slice grown by a large
// file would cost every later file its clearing.
const (
	maxRecycledRefs = 2048
	maxRecycledDefs = 4096
)

// recycleTags hands t back for a later Go file (see recycle).
func (sc *scratch) recycleTags(t *FileTags) {
	if sc.tags == nil || t == nil || len(t.Refs) > maxRecycledRefs || cap(t.Defs) > maxRecycledDefs {
		return
	}
	select {
	case sc.tags <- t:
	default:
	}
}

// maxRecycled bounds the source buffers kept for reuse.
const maxRecycled = 256 << 10

// recycle hands src back for a later file (dropped when enough are kept
// or it is large).
func (sc *scratch) recycle(src []byte) {
	if sc.free == nil || cap(src) > maxRecycled {
		return
	}
	select {
	case sc.free <- src[:0]:
	default:
	}
}

// readTags reads f beneath root (a directory swapped for a symlink cannot
// lead it outside the workspace) and extracts its tags; nil when it cannot
// be read. It updates f's size and mtime to those of what it read.
// It reads into recycled memory; src, when not nil, is the source buffer
// t's strings may point into, which the caller may hand back (recycle)
// once it no longer holds t.
func (sc *scratch) readTags(root *os.Root, f *srcFile) (t *FileTags, src []byte) {
	engine := engineFor(f.lang)
	file, err := root.OpenFile(f.rel, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, nil
	}
	defer file.Close()
	info, err := file.Stat()
	if err != nil || !info.Mode().IsRegular() {
		return nil, nil
	}
	f.size, f.mtime = info.Size(), info.ModTime().UnixNano() // what is read now
	if f.size > maxFileSize {
		return &FileTags{Lang: f.lang, Engine: engine, Skipped: "large"}, nil
	}
	var buf []byte
	if sc.free != nil {
		select {
		case buf = <-sc.free:
		default:
		}
	}
	src, err = readSizedInto(file, f.size, buf)
	if err != nil {
		return nil, nil
	}
	reason := skipReason(path.Base(f.rel), src)
	if reason != "" && reason != "generated" {
		return &FileTags{Lang: f.lang, Engine: engine, Skipped: reason}, src
	}
	if f.lang == "go" {
		var ok bool
		var reuse *FileTags
		if sc.tags != nil {
			select {
			case reuse = <-sc.tags:
			default:
			}
		}
		if t, ok = scanGoWith(src, reason != "generated", &sc.toks, reuse); !ok {
			t, err = parseGo(f.rel, src)
		}
	} else {
		t, err = parseOther(f.lang, f.rel, src)
		src = nil // the other languages' extractors are not known to copy
	}
	if err != nil || t == nil {
		return &FileTags{Lang: f.lang, Engine: engine, Skipped: "error"}, src
	}
	if reason == "generated" {
		t.Generated = true
		t.Refs = nil // looked up, never ranked by what it uses (see compile)
	}
	return t, src
}

func engineFor(lang string) string {
	if lang == "go" {
		return goEngine
	}
	return otherEngine
}

// readSizedInto reads file, whose stat said size bytes, to its end (at most
// maxFileSize+1 bytes): one read into a buffer of the right size when the
// file did not grow since.
// It reads into buf when buf is large enough.
func readSizedInto(file io.Reader, size int64, buf []byte) ([]byte, error) {
	var src []byte
	if int64(cap(buf)) > size {
		src = buf[:size+1]
	} else {
		src = make([]byte, size+1)
	}
	n, err := io.ReadFull(file, src)
	switch {
	case n < len(src):
		if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) && !errors.Is(err, io.EOF) {
			return nil, err
		}
		return src[:n], nil
	case err != nil:
		return nil, err
	}
	more, err := io.ReadAll(io.LimitReader(file, maxFileSize+1-int64(n))) // it grew
	if err != nil {
		return nil, err
	}
	return append(src, more...), nil
}
