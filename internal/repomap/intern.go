package repomap

import (
	"math"
	"slices"
	"strings"
	"sync"
)

// Identifiers are interned process-wide so that a warm Build, whose tags
// come from the cache as the same *FileTags, ranks with integer ids and no
// string hashing. The table is dropped and rebuilt past maxInterned names.
//
// Go names are scoped exactly as the compiler sees them: a package-level
// name is keyed by (import path, name), so an unqualified use only reaches
// definitions of its own package and pkg.Name only those of the imported
// package; methods (and interface methods) are keyed by ".Name" and reached
// by any selector x.Name. Other languages key definitions by bare name.

const maxInterned = 4 << 20

type interner struct {
	gen    uint64
	ids    map[string]int32   // bare names and ".member" keys
	pkgs   map[string]int32   // Go import paths
	scoped map[[2]int32]int32 // (package, bare name id) -> id
	names  []string           // id -> bare name (for weights and display)
	muls   []float32          // id -> nameMul(bare name)
}

func newInterner(gen uint64) *interner {
	return &interner{gen: gen, ids: make(map[string]int32, 1<<16), pkgs: map[string]int32{},
		scoped: make(map[[2]int32]int32, 1<<16)}
}

var (
	memoMu sync.Mutex // guards intern and every FileTags.memo
	intern = newInterner(1)
)

func (in *interner) id(s string) int32 {
	if v, ok := in.ids[s]; ok {
		return v
	}
	v := int32(len(in.names))
	in.ids[s] = v
	in.add(strings.TrimPrefix(s, "."))
	return v
}

func (in *interner) pkg(p string) int32 {
	if v, ok := in.pkgs[p]; ok {
		return v
	}
	v := int32(len(in.pkgs))
	in.pkgs[p] = v
	return v
}

func (in *interner) scope(pkg int32, name string) int32 {
	k := [2]int32{pkg, in.id(name)}
	if v, ok := in.scoped[k]; ok {
		return v
	}
	v := int32(len(in.names))
	in.scoped[k] = v
	in.add(name)
	return v
}

func (in *interner) add(name string) {
	in.names = append(in.names, name)
	in.muls = append(in.muls, float32(nameMul(name)))
}

// compiled is the interned form of a FileTags.
type compiled struct {
	gen    uint64
	scope  string    // Go: package path and layout the ids were scoped with
	defIDs []int32   // parallel to FileTags.Defs
	udefs  []int32   // sorted unique ids of defined names
	refs   []int32   // sorted unique ids of referenced names
	refW   []float32 // sqrt(number of uses), parallel to refs
}

// goScope tells how to scope one Go file's names.
type goScope struct {
	pkgPath string              // this file's package import path
	layout  string              // identifies canon's mapping
	canon   func(string) string // import path as written -> package path in this tree
}

// compileAll interns every file's tags (reusing memos from earlier runs)
// and returns the compiled forms and the id -> bare name and weight tables.
func compileAll(tags []*FileTags, scopes []goScope) ([]*compiled, []string, []float32) {
	memoMu.Lock()
	defer memoMu.Unlock()
	if len(intern.names) > maxInterned {
		intern = newInterner(intern.gen + 1)
	}
	out := make([]*compiled, len(tags))
	for i, t := range tags {
		if t == nil {
			continue
		}
		key := ""
		if t.Lang == "go" {
			key = scopes[i].pkgPath + "\x00" + scopes[i].layout
		}
		if t.memo == nil || t.memo.gen != intern.gen || t.memo.scope != key {
			t.memo = compileTags(t, scopes[i], key)
		}
		out[i] = t.memo
	}
	n := len(intern.names)
	return out, intern.names[:n:n], intern.muls[:n:n]
}

func compileTags(t *FileTags, sc goScope, key string) *compiled {
	c := &compiled{gen: intern.gen, scope: key, defIDs: make([]int32, len(t.Defs))}
	isGo := t.Lang == "go"
	var pkg int32
	if isGo {
		pkg = intern.pkg(sc.pkgPath)
	}
	for i, d := range t.Defs {
		switch {
		case !isGo:
			c.defIDs[i] = intern.id(d.Name)
		case d.Kind == "method":
			c.defIDs[i] = intern.id("." + d.Name)
		default:
			c.defIDs[i] = intern.scope(pkg, d.Name)
		}
	}
	c.udefs = slices.Clone(c.defIDs)
	slices.Sort(c.udefs)
	c.udefs = slices.Compact(c.udefs)
	type rc struct {
		id int32
		n  int
	}
	rs := make([]rc, 0, len(t.Refs))
	for name, n := range t.Refs {
		var id int32
		switch {
		case !isGo || strings.HasPrefix(name, "."):
			id = intern.id(name)
		default:
			if j := strings.LastIndexByte(name, '.'); j > 0 {
				p := name[:j]
				if sc.canon != nil {
					p = sc.canon(p)
				}
				id = intern.scope(intern.pkg(p), name[j+1:])
			} else {
				id = intern.scope(pkg, name)
			}
		}
		rs = append(rs, rc{id, n})
	}
	slices.SortFunc(rs, func(a, b rc) int { return int(a.id) - int(b.id) })
	// merge duplicates (different keys can scope to one id)
	c.refs = make([]int32, 0, len(rs))
	c.refW = make([]float32, 0, len(rs))
	for i := 0; i < len(rs); {
		j, n := i, 0
		for ; j < len(rs) && rs[j].id == rs[i].id; j++ {
			n += rs[j].n
		}
		c.refs = append(c.refs, rs[i].id)
		c.refW = append(c.refW, float32(math.Sqrt(float64(n))))
		i = j
	}
	return c
}
