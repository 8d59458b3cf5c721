package repomap

import (
	"cmp"
	"fmt"
	"path"
	"slices"
	"strings"
)

// The newcomer section: what someone new to the repository reads first.
// Every line is an item with a priority; the renderer adds items in
// priority order while they fit and prints them in reading order.

type item struct {
	sec   int // section, in reading order
	order int // position within the section
	prio  int // lower is added first
	text  string
}

const (
	secHead = iota
	secAbout
	secEntry
	secTree
	secTests
	secRoutes
	secImports
	secRecent
)

var secTitles = map[int]string{secTree: "tree:", secTests: "tests:", secRoutes: "routes:", secImports: "imported most:", secEntry: "entry points:"}

type seedInput struct {
	rootName string
	root     string
	all      []*srcFile // every source file found
	live     []*srcFile // parsed, in rank-input order
	rank     []float64  // parallel to live
	others   []string
	imports  [][]int32 // parallel to live
	goDeps   map[string]map[string]bool
	recent   []string
	skipped  int
}

func newcomerItems(in seedInput) []item {
	var items []item
	add := func(sec, prio int, text string) {
		items = append(items, item{sec: sec, order: len(items), prio: prio, text: text})
	}
	langs := map[string]int{}
	for _, f := range in.all {
		langs[f.lang]++
	}
	var ls []string
	for l, n := range langs {
		ls = append(ls, fmt.Sprintf("%s %d", l, n))
	}
	slices.Sort(ls)
	head := fmt.Sprintf("# %s: %d source files (%s), %d other", in.rootName, len(in.all), strings.Join(ls, ", "), len(in.others))
	if in.skipped > 0 {
		head += fmt.Sprintf(", %d skipped (large/generated)", in.skipped)
	}
	add(secHead, 0, head)

	about, entries := aboutLines(in.root, in.others)
	for _, a := range about {
		add(secAbout, 10, a)
	}
	for _, e := range entries {
		add(secEntry, 20, "  "+e)
	}
	for i, e := range entryPoints(in.live, in.rank) {
		add(secEntry, 21+i, "  "+e)
	}
	for i, t := range treeLines(in.all, in.others, in.live, in.rank) {
		add(secTree, 30+i, t)
	}
	for i, t := range testLines(in.all, in.live, in.rank) {
		add(secTests, 40+i, t)
	}
	for i, r := range routeLines(in.live, in.rank) {
		add(secRoutes, 50+i, r)
	}
	for i, r := range importLines(in.live, in.imports, in.goDeps) {
		add(secImports, 60+i, r)
	}
	if len(in.recent) > 0 {
		add(secRecent, 70, "recent: "+strings.Join(in.recent[:min(8, len(in.recent))], ", "))
	}
	return items
}

// rankOrder returns live indices sorted by rank, best first.
func rankOrder(rank []float64, live []*srcFile) []int {
	idx := make([]int, len(live))
	for i := range idx {
		idx[i] = i
	}
	slices.SortFunc(idx, func(a, b int) int {
		if c := cmp.Compare(rank[b], rank[a]); c != 0 {
			return c
		}
		return strings.Compare(live[a].rel, live[b].rel)
	})
	return idx
}

func entryPoints(live []*srcFile, rank []float64) []string {
	var out []string
	seenDir := map[string]bool{}
	order := rankOrder(rank, live)
	// cmd/ and shallow mains first, then by rank
	slices.SortStableFunc(order, func(a, b int) int {
		da, db := entryDepth(live[a].rel), entryDepth(live[b].rel)
		return cmp.Compare(da, db)
	})
	for _, i := range order {
		f := live[i]
		if !f.info.Main || isTestFile(f.rel) {
			continue
		}
		dir := path.Dir(f.rel)
		if f.lang == "go" {
			if seenDir[dir] {
				continue
			}
			seenDir[dir] = true
			out = append(out, f.rel+" (package main)")
		} else {
			out = append(out, f.rel+" (main)")
		}
		if len(out) >= 8 {
			break
		}
	}
	return out
}

func entryDepth(rel string) int {
	d := strings.Count(rel, "/")
	if strings.HasPrefix(rel, "cmd/") || path.Base(rel) == "__main__.py" {
		d -= 2
	}
	return d
}

// treeLines renders a collapsed tree: one line per top-level directory
// with its source-file count and subdirectories, plus the root's files.
func treeLines(all []*srcFile, others []string, live []*srcFile, rank []float64) []string {
	type dirInfo struct {
		n    int
		subs map[string]int
	}
	dirs := map[string]*dirInfo{}
	rootFiles := 0
	count := func(rel string, src bool) {
		top, rest, ok := strings.Cut(rel, "/")
		if !ok {
			if src {
				rootFiles++
			}
			return
		}
		d := dirs[top]
		if d == nil {
			d = &dirInfo{subs: map[string]int{}}
			dirs[top] = d
		}
		if src {
			d.n++
		}
		if sub, _, ok := strings.Cut(rest, "/"); ok {
			d.subs[sub] += 0
			if src {
				d.subs[sub]++
			}
		}
	}
	for _, f := range all {
		count(f.rel, true)
	}
	for _, o := range others {
		count(o, false)
	}
	var names []string
	for n := range dirs {
		names = append(names, n)
	}
	// most source files first: the fitting keeps the head of this list
	slices.SortFunc(names, func(a, b string) int {
		if c := cmp.Compare(dirs[b].n, dirs[a].n); c != 0 {
			return c
		}
		return strings.Compare(a, b)
	})
	var out []string
	if rootFiles > 0 {
		var top []string
		for _, i := range rankOrder(rank, live) {
			if !strings.Contains(live[i].rel, "/") && !isTestFile(live[i].rel) {
				top = append(top, live[i].rel)
				if len(top) == 6 {
					break
				}
			}
		}
		line := fmt.Sprintf("  ./ (%d): %s", rootFiles, strings.Join(top, " "))
		if rootFiles > len(top) {
			line += " …"
		}
		out = append(out, line)
	}
	for _, n := range names {
		d := dirs[n]
		line := fmt.Sprintf("  %s/ (%d)", n, d.n)
		var subs []string
		for s := range d.subs {
			subs = append(subs, s)
		}
		slices.SortFunc(subs, func(a, b string) int {
			if c := cmp.Compare(d.subs[b], d.subs[a]); c != 0 {
				return c
			}
			return strings.Compare(a, b)
		})
		if len(subs) > 0 {
			shown := subs[:min(8, len(subs))]
			slices.Sort(shown)
			line += ": " + strings.Join(shown, "/ ") + "/"
			if len(subs) > len(shown) {
				line += fmt.Sprintf(" +%d", len(subs)-len(shown))
			}
		}
		out = append(out, line)
	}
	return out
}

// isTestFile reports test files by the usual conventions.
func isTestFile(rel string) bool {
	base := path.Base(rel)
	stem := strings.TrimSuffix(base, path.Ext(base))
	switch {
	case strings.HasSuffix(base, "_test.go"),
		strings.HasPrefix(base, "test_") && strings.HasSuffix(base, ".py"),
		strings.HasSuffix(stem, "_test") && strings.HasSuffix(base, ".py"),
		strings.HasSuffix(stem, ".test"), strings.HasSuffix(stem, ".spec"),
		strings.HasSuffix(stem, "Test") && strings.HasSuffix(base, ".java"),
		strings.HasSuffix(stem, "Tests") && strings.HasSuffix(base, ".java"):
		return true
	}
	for _, seg := range strings.Split(path.Dir(rel), "/") {
		if seg == "tests" || seg == "test" || seg == "__tests__" || seg == "spec" {
			return true
		}
	}
	return false
}

// testSubject guesses the stem of the source a test file covers.
func testSubject(rel string) string {
	base := path.Base(rel)
	ext := path.Ext(base)
	stem := strings.TrimSuffix(base, ext)
	for _, s := range []string{"_test", ".test", ".spec", "Tests", "Test"} {
		stem = strings.TrimSuffix(stem, s)
	}
	stem = strings.TrimPrefix(stem, "test_")
	return stem
}

func testLines(all []*srcFile, live []*srcFile, rank []float64) []string {
	byStem := map[string][]string{} // stem -> non-test sources
	var tests []string
	testDirs := map[string]int{}
	for _, f := range all {
		if isTestFile(f.rel) {
			tests = append(tests, f.rel)
			for _, seg := range []string{"tests", "test", "__tests__", "spec"} {
				if i := strings.Index("/"+f.rel, "/"+seg+"/"); i >= 0 {
					testDirs[f.rel[:i]+seg+"/"]++
					break
				}
			}
			continue
		}
		stem := strings.TrimSuffix(path.Base(f.rel), path.Ext(f.rel))
		byStem[stem] = append(byStem[stem], f.rel)
	}
	if len(tests) == 0 {
		return nil
	}
	pairs := map[string][]string{} // source -> tests
	paired := 0
	for _, t := range tests {
		cands := byStem[testSubject(t)]
		if len(cands) == 0 {
			continue
		}
		best := cands[0]
		for _, c := range cands { // prefer the same directory
			if path.Dir(c) == path.Dir(t) {
				best = c
			}
		}
		pairs[best] = append(pairs[best], path.Base(t))
		paired++
	}
	out := []string{fmt.Sprintf("  %d test files, %d paired with a source by name", len(tests), paired)}
	var dirs []string
	for d, n := range testDirs {
		dirs = append(dirs, fmt.Sprintf("%s (%d)", d, n))
	}
	slices.Sort(dirs)
	if len(dirs) > 0 {
		out = append(out, "  test dirs: "+strings.Join(dirs[:min(6, len(dirs))], " "))
	}
	n := 0
	for _, i := range rankOrder(rank, live) {
		ts := pairs[live[i].rel]
		if len(ts) == 0 {
			continue
		}
		out = append(out, fmt.Sprintf("  %s ← %s", live[i].rel, strings.Join(ts[:min(3, len(ts))], ", ")))
		if n++; n == 6 {
			break
		}
	}
	return out
}

func routeLines(live []*srcFile, rank []float64) []string {
	var out []string
	for _, i := range rankOrder(rank, live) {
		f := live[i]
		if isTestFile(f.rel) {
			continue
		}
		for _, r := range f.info.Routes {
			out = append(out, fmt.Sprintf("  %s:%d %s %q", f.rel, r.Line, r.Call, r.Pattern))
			if len(out) == 8 {
				return out
			}
		}
	}
	return out
}

// importLines names the most imported units: Go packages by directory,
// other files by path.
func importLines(live []*srcFile, imports [][]int32, goDeps map[string]map[string]bool) []string {
	by := map[string]map[string]bool{}
	for to, from := range goDeps {
		by[dirLabel(to)] = map[string]bool{}
		for f := range from {
			by[dirLabel(to)][dirLabel(f)] = true
		}
	}
	for i, targets := range imports {
		if len(targets) == 0 || isTestFile(live[i].rel) {
			continue
		}
		from := live[i].rel
		for _, t := range targets {
			to := live[t].rel
			if by[to] == nil {
				by[to] = map[string]bool{}
			}
			by[to][from] = true
		}
	}
	var units []string
	for u := range by {
		units = append(units, u)
	}
	slices.SortFunc(units, func(a, b string) int {
		if c := cmp.Compare(len(by[b]), len(by[a])); c != 0 {
			return c
		}
		return strings.Compare(a, b)
	})
	var out []string
	for _, u := range units[:min(6, len(units))] {
		var from []string
		for f := range by[u] {
			from = append(from, f)
		}
		slices.Sort(from)
		line := fmt.Sprintf("  %s ← %d: %s", u, len(from), strings.Join(from[:min(4, len(from))], " "))
		if len(from) > 4 {
			line += " …"
		}
		out = append(out, line)
	}
	return out
}

func dirLabel(d string) string {
	if d == "" {
		return "./"
	}
	return d + "/"
}
