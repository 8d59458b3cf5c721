package repomap

import (
	"slices"
	"strconv"
	"strings"
	"sync"
	"unsafe"
)

// scanGo is the fast path of Go extraction: it yields the FileTags
// parseGo would, from one pass of lexGo's tokens instead of an AST. Only
// the declarations are read as a parser would (package clause, imports,
// the heads of funcs and methods, type, var and const specs); function
// bodies and initialisers are skipped by bracket matching, and the
// references are counted over the token stream: an identifier is a use of
// "Name", one after a "." a use of ".Name", and pkg.Name through an import
// a use of "import/path.Name", exactly as goRefs counts the AST's
// identifiers and selectors. TestScanGoMatchesParser holds the two to the
// same output on every file of GOROOT/src.
//
// The strings of t share src's memory, which the caller must not modify
// afterwards.
//
// ok is false when the source holds syntax this reading does not handle
// (a //line directive, an ambiguous generic type declaration, an import
// after a declaration, anything unexpected at the top level): the caller
// then parses the file with go/parser. refs false leaves Refs nil (a
// generated file's references are never ranked).
func scanGo(src []byte, refs bool) (t *FileTags, ok bool) {
	buf := tokPool.Get().(*[]gtok)
	defer tokPool.Put(buf)
	return scanGoWith(src, refs, buf, nil)
}

// scanGoWith is scanGo lexing into *buf, which it keeps grown for the next
// file (a parse worker owns one: a sync.Pool is emptied by every
// collection, and a cold build regrew its buffers by 84 MB), and filling
// reuse (nil: a new FileTags), whose slices and map it empties and
// refills: a FileTags handed back once the previous file it held was
// compacted and interned (see scratch).
func scanGoWith(src []byte, refs bool, buf *[]gtok, reuse *FileTags) (t *FileTags, ok bool) {
	s := unsafe.String(unsafe.SliceData(src), len(src)) // src is never written again: see readTags
	if n := len(src)/4 + 64; cap(*buf) < n {
		*buf = make([]gtok, 0, n) // one allocation, not a chain of doublings (Go averages ~5 bytes a token)
	}
	toks, ok := lexGo(s, (*buf)[:0])
	if cap(toks) <= maxPooledToks {
		*buf = toks[:0] // keep the grown buffer, unless a huge file grew it
	}
	if !ok {
		return nil, false
	}
	defer func() {
		if recover() != nil { // a reading this code did not foresee: go/parser decides
			t, ok = nil, false
		}
	}()
	p := &goScan{s: s, toks: toks[:len(toks)-4], t: &FileTags{Lang: "go", Engine: goEngine}}
	if reuse != nil {
		clear(reuse.Refs)
		*reuse = FileTags{Lang: "go", Engine: goEngine, Defs: reuse.Defs[:0], Imports: reuse.Imports[:0],
			Routes: reuse.Routes[:0], Refs: reuse.Refs}
		if !refs {
			reuse.Refs = nil
		}
		p.t = reuse
	}
	if !p.file(refs) {
		return nil, false
	}
	return p.t, true
}

// maxPooledToks bounds the token buffers kept for the next file (1 MiB).
const maxPooledToks = 64 << 10

var tokPool = sync.Pool{New: func() any { b := make([]gtok, 0, 4096); return &b }}

type goScan struct {
	s      string
	toks   []gtok // without the EOF sentinels (tok reads them)
	t      *FileTags
	defTok []int32           // token indices of the defined names, ascending
	imps   map[string]string // local package name -> import path
	bodies [][2]int          // token spans of the func bodies ({ and })
}

// tok returns token i, an EOF token past the end.
func (p *goScan) tok(i int) gtok {
	if i < len(p.toks) {
		return p.toks[i]
	}
	return gtok{off: int32(len(p.s)), end: int32(len(p.s))}
}

func (p *goScan) text(i int) string { t := p.toks[i]; return p.s[t.off:t.end] }

// span is the source text from token a to token b included.
func (p *goScan) span(a, b int) string { return p.s[p.toks[a].off:p.toks[b].end] }

// match returns the index of the token closing the bracket at i, -1 when
// it is not closed.
func (p *goScan) match(i int) int {
	depth := 0
	for j := i; j < len(p.toks); j++ {
		t := p.toks[j]
		if t.kind != tkOp {
			continue
		}
		switch t.op {
		case '(', '[', '{':
			depth++
		case ')', ']', '}':
			depth--
			if depth == 0 {
				return j
			}
		}
	}
	return -1
}

// until returns the index of the first token from i up to hi that is, at
// bracket depth 0, a ';' or one of stop (hi when there is none).
func (p *goScan) until(i, hi int, stop byte) int {
	for j := i; j < hi; j++ {
		t := p.toks[j]
		if t.kind != tkOp {
			continue
		}
		switch t.op {
		case '(', '[', '{':
			m := p.match(j)
			if m < 0 {
				panic("unclosed")
			}
			j = m
		case ';':
			return j
		case stop:
			if stop != 0 {
				return j
			}
		}
	}
	return hi
}

func (p *goScan) file(refs bool) bool {
	toks := p.toks
	if len(toks) < 2 || toks[0].kind != tkKeyword || toks[0].op != kwPackage || toks[1].kind != tkIdent {
		return false
	}
	p.t.Package = p.text(1)
	i := 2
	for i < len(toks) && toks[i].is(';') {
		i++
	}
	p.imps = map[string]string{}
	for i < len(toks) && toks[i].kind == tkKeyword && toks[i].op == kwImport {
		j, ok := p.imports(i)
		if !ok {
			return false
		}
		i = j
		for i < len(toks) && toks[i].is(';') {
			i++
		}
	}
	declStart := i
	for i < len(toks) {
		t := toks[i]
		var ok bool
		switch {
		case t.is(';'):
			i++
			continue
		case t.kind != tkKeyword:
			return false
		case t.op == kwFunc:
			i, ok = p.funcDecl(i)
		case t.op == kwType || t.op == kwVar || t.op == kwConst:
			i, ok = p.genDecl(i)
		default:
			return false
		}
		if !ok {
			return false
		}
	}
	if refs {
		p.refs(declStart) // and the routes, in the same pass
	} else {
		p.routes()
	}
	return true
}

// imports reads the import declaration at i and returns the index after it.
func (p *goScan) imports(i int) (int, bool) {
	spec := func(a, b int) bool {
		if a == b {
			return true
		}
		name := ""
		if t := p.toks[a]; t.kind == tkIdent || t.is('.') {
			name = p.text(a)
			a++
		}
		if b != a+1 || p.toks[a].kind != tkString {
			return false
		}
		path, err := strconv.Unquote(p.text(a))
		if err != nil {
			return true // as go/parser's reading: left out
		}
		p.t.Imports = append(p.t.Imports, path)
		local := goPkgName(path)
		if name != "" {
			local = name
		}
		if local != "_" && local != "." {
			p.imps[local] = path
		}
		return true
	}
	if !p.tok(i + 1).is('(') {
		end := p.until(i+1, len(p.toks), 0)
		return end, spec(i+1, end)
	}
	hi := p.match(i + 1)
	if hi < 0 {
		return 0, false
	}
	for j := i + 2; j < hi; {
		end := p.until(j, hi, 0)
		if !spec(j, end) {
			return 0, false
		}
		j = end + 1
	}
	return hi + 1, true
}

// add records the definition named by token at (skipped for "_").
func (p *goScan) add(at int, kind, sig, parent string, depth int) {
	name := p.text(at)
	if name == "_" {
		return
	}
	p.defTok = append(p.defTok, int32(at))
	p.t.Defs = append(p.t.Defs, Tag{Name: name, Kind: kind, Line: int(p.toks[at].line), Signature: oneLine(sig, maxSig), Parent: parent, Depth: depth})
}

// funcDecl reads the func or method declaration at i.
func (p *goScan) funcDecl(i int) (int, bool) {
	j := i + 1
	recv, hasRecv := "", false
	if p.tok(j).is('(') {
		m := p.match(j)
		if m < 0 {
			return 0, false
		}
		if m > j+1 {
			var ok bool
			if recv, ok = p.recvName(j+1, m); !ok {
				return 0, false
			}
			hasRecv = true
		}
		j = m + 1
	}
	name := j
	if p.tok(name).kind != tkIdent {
		return 0, false
	}
	j++
	if p.tok(j).is('[') {
		if j = p.match(j); j < 0 {
			return 0, false
		}
		j++
	}
	if !p.tok(j).is('(') {
		return 0, false
	}
	if j = p.match(j); j < 0 {
		return 0, false
	}
	j++
	// the result, then the body's { or the ; of a declaration without one
	body := -1
	for ; j < len(p.toks); j++ {
		t := p.toks[j]
		if t.kind != tkOp {
			continue
		}
		if t.op == ';' {
			break
		}
		if t.op == '{' && !(j > 0 && p.toks[j-1].kind == tkKeyword && (p.toks[j-1].op == kwStruct || p.toks[j-1].op == kwInterface)) {
			body = j
			break
		}
		if t.op == '(' || t.op == '[' || t.op == '{' {
			if j = p.match(j); j < 0 {
				return 0, false
			}
		} else if t.op == ')' || t.op == ']' || t.op == '}' {
			return 0, false
		}
	}
	var sig string
	next := j
	if body >= 0 {
		sig = strings.TrimSpace(p.s[p.toks[i].off:p.toks[body].off])
		end := p.match(body)
		if end < 0 {
			return 0, false
		}
		p.bodies = append(p.bodies, [2]int{body, end})
		next = end + 1
	} else {
		sig = p.span(i, j-1)
	}
	if hasRecv {
		p.add(name, "method", sig, recv, 0)
	} else {
		p.add(name, "func", sig, "", 0)
		if p.text(name) == "main" && p.t.Package == "main" {
			p.t.Main = true
		}
	}
	return next, true
}

// recvName is recvName of the receiver in tokens [a, b).
func (p *goScan) recvName(a, b int) (string, bool) {
	k := a
	if t := p.toks[k]; t.kind == tkIdent && k+1 < b {
		switch n := p.toks[k+1]; {
		case n.kind == tkIdent || n.is('*') || n.is('('):
			k++ // the receiver's name
		case n.is(','):
			return "", false
		}
	}
	for ; k < b; k++ {
		t := p.toks[k]
		switch {
		case t.is('*') || t.is('('):
		case t.kind == tkIdent:
			if p.toks[k+1].is('.') {
				return "", true
			}
			return p.text(k), true
		default:
			return "", true
		}
	}
	return "", true
}

// genDecl reads the type, var or const declaration at i.
func (p *goScan) genDecl(i int) (int, bool) {
	kw := p.toks[i].op
	spec := p.valueSpec
	if kw == kwType {
		spec = p.typeSpec
	}
	word := p.text(i)
	if !p.tok(i + 1).is('(') {
		end := p.until(i+1, len(p.toks), 0)
		return end, spec(word, i+1, end)
	}
	hi := p.match(i + 1)
	if hi < 0 {
		return 0, false
	}
	for j := i + 2; j < hi; {
		end := p.until(j, hi, 0)
		if end > j && !spec(word, j, end) {
			return 0, false
		}
		j = end + 1
	}
	return hi + 1, true
}

// typeSpec reads the type spec in tokens [a, b), as addType does.
func (p *goScan) typeSpec(_ string, a, b int) bool {
	if p.toks[a].kind != tkIdent {
		return false
	}
	name := a
	tname := p.text(a)
	head := "type " + tname
	k := a + 1
	if k < b && p.toks[k].is('[') {
		m := p.match(k)
		if m < 0 || m >= b {
			return false
		}
		if m > k+1 { // [] is a slice type
			generic, ok := p.typeParams(k)
			if !ok {
				return false
			}
			if generic {
				head += p.span(k, m)
				k = m + 1
			}
		}
	}
	if k < b && p.toks[k].is('=') {
		head += " ="
		k++
	}
	if k >= b {
		return false
	}
	t := p.toks[k]
	if t.kind == tkKeyword && (t.op == kwStruct || t.op == kwInterface) && p.tok(k+1).is('{') {
		rb := p.match(k + 1)
		if rb != b-1 {
			return false
		}
		if t.op == kwStruct {
			p.add(name, "type", head+" struct", "", 0)
			return p.fields(tname, k+2, rb)
		}
		p.add(name, "type", head+" interface", "", 0)
		return p.methods(tname, k+2, rb)
	}
	p.add(name, "type", head+" "+p.span(k, b-1), "", 0)
	return true
}

// typeParams tells a type parameter list from an array length at the [
// of token k, as go/parser would; ok false when it cannot tell.
func (p *goScan) typeParams(k int) (generic, ok bool) {
	t1, t2 := p.tok(k+1), p.tok(k+2)
	if t1.kind != tkIdent {
		return false, t1.kind == tkLit
	}
	switch {
	case t2.is(']') || t2.is('.'):
		return false, true
	case t2.kind == tkIdent || t2.is(',') || t2.is('~'):
		return true, true
	case t2.kind == tkKeyword && t2.op != kwSemi:
		return true, true // [T interface{...}], [T func()], [T map[K]V], [T chan E], [T struct{...}]
	case t2.is('[') && p.tok(k+3).is(']'):
		return true, true // [T []E]
	}
	return false, false
}

// fields reads the field declarations of a struct type in tokens [a, b).
func (p *goScan) fields(parent string, a, b int) bool {
	for j := a; j < b; {
		end := p.until(j, b, 0)
		if end > j && !p.field(parent, j, end) {
			return false
		}
		j = end + 1
	}
	return true
}

func (p *goScan) field(parent string, a, b int) bool {
	t := p.toks[a]
	if t.is('*') {
		return true // embedded
	}
	if t.kind != tkIdent {
		return false
	}
	next := p.tok(a + 1)
	if a+1 == b || next.kind == tkString || next.is('.') {
		return true // embedded
	}
	names := []int{a}
	ts := a + 1
	switch {
	case next.is('['):
		m := p.match(a + 1)
		if m < 0 || m >= b {
			return false
		}
		if m+1 == b || p.toks[m+1].kind == tkString {
			return true // an embedded instance T[A]
		}
	case next.is(','):
		for ts < b && p.toks[ts].is(',') {
			if p.tok(ts+1).kind != tkIdent {
				return false
			}
			names = append(names, ts+1)
			ts += 2
		}
	}
	te := b - 1
	if p.toks[te].kind == tkString {
		te-- // the tag
	}
	if te < ts {
		return false
	}
	typ := p.span(ts, te)
	for _, n := range names {
		p.add(n, "field", p.text(n)+" "+typ, parent, 1)
	}
	return true
}

// methods reads the elements of an interface type in tokens [a, b): its
// methods are definitions, embedded types and unions are not.
func (p *goScan) methods(parent string, a, b int) bool {
	for j := a; j < b; {
		end := p.until(j, b, 0)
		if end > j && p.toks[j].kind == tkIdent && p.toks[j+1].is('(') {
			p.add(j, "method", p.span(j, end-1), parent, 1)
		}
		j = end + 1
	}
	return true
}

// valueSpec reads the var or const spec in tokens [a, b), as valueSig does.
func (p *goScan) valueSpec(kw string, a, b int) bool {
	names := []int{}
	k := a
	for {
		if k >= b || p.toks[k].kind != tkIdent {
			return false
		}
		names = append(names, k)
		k++
		if k < b && p.toks[k].is(',') {
			k++
			continue
		}
		break
	}
	typ := ""
	if k < b && !p.toks[k].is('=') {
		e := p.until(k, b, '=')
		typ = " " + p.span(k, e-1)
		k = e
	}
	var values [][2]int
	if k < b {
		if !p.toks[k].is('=') {
			return false
		}
		for j := k + 1; ; {
			e := p.until(j, b, ',')
			if e == j {
				return false
			}
			values = append(values, [2]int{j, e - 1})
			if e >= b {
				break
			}
			j = e + 1
		}
	}
	for i, n := range names {
		sig := kw + " " + p.text(n) + typ
		if len(values) == len(names) {
			sig += " = " + oneLine(p.span(values[i][0], values[i][1]), 60)
		}
		p.add(n, kw, sig, "", 0)
	}
	return true
}

// refs counts the references of the tokens from i on, as goRefs counts
// the AST's, and finds the routes (see routes) in the same pass.
func (p *goScan) refs(i int) {
	toks := p.toks
	refs := p.t.Refs // a reused FileTags' map, emptied
	if refs == nil {
		refs = make(map[string]int, 64)
	}
	defs := p.defTok
	if !slices.IsSorted(defs) {
		slices.Sort(defs)
	}
	d, b := 0, 0
	bodies := p.bodies
	inBody := func(x int) bool { // x never decreases from call to call
		for b < len(bodies) && bodies[b][1] <= x {
			b++
		}
		return b < len(bodies) && x > bodies[b][0]
	}
	for x := i; x < len(toks); x++ {
		t := toks[x]
		if t.kind != tkIdent {
			continue
		}
		for d < len(defs) && int(defs[d]) < x {
			d++
		}
		name := p.s[t.off:t.end]
		if x > 0 && toks[x-1].is('.') {
			if toks[x-1].end == t.off {
				refs[p.s[t.off-1:t.end]]++
			} else {
				refs["."+name]++
			}
			if inBody(x) {
				p.route(x)
			}
			continue
		}
		if p.tok(x+1).is('.') && p.tok(x+2).kind == tkIdent {
			if path, ok := p.imps[name]; ok {
				refs[path+"."+p.text(x+2)]++
				if inBody(x + 2) {
					p.route(x + 2)
				}
				x += 2
				continue
			}
		}
		if d < len(defs) && int(defs[d]) == x {
			continue
		}
		refs[name]++
	}
	for k := range refs { // cheaper than asking two tables for every use
		if k[0] != '.' && (keywordish[k] || goPredeclared[k]) {
			delete(refs, k)
		}
	}
	p.t.Refs = refs
}

// routes finds the x.Handle("/path", ...)-style registrations in the func
// bodies, as goRoutes does.
func (p *goScan) routes() {
	for _, b := range p.bodies {
		for x := b[0] + 1; x < b[1] && len(p.t.Routes) < 50; x++ {
			if p.toks[x].kind == tkIdent && p.toks[x-1].is('.') {
				p.route(x)
			}
		}
	}
}

// route records the registration whose method is token x (an identifier
// after a "." inside a func body), if it is one, while fewer than 50 are.
func (p *goScan) route(x int) {
	if len(p.t.Routes) >= 50 || !p.tok(x+1).is('(') || p.tok(x+2).kind != tkString ||
		!p.tok(x+3).is(',') || p.tok(x+4).is(')') || !goRouteCalls[p.text(x)] {
		return
	}
	pat, err := strconv.Unquote(p.text(x + 2))
	if err != nil || !routeLike(pat) {
		return
	}
	recv := ""
	if x >= 2 && p.toks[x-2].kind == tkIdent && (x < 3 || !p.toks[x-3].is('.')) {
		recv = p.text(x-2) + "."
	}
	p.t.Routes = append(p.t.Routes, Route{Line: int(p.toks[p.operandStart(x-2)].line), Pattern: pat, Call: recv + p.text(x)})
}

// operandStart walks back from token j, the end of a selector's operand,
// to the operand's first token.
func (p *goScan) operandStart(j int) int {
	for j > 0 {
		t := p.toks[j]
		switch {
		case t.kind == tkIdent || t.kind == tkString || t.kind == tkLit:
			if !p.toks[j-1].is('.') || j < 2 {
				return j
			}
			j -= 2
		case t.is(')') || t.is(']') || t.is('}'):
			open := p.open(j)
			if open <= 0 {
				return max(open, 0)
			}
			if b := p.toks[open-1]; b.kind == tkIdent || b.is(')') || b.is(']') || b.is('}') {
				j = open - 1
				continue
			}
			return open
		default:
			return j
		}
	}
	return j
}

// open returns the index of the token opening the bracket closed at j.
func (p *goScan) open(j int) int {
	depth := 0
	for ; j >= 0; j-- {
		t := p.toks[j]
		if t.kind != tkOp {
			continue
		}
		switch t.op {
		case ')', ']', '}':
			depth++
		case '(', '[', '{':
			depth--
			if depth == 0 {
				return j
			}
		}
	}
	return -1
}
