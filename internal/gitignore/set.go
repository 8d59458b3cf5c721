package gitignore

// Set is the rules in force in one directory, lowest priority first, with,
// for each name pattern, whether it already matched a directory on the way
// down (so a file costs one name match per rule, not one per component).
//
// A Set is built top-down: the workspace root's (Layout.RootSet), then for
// each subdirectory Descend and Extend with that directory's own rules. It
// answers only for entries of its directory, and only when every directory
// above them is not ignored (walks never enter an ignored directory). A nil
// *Set holds no rules. Sets are immutable and safe to share.
type Set struct {
	rules []Rule
	anc   []bool
}

// NewSet is a set of rules with no directory above it (the workspace root
// outside any repository).
func NewSet(rules []Rule) *Set { return (*Set)(nil).Extend(rules) }

// Len is the number of rules in force.
func (s *Set) Len() int {
	if s == nil {
		return 0
	}
	return len(s.rules)
}

// Match reports whether path (workspace-relative components: the set's
// directory and one entry of it) is ignored.
func (s *Set) Match(path []string, isDir bool) bool {
	if s == nil || len(path) == 0 {
		return false
	}
	name := path[len(path)-1]
	for i := len(s.rules) - 1; i >= 0; i-- {
		r := &s.rules[i]
		if r.never || len(path) <= r.depth {
			continue
		}
		var hit bool
		if r.simple {
			hit = s.anc[i] || (r.nameMatch(name) && !(r.dirOnly && !isDir))
		} else {
			hit = r.globMatch(r.pre, path[r.depth:], isDir)
		}
		if hit {
			return !r.negate
		}
	}
	return false
}

// Descend is the set in force in the subdirectory path (its components)
// before the subdirectory's own .gitignore is added.
func (s *Set) Descend(path []string) *Set {
	if s == nil || len(path) == 0 {
		return s
	}
	name := path[len(path)-1]
	var anc []bool
	for i := range s.rules {
		r := &s.rules[i]
		if s.anc[i] || !r.simple || r.never || len(path) <= r.depth || !r.nameMatch(name) {
			continue
		}
		if anc == nil {
			anc = append([]bool(nil), s.anc...)
		}
		anc[i] = true
	}
	if anc == nil {
		return s // nothing new matched: share
	}
	return &Set{rules: s.rules, anc: anc}
}

// Extend adds a directory's own rules (highest priority).
func (s *Set) Extend(own []Rule) *Set {
	if len(own) == 0 {
		return s
	}
	c := &Set{}
	if s != nil {
		// Full slice expressions: siblings must not share a backing array.
		c.rules = s.rules[:len(s.rules):len(s.rules)]
		c.anc = s.anc[:len(s.anc):len(s.anc)]
	}
	c.rules = append(c.rules, own...)
	c.anc = append(c.anc, make([]bool, len(own))...)
	return c
}
