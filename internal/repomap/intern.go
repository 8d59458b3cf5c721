package repomap

import (
	"cmp"
	"math"
	"slices"
	"sort"
	"strings"
)

// Identifiers are interned per Builder, so that a Builder's later builds
// rank the files it already compiled with integer ids and no string
// hashing. The table is dropped and rebuilt past maxInterned names (the
// Builder then compiles every file again).
//
// Go names are scoped exactly as the compiler sees them: a package-level
// name is keyed by (import path, name), so an unqualified use only reaches
// definitions of its own package and pkg.Name only those of the imported
// package; methods (and interface methods) are keyed by ".Name" and reached
// by any selector x.Name. Other languages key definitions by bare name.

const maxInterned = 4 << 20

type interner struct {
	gen    uint64
	ids    map[string]int32   // bare names and ".member" keys -> id (those not in base)
	pkgs   map[string]int32   // Go import paths
	scoped map[[2]int32]int32 // (package, bare name id) -> id (those not in base)
	keyOf  []int32            // id -> index in keys of its bare name
	keys   []string           // bare names (a key without its ".")
	muls   []float32          // id -> nameMul(bare name)
	dot    []bool             // key index -> interned as ".member"
	base   internBase
}

// internBase is the part of the table a snapshot brought back: searched
// by bisection, so that a process reading a snapshot neither hashes its
// names nor builds maps of them. Read-only; names interned later go to the
// maps.
type internBase struct {
	byName []int32       // key indices, sorted by their full key (with the "." of a member)
	keyID  []int32       // key index -> the id interned for it
	scoped []scopedEntry // sorted by (pkg, bare)
}

type scopedEntry struct{ pkg, bare, id int32 }

func cmpScoped(a, b scopedEntry) int {
	if c := cmp.Compare(a.pkg, b.pkg); c != 0 {
		return c
	}
	return cmp.Compare(a.bare, b.bare)
}

// cmpKey compares key index k's full key with s.
func (in *interner) cmpKey(k int32, s string) int {
	if in.dot[k] {
		if s == "" || s[0] != '.' {
			return cmp.Compare(".", s[:min(len(s), 1)])
		}
		s = s[1:]
	}
	return strings.Compare(in.keys[k], s)
}

func (in *interner) baseID(s string) (int32, bool) {
	bn := in.base.byName
	i := sort.Search(len(bn), func(i int) bool { return in.cmpKey(bn[i], s) >= 0 })
	if i < len(bn) && in.cmpKey(bn[i], s) == 0 {
		return in.base.keyID[bn[i]], true
	}
	return 0, false
}

func (in *interner) baseScoped(k [2]int32) (int32, bool) {
	e := scopedEntry{pkg: k[0], bare: k[1]}
	i, ok := slices.BinarySearchFunc(in.base.scoped, e, cmpScoped)
	if ok {
		return in.base.scoped[i].id, true
	}
	return 0, false
}

// n is the number of ids.
func (in *interner) n() int { return len(in.keyOf) }

// name is the bare name of id.
func (in *interner) name(id int32) string { return in.keys[in.keyOf[id]] }

func newInterner(gen uint64) *interner {
	return &interner{gen: gen, ids: map[string]int32{}, pkgs: map[string]int32{}, scoped: map[[2]int32]int32{}}
}

// reserve sizes an empty table for files new source files (GOROOT/src:
// ~22 names and ~29 scoped ones per file), so that a cold build does not
// rehash tables of 10^5 entries as they grow.
func (in *interner) reserve(files int) {
	if len(in.ids) == 0 && len(in.base.byName) == 0 && files >= 256 {
		in.ids = make(map[string]int32, files*22)
		in.scoped = make(map[[2]int32]int32, files*29)
	}
}

// id interns s. Names come from parsers or cache rows whose other bytes
// are garbage once compiled: a new key is copied, so the table never
// holds on to a whole row.
func (in *interner) id(s string) int32 {
	if v, ok := in.ids[s]; ok {
		return v
	}
	if v, ok := in.baseID(s); ok {
		return v
	}
	v := int32(in.n())
	s = strings.Clone(s)
	in.ids[s] = v
	bare, dot := strings.CutPrefix(s, ".")
	in.keys = append(in.keys, bare)
	in.dot = append(in.dot, dot)
	in.add(int32(len(in.keys) - 1))
	return v
}

func (in *interner) pkg(p string) int32 {
	if v, ok := in.pkgs[p]; ok {
		return v
	}
	v := int32(len(in.pkgs))
	in.pkgs[strings.Clone(p)] = v
	return v
}

func (in *interner) scope(pkg int32, name string) int32 {
	bare := in.id(name)
	k := [2]int32{pkg, bare}
	if v, ok := in.scoped[k]; ok {
		return v
	}
	if v, ok := in.baseScoped(k); ok {
		return v
	}
	v := int32(in.n())
	in.scoped[k] = v
	in.add(in.keyOf[bare])
	return v
}

func (in *interner) add(key int32) {
	in.keyOf = append(in.keyOf, key)
	in.muls = append(in.muls, float32(nameMul(in.keys[key])))
}

// compiled is the interned form of a FileTags.
type compiled struct {
	gen    uint64
	scope  string    // Go: the package path the ids were scoped with
	defIDs []int32   // parallel to FileTags.Defs
	udefs  []int32   // sorted unique ids of defined names
	refs   []int32   // sorted unique ids of referenced names
	refW   []float32 // sqrt(number of uses), parallel to refs
}

// goScope tells how to scope one Go file's names.
type goScope struct {
	pkgPath string              // this file's package import path
	canon   func(string) string // import path as written -> package path in this tree
}

// compile interns t's names, Go names scoped by sc.
func (in *interner) compile(t *FileTags, sc goScope) *compiled {
	intern := in
	c := &compiled{gen: intern.gen, scope: sc.pkgPath, defIDs: make([]int32, len(t.Defs))}
	isGo := t.Lang == "go"
	var pkg int32
	if isGo {
		pkg = intern.pkg(sc.pkgPath)
	}
	for i, d := range t.Defs {
		switch {
		case !isGo:
			c.defIDs[i] = intern.id(d.Name)
		case d.Kind == "method" || d.Kind == "field":
			c.defIDs[i] = intern.id("." + d.Name) // reached by any selector x.Name
		default:
			c.defIDs[i] = intern.scope(pkg, d.Name)
		}
	}
	c.udefs = slices.Clone(c.defIDs)
	slices.Sort(c.udefs)
	c.udefs = slices.Compact(c.udefs)
	if t.Generated {
		return c // generated code is looked up, its references do not vote
	}
	// (id, uses) packed in one integer: sorted without a comparison function
	rs := make([]uint64, 0, len(t.Refs))
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
		rs = append(rs, uint64(id)<<32|uint64(uint32(min(n, math.MaxUint32))))
	}
	slices.Sort(rs)
	// merge duplicates (different keys can scope to one id)
	c.refs = make([]int32, 0, len(rs))
	c.refW = make([]float32, 0, len(rs))
	for i := 0; i < len(rs); {
		id := rs[i] >> 32
		j, n := i, 0
		for ; j < len(rs) && rs[j]>>32 == id; j++ {
			n += int(uint32(rs[j]))
		}
		c.refs = append(c.refs, int32(id))
		c.refW = append(c.refW, float32(math.Sqrt(float64(n))))
		i = j
	}
	return c
}
