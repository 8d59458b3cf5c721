package repomap

import (
	"context"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
	"sync"
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
	tags        *FileTags
	cached      bool
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

type loadStats struct{ parsed, cached, skipped int }

// load fills in the tags of every source file, from the cache when its
// size and mtime match, else by parsing, with workers goroutines.
func load(ctx context.Context, files []*srcFile, cache Cache, workers int) (loadStats, error) {
	roots := map[string]*os.Root{}
	for _, f := range files {
		if _, ok := roots[f.base]; !ok {
			r, err := os.OpenRoot(f.base)
			if err != nil {
				return loadStats{}, fmt.Errorf("repomap: load: %w", err)
			}
			defer r.Close()
			roots[f.base] = r
		}
	}
	var (
		wg   sync.WaitGroup
		next = make(chan *srcFile)
	)
	for range workers {
		wg.Go(func() {
			for f := range next {
				loadOne(roots[f.base], f, cache)
			}
		})
	}
	var err error
	for _, f := range files {
		if err = ctx.Err(); err != nil {
			break
		}
		next <- f
	}
	close(next)
	wg.Wait()
	if err != nil {
		return loadStats{}, fmt.Errorf("repomap: load: %w", err)
	}
	var st loadStats
	for _, f := range files {
		switch {
		case f.tags == nil || f.tags.Skipped != "":
			st.skipped++
		case f.cached:
			st.cached++
		default:
			st.parsed++
		}
	}
	return st, nil
}

func engineFor(lang string) string {
	if lang == "go" {
		return goEngine
	}
	return otherEngine
}

// loadOne fills in f's tags: from the cache when it holds the size and
// mtime the walk saw, else by reading the file beneath root (a directory
// swapped for a symlink cannot lead it outside the workspace).
func loadOne(root *os.Root, f *srcFile, cache Cache) {
	engine := engineFor(f.lang)
	if f.size > maxFileSize {
		f.tags = &FileTags{Lang: f.lang, Engine: engine, Skipped: "large"}
		return
	}
	if cache != nil {
		if t, ok := cache.Get(f.abs, f.size, f.mtime); ok && t != nil && t.Engine == engine {
			f.tags, f.cached = t, true
			return
		}
	}
	file, err := root.OpenFile(f.rel, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return
	}
	defer file.Close()
	info, err := file.Stat()
	if err != nil || !info.Mode().IsRegular() {
		return
	}
	f.size, f.mtime = info.Size(), info.ModTime().UnixNano() // what is read now
	if f.size > maxFileSize {
		f.tags = &FileTags{Lang: f.lang, Engine: engine, Skipped: "large"}
		return
	}
	src, err := io.ReadAll(io.LimitReader(file, maxFileSize+1))
	if err != nil {
		return
	}
	var t *FileTags
	if reason := skipReason(path.Base(f.rel), src); reason != "" {
		t = &FileTags{Lang: f.lang, Engine: engine, Skipped: reason}
	} else if f.lang == "go" {
		t, err = parseGo(f.rel, src)
	} else {
		t, err = parseOther(f.lang, f.rel, src)
	}
	if err != nil || t == nil {
		t = &FileTags{Lang: f.lang, Engine: engine, Skipped: "error"}
	}
	f.tags, f.parsed = t, true
	if cache != nil {
		cache.Put(f.abs, f.size, f.mtime, t)
	}
}
