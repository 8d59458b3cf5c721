package repomap

import (
	"context"
	"fmt"
	"os"
	"strings"
	"sync"
)

// The index a Builder keeps between its builds: per root, per file, the
// slim tags (no references) and their interned form, keyed by the size and
// mtime the walk saw. A build takes a file from there when its key is
// unchanged, else from the cache, else by parsing it; references are
// interned as they arrive and then dropped, so the only per-file data held
// at once is what ranking and rendering need.

// scanThreshold is how many files a build must miss in memory before it
// streams the whole cache (Scanner) rather than asking for each (Get).
const scanThreshold = 64

// maxRoots bounds the roots a Builder keeps an index for.
const maxRoots = 4

type fileEntry struct {
	size, mtime int64
	info        *fileInfo
	comp        *compiled
	seen        uint64 // the build that last found the file
}

type rootIndex struct {
	layout  string // goLayout.key the entries were scoped with
	files   map[string]*fileEntry
	snap    snapState // how files relates to the root's snapshot
	patched int       // files added, replaced or dropped since the snapshot was read or written
	histKey string    // the git history (root and HEAD) the snapshot holds
}

type loadStats struct{ parsed, cached, skipped, generated int }

// index returns the Builder's index of root, emptied when the layout (or
// the interner) changed since it was filled.
func (b *Builder) index(root, layout string) *rootIndex {
	if b.in == nil || b.in.n() > maxInterned {
		gen := uint64(1)
		if b.in != nil {
			gen = b.in.gen + 1
		}
		b.in = newInterner(gen)
		b.roots = nil
	}
	if b.roots == nil {
		b.roots = map[string]*rootIndex{}
	}
	ri := b.roots[root]
	if ri == nil || ri.layout != layout {
		if ri == nil && len(b.roots) >= maxRoots {
			clear(b.roots)
		}
		ri = &rootIndex{layout: layout, files: map[string]*fileEntry{}}
		b.roots[root] = ri
	}
	return ri
}

// load fills in the tags and interned form of every source file: from the
// Builder's index when the file's size and mtime are unchanged, else from
// the cache, else by parsing it with workers goroutines. Parsed tags are
// Put in the cache whole; what the Builder keeps is slim.
func (b *Builder) load(ctx context.Context, files []*srcFile, ri *rootIndex, l *goLayout, cache Cache, workers int) (loadStats, error) {
	b.builds++
	gen := b.builds
	var need []*srcFile
	for _, f := range files {
		engine := engineFor(f.lang)
		if f.size > maxFileSize {
			f.info = skippedInfo(f.lang, engine, "large")
			continue
		}
		if e := ri.files[f.abs]; e != nil && e.size == f.size && e.mtime == f.mtime && e.info.Engine == engine &&
			(e.comp == nil && e.info.Skipped != "" || e.comp != nil && e.comp.gen == b.in.gen && e.comp.scope == l.scopeOf(f.rel, e.info.Lang, e.info.Package).pkgPath) {
			e.seen = gen
			f.info, f.comp, f.cached = e.info, e.comp, true
			continue
		}
		need = append(need, f)
	}
	if len(need) > 0 {
		b.in.reserve(len(need))
	}
	accept := func(f *srcFile, t *FileTags) {
		if t.Skipped == "" {
			f.comp = b.in.compile(t, l.scopeOf(f.rel, t.Lang, t.Package))
		}
		f.info = compact(t)
		ri.files[f.abs] = &fileEntry{size: f.size, mtime: f.mtime, info: f.info, comp: f.comp, seen: gen}
		ri.patched++
	}
	if cache != nil && len(need) > 0 {
		if err := fromCache(ctx, cache, need, accept); err != nil {
			return loadStats{}, err
		}
	}
	// A build that writes the snapshot (none yet: a cold one) keeps no Go
	// rows: the snapshot holds what is parsed now, and a row would cost more
	// to encode, redact and write than the file costs to scan again
	// (scanGo). A build patching a snapshot it read writes the rows of what
	// it parsed, or the next process would parse every file edited since
	// the snapshot again.
	goRows := ri.snap != snapMissing
	if err := b.parse(ctx, need, cache, goRows, workers, accept); err != nil {
		return loadStats{}, err
	}
	for p, e := range ri.files {
		if e.seen != gen {
			delete(ri.files, p) // gone, ignored or too large now
			ri.patched++
			if cache != nil && ri.snap == snapSynced {
				cache.Put(p, 0, 0, nil) // a build from the snapshot reads no row of it: forget it here
			}
		}
	}
	var st loadStats
	for _, f := range files {
		switch {
		case f.info == nil || f.info.Skipped != "":
			st.skipped++
		case f.info.Generated:
			st.generated++
		case f.cached:
			st.cached++
		default:
			st.parsed++
		}
	}
	return st, nil
}

// fromCache takes the files of need the cache holds with their size and
// mtime: one pass over a Scanner's rows when many are missing, else a Get
// each.
func fromCache(ctx context.Context, cache Cache, need []*srcFile, accept func(*srcFile, *FileTags)) error {
	take := func(f *srcFile, t *FileTags) {
		if t != nil && t.Engine == engineFor(f.lang) {
			accept(f, t)
			f.cached = true
		}
	}
	sc, ok := cache.(Scanner)
	if !ok || len(need) < scanThreshold {
		for _, f := range need {
			if t, ok := cache.Get(f.abs, f.size, f.mtime); ok {
				take(f, t)
			}
		}
		return nil
	}
	byPath := make(map[string]*srcFile, len(need))
	for _, f := range need {
		byPath[f.abs] = f
	}
	err := sc.Scan(ctx, func(path string, size, mtimeNs int64, t *FileTags) bool {
		f, ok := byPath[path]
		if !ok {
			return false
		}
		if f.size == size && f.mtime == mtimeNs && !f.cached {
			take(f, t)
		}
		return true
	})
	if err != nil {
		if ctx.Err() != nil {
			return fmt.Errorf("repomap: load: %w", ctx.Err())
		}
		return nil // an unreadable cache is a cold start, not a failure
	}
	return nil
}

// parse reads and parses the files of need not yet filled in, with
// workers goroutines, and Puts their tags in cache (Go files' only when
// goRows); accept (which interns) runs on this goroutine only.
func (b *Builder) parse(ctx context.Context, need []*srcFile, cache Cache, goRows bool, workers int, accept func(*srcFile, *FileTags)) error {
	roots := map[string]*os.Root{}
	defer func() {
		for _, r := range roots {
			r.Close()
		}
	}()
	var todo []*srcFile
	for _, f := range need {
		if f.info != nil {
			continue
		}
		if _, ok := roots[f.base]; !ok {
			r, err := os.OpenRoot(f.base)
			if err != nil {
				return fmt.Errorf("repomap: load: %w", err)
			}
			roots[f.base] = r
		}
		todo = append(todo, f)
	}
	if len(todo) == 0 {
		return nil
	}
	type parsed struct {
		f   *srcFile
		t   *FileTags
		src []byte // what t's strings may point into
	}
	var (
		wg   sync.WaitGroup
		next = make(chan *srcFile)
		done = make(chan parsed, workers)
		// source buffers come back once accept has compacted and interned
		// their tags (which copies what the index keeps)
		free = make(chan []byte, 2*workers)
		tags = make(chan *FileTags, 2*workers)
	)
	for range workers {
		wg.Go(func() {
			sc := scratch{free: free, tags: tags}
			for f := range next {
				t, src := sc.readTags(roots[f.base], f)
				done <- parsed{f, t, src}
			}
		})
	}
	recycler := scratch{free: free, tags: tags}
	go func() {
		defer close(next)
		for _, f := range todo {
			if ctx.Err() != nil {
				return
			}
			next <- f
		}
	}()
	go func() { wg.Wait(); close(done) }()
	for p := range done {
		if p.t == nil {
			continue // unreadable: left out
		}
		put := cache != nil && (goRows || p.f.lang != "go")
		if put {
			cache.Put(p.f.abs, p.f.size, p.f.mtime, p.t)
		}
		accept(p.f, p.t)
		p.f.parsed = true
		if !put && p.src != nil {
			// a Cache may keep what it is given; what accept took is copied
			recycler.recycle(p.src)
			if p.f.lang == "go" {
				recycler.recycleTags(p.t)
			}
		}
	}
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("repomap: load: %w", err)
	}
	return nil
}

// scopeOf tells how a file's Go names are scoped: by its package's import
// path (with "_test" for an external test package).
func (l *goLayout) scopeOf(rel, lang, pkg string) goScope {
	if lang != "go" {
		return goScope{}
	}
	p := l.pkgPath(relDir(rel))
	if strings.HasSuffix(pkg, "_test") {
		p += "_test"
	}
	return goScope{pkgPath: p, canon: l.canon}
}

// fileInfo is what a build keeps of one file's tags: everything but the
// references (interned into its compiled form), with the definitions
// packed into 28 bytes each over one string holding their text.
type fileInfo struct {
	Lang, Engine, Skipped, Package string
	Main, Generated                bool
	Imports                        []string
	Routes                         []Route
	defs                           []sdef
	text                           string
}

// sdef is one definition of a fileInfo; its strings are spans of the
// file's text.
type sdef struct {
	line                         int32
	sigAt, nameAt, parAt, kindAt uint32
	sigN, nameN, parN            uint16
	kindN, depth                 uint8
}

func (fi *fileInfo) span(at uint32, n uint16) string { return fi.text[at : at+uint32(n)] }
func (fi *fileInfo) sig(d *sdef) string              { return fi.span(d.sigAt, d.sigN) }
func (fi *fileInfo) name(d *sdef) string             { return fi.span(d.nameAt, d.nameN) }
func (fi *fileInfo) parent(d *sdef) string           { return fi.span(d.parAt, d.parN) }
func (fi *fileInfo) kind(d *sdef) string             { return fi.span(d.kindAt, uint16(d.kindN)) }

// skippedInfo is the fileInfo of a file that was not parsed.
func skippedInfo(lang, engine, reason string) *fileInfo {
	return &fileInfo{Lang: canonWord(lang), Engine: canonWord(engine), Skipped: canonWord(reason)}
}

// compact returns what a build keeps of t, sharing no memory with it (t
// often slices a cache row whose other bytes are garbage once compiled).
func compact(t *FileTags) *fileInfo {
	fi := &fileInfo{Lang: canonWord(t.Lang), Engine: canonWord(t.Engine), Skipped: canonWord(t.Skipped),
		Main: t.Main, Generated: t.Generated}
	n := len(t.Package)
	for _, d := range t.Defs {
		n += len(d.Signature) + len(d.Parent) + 8
	}
	for _, s := range t.Imports {
		n += len(s)
	}
	for _, r := range t.Routes {
		n += len(r.Pattern) + len(r.Call)
	}
	var b strings.Builder
	b.Grow(n)
	put := func(s string) (uint32, int) {
		at := b.Len()
		b.WriteString(s)
		return uint32(at), len(s)
	}
	pkgAt, pkgN := put(t.Package)
	type sp struct {
		at uint32
		n  int
	}
	kinds := map[string]sp{}
	var lastPar sp
	lastParS := ""
	spans := make([]sp, 0, len(t.Imports)+2*len(t.Routes))
	if len(t.Defs) > 0 {
		fi.defs = make([]sdef, len(t.Defs))
	}
	for i, d := range t.Defs {
		sig := d.Signature
		if len(sig) > 1<<15 {
			sig = sig[:1<<15]
		}
		sa, sn := put(sig)
		e := sdef{line: int32(d.Line), sigAt: sa, sigN: uint16(sn), depth: uint8(min(d.Depth, 255))}
		if k := strings.Index(sig, d.Name); k >= 0 && d.Name != "" {
			e.nameAt, e.nameN = sa+uint32(k), uint16(len(d.Name))
		} else {
			a, n := put(d.Name[:min(len(d.Name), 1<<15)])
			e.nameAt, e.nameN = a, uint16(n)
		}
		if d.Parent != "" {
			if d.Parent != lastParS {
				a, n := put(d.Parent[:min(len(d.Parent), 1<<15)])
				lastPar, lastParS = sp{a, n}, d.Parent
			}
			e.parAt, e.parN = lastPar.at, uint16(lastPar.n)
		}
		k, ok := kinds[d.Kind]
		if !ok {
			a, n := put(d.Kind[:min(len(d.Kind), 255)])
			k = sp{a, n}
			kinds[d.Kind] = k
		}
		e.kindAt, e.kindN = k.at, uint8(k.n)
		fi.defs[i] = e
	}
	for _, s := range t.Imports {
		a, n := put(s)
		spans = append(spans, sp{a, n})
	}
	for _, r := range t.Routes {
		a, n := put(r.Pattern)
		c, m := put(r.Call)
		spans = append(spans, sp{a, n}, sp{c, m})
	}
	fi.text = b.String()
	get := func(x sp) string { return fi.text[x.at : x.at+uint32(x.n)] }
	fi.Package = fi.text[pkgAt : pkgAt+uint32(pkgN)]
	k := 0
	if len(t.Imports) > 0 {
		fi.Imports = make([]string, len(t.Imports))
		for i := range t.Imports {
			fi.Imports[i] = get(spans[k])
			k++
		}
	}
	if len(t.Routes) > 0 {
		fi.Routes = make([]Route, len(t.Routes))
		for i, r := range t.Routes {
			fi.Routes[i] = Route{Line: r.Line, Pattern: get(spans[k]), Call: get(spans[k+1])}
			k += 2
		}
	}
	return fi
}

// canonWords are the few values of the enumerated string fields; canonWord
// returns the constant for one, so slim tags never hold a decoded copy.
var canonWords = func() map[string]string {
	m := map[string]string{}
	for _, w := range strings.Fields(`go python javascript typescript tsx rust java go/1 ts/1 line/1 large generated
		minified error func method type const var class function field variable interface struct enum trait impl
		module macro constructor property getter setter record`) {
		m[w] = w
	}
	return m
}()

func canonWord(s string) string {
	if w, ok := canonWords[s]; ok {
		return w
	}
	return strings.Clone(s)
}
