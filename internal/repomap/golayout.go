package repomap

import (
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
)

// goLayout maps directories of the tree to Go import paths, from the
// go.mod files found in it (or above the root). The standard library's
// "std" module maps to bare paths, as its import paths are.
type goLayout struct {
	mods  map[string]string // rel dir ("" = root) -> import path of that dir
	known map[string]bool   // import paths of directories holding Go files
	dirOf map[string]string // import path -> rel dir
	cache map[string]string // canon results
	// byLast lists the known paths by their last element (built at the
	// first canon that misses): a path ending an import path ends with
	// the import path's last element
	byLast map[string][]string
	key    string
}

func newGoLayout(root string, others []string, goDirs []string) *goLayout {
	l := &goLayout{mods: map[string]string{}, known: map[string]bool{}, dirOf: map[string]string{}, cache: map[string]string{}}
	for _, o := range others {
		if path.Base(o) != "go.mod" {
			continue
		}
		if m := readModule(filepath.Join(root, filepath.FromSlash(o))); m != "" {
			d := path.Dir(o)
			if d == "." {
				d = ""
			}
			l.mods[d] = m
		}
	}
	if _, ok := l.mods[""]; !ok {
		// a root inside a module: find go.mod above it
		for dir := filepath.Dir(root); ; dir = filepath.Dir(dir) {
			if m := readModule(filepath.Join(dir, "go.mod")); m != "" {
				if rel, err := filepath.Rel(dir, root); err == nil {
					l.mods[""] = joinImport(m, filepath.ToSlash(rel))
				}
				break
			}
			if dir == filepath.Dir(dir) {
				break
			}
		}
	}
	var parts []string
	for d, m := range l.mods {
		parts = append(parts, d+"="+m)
	}
	slices.Sort(parts)
	for _, d := range goDirs {
		p := l.pkgPath(d)
		l.known[p] = true
		l.dirOf[p] = d
	}
	l.key = root + "|" + strings.Join(parts, ",")
	return l
}

func readModule(gomod string) string {
	data, err := os.ReadFile(gomod)
	if err != nil {
		return ""
	}
	for _, line := range strings.Split(string(data), "\n") {
		if m, ok := strings.CutPrefix(strings.TrimSpace(line), "module "); ok {
			return strings.Trim(strings.TrimSpace(m), `"`)
		}
	}
	return ""
}

func joinImport(mod, rest string) string {
	if rest == "." {
		rest = ""
	}
	switch {
	case mod == "std":
		return rest
	case rest == "":
		return mod
	}
	return mod + "/" + rest
}

// pkgPath returns the import path of a directory of the tree.
func (l *goLayout) pkgPath(relDir string) string {
	for d := relDir; ; {
		if m, ok := l.mods[d]; ok {
			rest := strings.TrimPrefix(strings.TrimPrefix(relDir, d), "/")
			if m == "" {
				return rest
			}
			return joinImport(m, rest)
		}
		if d == "" {
			break
		}
		if d = path.Dir(d); d == "." {
			d = ""
		}
	}
	return relDir
}

// canon maps an import path as written to the import path of a package
// of this tree: itself when the layout is known, else the known package
// whose path ends the import path (trees without go.mod).
func (l *goLayout) canon(p string) string {
	if l.known[p] {
		return p
	}
	if c, ok := l.cache[p]; ok {
		return c
	}
	if l.byLast == nil {
		l.byLast = make(map[string][]string, len(l.known))
		for k := range l.known {
			if k != "" {
				last := path.Base(k)
				l.byLast[last] = append(l.byLast[last], k)
			}
		}
	}
	c, best := p, ""
	for _, k := range l.byLast[path.Base(p)] {
		if len(k) > len(best) && strings.HasSuffix(p, "/"+k) {
			best = k
		}
	}
	if best != "" {
		c = best
	}
	l.cache[p] = c
	return c
}

// goDeps returns, per package directory of the tree, the set of package
// directories importing it (test files left out).
func goDeps(live []*srcFile, l *goLayout) map[string]map[string]bool {
	deps := map[string]map[string]bool{}
	for _, f := range live {
		if f.lang != "go" || strings.HasSuffix(f.rel, "_test.go") {
			continue
		}
		from := relDir(f.rel)
		for _, imp := range f.info.Imports {
			to, ok := l.dirOf[l.canon(imp)]
			if !ok || to == from {
				continue
			}
			if deps[to] == nil {
				deps[to] = map[string]bool{}
			}
			deps[to][from] = true
		}
	}
	return deps
}
