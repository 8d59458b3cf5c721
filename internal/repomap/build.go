package repomap

import (
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
)

// Personalization weights of the PageRank seeds.
const (
	seedMention  = 3.0 // identifier named in the request, shared by its definers
	seedPath     = 3.0 // path named in the request
	seedStem     = 1.0 // file stem named in the request
	seedFocus    = 3.0
	seedConv     = 2.0
	seedRecent   = 0.5
	mentionBonus = 100.0 // added to the score of a named definition
	parentBonus  = 30.0  // added to the members of a named type or class
	queryDamping = 0.7   // PageRank damping when the request seeds the ranking
	testFileMul  = 0.3   // weight of definitions in test files
	fieldMul     = 0.2   // weight of a Go struct field not named in the request
)

func (b *Builder) build(ctx context.Context, opts Options) (*Map, error) {
	if opts.Root == "" {
		return nil, errors.New("repomap: Options.Root is empty")
	}
	root, err := filepath.Abs(opts.Root)
	if err != nil {
		return nil, fmt.Errorf("repomap: root: %w", err)
	}
	if r, err := filepath.EvalSymlinks(root); err == nil {
		root = r
	}
	if fi, err := os.Stat(root); err != nil {
		return nil, fmt.Errorf("repomap: root: %w", err)
	} else if !fi.IsDir() {
		return nil, fmt.Errorf("repomap: root %s is not a directory", root)
	}
	budget := opts.Tokens
	if budget <= 0 {
		budget = DefaultTokens
	}
	workers := opts.Workers
	if workers <= 0 {
		workers = 2
	}
	// The tokenizer's vocabulary is loaded first, while the heap is small:
	// loaded beside the walk (and, tried, the snapshot's read beside it
	// too), a warm build's heap peaked 2-4 MiB higher and took one more
	// collection, for no measurable wall time.
	ctr, err := getCounter(opts.Encoding)
	if err != nil {
		return nil, err
	}

	tr, err := walk(ctx, root)
	if err != nil {
		return nil, err
	}
	layout := newGoLayout(root, tr.others, goDirs(tr.sources))
	ri := b.index(root, layout.key)
	ss, _ := opts.Cache.(SnapshotStore)
	if ss != nil && ri.snap == snapUnknown {
		b.readSnapshot(ctx, ss, root, layout.key, ri)
	}
	// the git recency runs beside the parse (once the snapshot has brought
	// back the history it kept)
	recentc := goValue(func() (map[string]float64, error) { return b.history.recent(ctx, root), nil })
	defer recentc.wait()
	st, err := b.load(ctx, tr.sources, ri, layout, opts.Cache, workers)
	if err != nil {
		return nil, err
	}
	if fl, ok := opts.Cache.(Flusher); ok {
		if err := fl.Flush(); err != nil {
			return nil, fmt.Errorf("repomap: flush cache: %w", err)
		}
	}

	var live []*srcFile
	for _, f := range tr.sources {
		if f.info != nil && f.info.Skipped == "" {
			live = append(live, f)
		}
	}
	comp := make([]*compiled, len(live))
	for i, f := range live {
		comp[i] = f.comp
	}
	n := b.in.n()
	muls := b.in.muls[:n:n]
	r := &run{root: root, opts: opts, live: live, comp: comp, ids: n, name: b.in.name, qi: parseQuery(opts.Query)}
	gitRecent, _ := recentc.wait()
	// The snapshot is written beside the ranking and the rendering, which
	// only read the index and the table (the history it keeps is read by
	// now).
	var snapw *future[struct{}]
	if ss != nil && ctx.Err() == nil && b.snapshotStale(root, ri, len(tr.sources)) {
		snapw = goValue(func() (struct{}, error) { return struct{}{}, b.writeSnapshot(ctx, ss, root, ri) })
		defer snapw.wait()
	}
	r.personalize(tr, gitRecent)

	res := newResolver(live)
	imports := make([][]int32, len(live))
	for i := range live {
		imports[i] = res.resolve(i)
	}
	queryMode := len(r.mention) > 0 || len(r.qi.paths) > 0 || len(opts.Focus) > 0
	damping := 0.85
	if queryMode {
		damping = queryDamping // stay nearer the request's seeds
	}
	rk := rank(rankInput{comp: comp, ids: n, muls: muls, mention: r.mention, chat: r.chat,
		imports: imports, pers: r.pers, damping: damping, idf: queryMode})
	cands := r.candidates(rk, min(max(budget/2, 200), 5000))

	share := 0.3
	if queryMode {
		share = 0.15
	}
	var shown []*srcFile // the newcomer section describes what the map shows
	var shownRank []float64
	var shownImports [][]int32
	for i, f := range live {
		if !f.info.Generated {
			shown = append(shown, f)
			shownRank = append(shownRank, rk.fileRank[i])
			shownImports = append(shownImports, imports[i])
		}
	}
	if len(shown) < len(live) {
		shownImports = newResolver(shown).resolveAll()
	}
	items := newcomerItems(seedInput{
		rootName: filepath.Base(root), root: root, all: tr.sources, live: shown, rank: shownRank,
		others: tr.others, imports: shownImports, goDeps: goDeps(shown, layout), recent: r.recent, skipped: st.skipped,
	})
	ft := fit(ctr, budget, share, items, &mapRenderer{live: live, cands: cands, fileRank: rk.fileRank})
	if ft.files == nil {
		ft.files = []File{}
	}
	if snapw != nil {
		if _, err := snapw.wait(); err != nil {
			return nil, err
		}
	}
	return &Map{
		Budget: budget,
		Tokens: ft.tokens,
		Files:  ft.files,
		Text:   ft.text,
		Stats:  Stats{Files: len(tr.sources), Parsed: st.parsed, Cached: st.cached, Skipped: st.skipped + st.generated, Generated: st.generated},
	}, nil
}

// goDirs lists the directories holding Go sources.
func goDirs(sources []*srcFile) []string {
	var out []string
	seen := map[string]bool{}
	for _, f := range sources {
		if d := relDir(f.rel); f.lang == "go" && !seen[d] {
			seen[d] = true
			out = append(out, d)
		}
	}
	return out
}

// run holds one Build's ranking inputs.
type run struct {
	root string
	opts Options
	live []*srcFile
	comp []*compiled
	ids  int                   // number of interned ids
	name func(id int32) string // bare name of an id
	qi   queryInfo

	focus, conv, chat []bool
	pers              []float64
	mention           map[int32]float64  // by id: strength of the request's mention
	mentionByName     map[string]float64 // the same by bare name
	mentionDefs       map[string]int     // files defining each named identifier
	recent            []string
}

// personalize seeds the PageRank: focus and conversation files, the
// definers of identifiers and the files whose paths the request names,
// and recently changed files (gr, the git history's recency, then mtimes).
func (r *run) personalize(tr *tree, gr map[string]float64) {
	n := len(r.live)
	r.focus, r.conv, r.chat = make([]bool, n), make([]bool, n), make([]bool, n)
	r.pers = make([]float64, n)
	index := make(map[string]int, n)
	for i, f := range r.live {
		index[f.rel] = i
	}
	for _, p := range r.opts.Focus {
		if i, ok := index[relTo(r.root, p)]; ok {
			r.focus[i], r.chat[i] = true, true
			r.pers[i] += seedFocus
		}
	}
	for _, p := range r.opts.Conversation {
		if i, ok := index[relTo(r.root, p)]; ok {
			r.conv[i], r.chat[i] = true, true
			r.pers[i] += seedConv
		}
	}

	r.mention, r.mentionByName, r.mentionDefs = map[int32]float64{}, map[string]float64{}, map[string]int{}
	if len(r.qi.exact) > 0 {
		seen := make([]bool, r.ids)
		for _, c := range r.comp {
			for _, id := range c.udefs {
				if !seen[id] {
					seen[id] = true
					if s := r.qi.mentionOf(r.name(id)); s > 0 {
						r.mention[id] = s
					}
				}
				if s, ok := r.mention[id]; ok {
					r.mentionDefs[r.name(id)]++
					r.mentionByName[r.name(id)] = s
				}
			}
		}
		for i, c := range r.comp {
			for _, id := range c.udefs {
				if s, ok := r.mention[id]; ok {
					// a name many files define says little about which one is meant
					r.pers[i] += seedMention * s / math.Pow(float64(r.mentionDefs[r.name(id)]), 1.5)
				}
			}
		}
	}
	seedPaths(r.qi, r.live, r.pers)

	recentW := seedRecent
	if len(r.qi.exact) > 0 || len(r.opts.Focus) > 0 {
		recentW *= 0.3
	}
	for rel, w := range gr {
		if i, ok := index[rel]; ok {
			r.pers[i] += recentW * min(w, 2)
		}
	}
	r.recent = topRecent(gr, 5)
	for _, rel := range mtimeRecent(tr.sources, 5) {
		if i, ok := index[rel]; ok {
			r.pers[i] += recentW
		}
		if !slices.Contains(r.recent, rel) {
			r.recent = append(r.recent, rel)
		}
	}
}

// candidates scores every definition and keeps the best k: the flow
// PageRank sends it (shared among the files defining the same name), a
// little of its file's rank, less for test files, private names and
// members' data, plus bonuses for names the request mentions and for the
// members of types it mentions.
func (r *run) candidates(rk ranking, k int) []cand {
	return topK(k, func(yield func(cand)) {
		for d, f := range r.live {
			if r.conv[d] && !r.focus[d] {
				continue // already in the conversation
			}
			fi := f.info
			defs := fi.defs
			base := 0.1 * rk.fileRank[d] / math.Sqrt(float64(len(defs)+1))
			if r.focus[d] {
				base += 1 / math.Sqrt(float64(len(defs)+1))
			}
			fileMul := 1.0
			if isTestFile(f.rel) && !r.focus[d] {
				fileMul = testFileMul // the tests section maps them; keep the skeleton
			}
			generated := fi.Generated
			for j := range defs {
				t := &defs[j]
				id := r.comp[d].defIDs[j]
				m, named := r.mention[id]
				if generated && !named {
					continue // generated code is indexed for lookup, not shown
				}
				name, kind := fi.name(t), fi.kind(t)
				s := rk.defScore[d][j]/math.Sqrt(float64(max(rk.defCount[id], 1))) + base
				s *= fileMul
				if private(name, f.lang) {
					s *= 0.5
				}
				if t.depth > 0 && weakKind(kind) {
					s *= 0.5
				}
				if kind == "field" {
					s *= fieldMul // fields are for lookup; their type stands for them
				}
				if named {
					if nd := r.mentionDefs[name]; m >= 1 || nd <= 3 {
						s += mentionBonus * m / float64(nd)
					}
				}
				if t.parN > 0 {
					if parent := fi.parent(t); parent != name {
						if m, ok := r.mentionByName[parent]; ok && m >= 0.5 {
							s += parentBonus * m
						}
					}
				}
				if s > 0 {
					yield(cand{f: int32(d), k: int32(j), score: s})
				}
			}
		}
	})
}

func relDir(rel string) string {
	if d := path.Dir(rel); d != "." {
		return d
	}
	return ""
}

// relTo turns a user-supplied path into a slash path relative to root.
func relTo(root, p string) string {
	if filepath.IsAbs(p) {
		if r, err := filepath.EvalSymlinks(p); err == nil {
			p = r
		}
		if rel, err := filepath.Rel(root, p); err == nil {
			return filepath.ToSlash(rel)
		}
	}
	return path.Clean(filepath.ToSlash(p))
}

// seedPaths personalizes files whose path or stem the request names.
func seedPaths(qi queryInfo, live []*srcFile, pers []float64) {
	for _, p := range qi.paths {
		var hits []int
		for i, f := range live {
			if f.rel == p || strings.HasSuffix(f.rel, "/"+p) || strings.HasPrefix(f.rel, strings.TrimSuffix(p, "/")+"/") {
				hits = append(hits, i)
			}
		}
		for _, i := range hits {
			pers[i] += seedPath / float64(len(hits))
		}
	}
	if len(qi.words) == 0 {
		return
	}
	hits := map[string][]int{}
	for i, f := range live {
		stem := strings.ToLower(testSubject(f.rel))
		if _, ok := qi.words[stem]; ok {
			hits[stem] = append(hits[stem], i)
		}
	}
	for w, is := range hits {
		for _, i := range is {
			pers[i] += seedStem * qi.words[w] / float64(len(is))
		}
	}
}

func private(name, lang string) bool {
	if name == "" {
		return false
	}
	if lang == "go" {
		return name[0] < 'A' || name[0] > 'Z'
	}
	return name[0] == '_' || name[0] == '#'
}

func topRecent(m map[string]float64, n int) []string {
	// the n best by weight, then name: a pass with a short sorted list
	// rather than a sort of the whole history
	if n <= 0 {
		return nil
	}
	better := func(a, b string) bool { return m[a] > m[b] || m[a] == m[b] && a < b }
	top := make([]string, 0, n+1)
	for k := range m {
		if len(top) == n && !better(k, top[n-1]) {
			continue
		}
		i := len(top)
		for i > 0 && better(k, top[i-1]) {
			i--
		}
		top = slices.Insert(top, i, k)
		if len(top) > n {
			top = top[:n]
		}
	}
	return top
}
