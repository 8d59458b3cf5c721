package repomap

import (
	"context"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"strings"
	"sync"

	"github.com/go-git/go-git/v5/plumbing/format/gitignore"
)

// skipDirs are never descended into (besides hidden directories).
var skipDirs = map[string]bool{
	"node_modules": true, "vendor": true, "testdata": true, "__pycache__": true,
	"target": true, "dist": true, "bower_components": true, "site-packages": true, "venv": true,
}

type srcFile struct {
	rel, abs    string
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

// walk lists the files under root, honouring .gitignore files found in the
// tree, hidden and dependency directories.
func walk(ctx context.Context, root string) (*tree, error) {
	t := &tree{}
	var visit func(dir, rel string, pats []gitignore.Pattern) error
	visit = func(dir, rel string, pats []gitignore.Pattern) error {
		if err := ctx.Err(); err != nil {
			return err
		}
		ents, err := os.ReadDir(dir)
		if err != nil {
			if rel == "" {
				return fmt.Errorf("repomap: read %s: %w", dir, err)
			}
			return nil // unreadable subdirectory: leave it out
		}
		var domain []string
		if rel != "" {
			domain = strings.Split(rel, "/")
		}
		for _, e := range ents {
			if e.Name() == ".gitignore" && e.Type().IsRegular() {
				if data, err := os.ReadFile(filepath.Join(dir, ".gitignore")); err == nil {
					pats = append(pats[:len(pats):len(pats)], parseIgnore(string(data), domain)...)
				}
			}
		}
		var m gitignore.Matcher
		if len(pats) > 0 {
			m = gitignore.NewMatcher(pats)
		}
		for _, e := range ents {
			name := e.Name()
			if strings.HasPrefix(name, ".") && name != ".github" {
				continue
			}
			p := name
			if rel != "" {
				p = rel + "/" + name
			}
			typ := e.Type()
			if typ&os.ModeSymlink != 0 {
				continue
			}
			if m != nil && m.Match(append(domain[:len(domain):len(domain)], name), e.IsDir()) {
				continue
			}
			if e.IsDir() {
				if skipDirs[name] {
					continue
				}
				if err := visit(filepath.Join(dir, name), p, pats); err != nil {
					return err
				}
				continue
			}
			if !typ.IsRegular() {
				continue
			}
			if lang := langOf(name); lang != "" {
				t.sources = append(t.sources, &srcFile{rel: p, abs: filepath.Join(dir, name), lang: lang})
			} else {
				t.others = append(t.others, p)
			}
		}
		return nil
	}
	if err := visit(root, "", nil); err != nil {
		return nil, err
	}
	return t, nil
}

func parseIgnore(data string, domain []string) []gitignore.Pattern {
	var ps []gitignore.Pattern
	for _, line := range strings.Split(data, "\n") {
		line = strings.TrimRight(line, "\r")
		if strings.TrimSpace(line) == "" || strings.HasPrefix(line, "#") {
			continue
		}
		ps = append(ps, gitignore.ParsePattern(line, domain))
	}
	return ps
}

type loadStats struct{ parsed, cached, skipped int }

// load fills in the tags of every source file, from the cache when its
// size and mtime match, else by parsing, with workers goroutines.
func load(ctx context.Context, files []*srcFile, cache Cache, workers int) (loadStats, error) {
	var (
		wg   sync.WaitGroup
		next = make(chan *srcFile)
	)
	for range workers {
		wg.Go(func() {
			for f := range next {
				loadOne(f, cache)
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

func loadOne(f *srcFile, cache Cache) {
	info, err := os.Stat(f.abs)
	if err != nil {
		return
	}
	f.size, f.mtime = info.Size(), info.ModTime().UnixNano()
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
	src, err := os.ReadFile(f.abs)
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
