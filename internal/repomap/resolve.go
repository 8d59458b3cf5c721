package repomap

import (
	"path"
	"slices"
	"strings"
)

// resolver maps raw import strings of non-Go files to files of the tree.
type resolver struct {
	files  []*srcFile
	noExt  map[string][]int32 // rel path without extension -> files
	byBase map[string][]string
}

func newResolver(files []*srcFile) *resolver {
	r := &resolver{files: files, noExt: map[string][]int32{}, byBase: map[string][]string{}}
	for i, f := range files {
		if f.lang == "go" {
			continue
		}
		ne := strings.TrimSuffix(f.rel, path.Ext(f.rel))
		if _, ok := r.noExt[ne]; !ok {
			r.byBase[path.Base(ne)] = append(r.byBase[path.Base(ne)], ne)
		}
		r.noExt[ne] = append(r.noExt[ne], int32(i))
	}
	return r
}

// resolveAll resolves the imports of every file.
func (r *resolver) resolveAll() [][]int32 {
	out := make([][]int32, len(r.files))
	for i := range r.files {
		out[i] = r.resolve(i)
	}
	return out
}

// resolve returns the files that file i's imports point at.
func (r *resolver) resolve(i int) []int32 {
	f := r.files[i]
	t := f.info
	if t == nil || len(t.Imports) == 0 {
		return nil
	}
	dir := path.Dir(f.rel)
	if dir == "." {
		dir = ""
	}
	var out []int32
	if f.lang == "go" {
		// Go's qualified references already link packages exactly;
		// import edges would only blur them.
		return nil
	}
	for _, imp := range t.Imports {
		switch f.lang {
		case "python":
			out = append(out, r.pyImport(dir, imp)...)
		case "javascript", "typescript", "tsx":
			out = append(out, r.jsImport(dir, imp)...)
		case "rust":
			if m, ok := strings.CutPrefix(imp, "mod:"); ok {
				out = append(out, r.exact(path.Join(dir, m), path.Join(dir, m, "mod"))...)
			} else {
				out = append(out, r.suffix(strings.ReplaceAll(strings.TrimPrefix(strings.TrimPrefix(imp, "crate::"), "self::"), "::", "/"), true, 1)...)
			}
		case "java":
			out = append(out, r.suffix(strings.ReplaceAll(imp, ".", "/"), false, 1)...)
		}
	}
	slices.Sort(out)
	out = slices.Compact(out)
	if k, ok := findID(out, int32(i)); ok {
		out = slices.Delete(out, k, k+1)
	}
	return out
}

func (r *resolver) pyImport(dir, imp string) []int32 {
	if strings.HasPrefix(imp, ".") {
		n := len(imp) - len(strings.TrimLeft(imp, "."))
		base := dir
		for range n - 1 {
			base = path.Dir(base)
			if base == "." {
				base = ""
			}
		}
		mod := strings.ReplaceAll(imp[n:], ".", "/")
		if mod == "" {
			return r.exact(path.Join(base, "__init__"))
		}
		return r.exact(path.Join(base, mod), path.Join(base, mod, "__init__"))
	}
	mod := strings.ReplaceAll(imp, ".", "/")
	if fs := r.suffix(mod+"/__init__", false, 2); len(fs) > 0 {
		return fs
	}
	return r.suffix(mod, false, 1)
}

func (r *resolver) jsImport(dir, imp string) []int32 {
	if !strings.HasPrefix(imp, ".") {
		return nil // a package, not a file of this tree
	}
	p := path.Join(dir, imp)
	if strings.HasPrefix(p, "..") {
		return nil
	}
	ext := path.Ext(p)
	switch ext {
	case ".js", ".mjs", ".cjs", ".jsx", ".ts", ".tsx", ".mts", ".cts":
		p = strings.TrimSuffix(p, ext)
	}
	return r.exact(p, path.Join(p, "index"))
}

func (r *resolver) exact(cands ...string) []int32 {
	for _, c := range cands {
		if fs, ok := r.noExt[c]; ok {
			return fs
		}
	}
	return nil
}

// suffix finds files whose extension-less path ends with p, dropping
// leading components of p until something matches; dropTail also drops
// trailing components (Rust paths name items inside modules). At least
// minParts components must match.
func (r *resolver) suffix(p string, dropTail bool, minParts int) []int32 {
	parts := strings.Split(strings.Trim(p, "/"), "/")
	for len(parts) >= minParts {
		for lo := 0; lo <= len(parts)-minParts; lo++ {
			c := strings.Join(parts[lo:], "/")
			for _, ne := range r.byBase[parts[len(parts)-1]] {
				if ne == c || strings.HasSuffix(ne, "/"+c) {
					return r.noExt[ne]
				}
			}
		}
		if !dropTail {
			break
		}
		parts = parts[:len(parts)-1]
	}
	return nil
}
