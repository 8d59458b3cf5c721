package policy

import (
	"strings"
	"sync"

	"mvdan.cc/sh/v3/syntax"
)

// A static reading of a command line: every simple command it can run
// (inside lists, pipes, subshells, blocks, if/for/while/case bodies, function
// bodies, $(...), `...`, <(...), here-documents, `bash -c` strings, eval,
// xargs, find -exec and command wrappers), every file it redirects to, and
// whatever makes it impossible to know in advance what it will run.

// maxDepth bounds nested parsing (bash -c "bash -c '...'").
const maxDepth = 8

var parsers = sync.Pool{New: func() any { return syntax.NewParser(syntax.Variant(syntax.LangBash)) }}

// entry is one simple command found in a command line.
type entry struct {
	src       string   // the source text, for messages
	text      string   // the words joined by one space, holes as placeholders: matched by allow and deny rules
	needAllow bool     // must match an allow rule for the line to be auto-allowed
	alt       []string // more candidates for deny rules (/bin/rm -> rm, RM -> rm)
	unknown   string   // non-empty: what it runs is only known at run time (why)
	writes    []string // words that may name files it writes
	// words: the command's words; words[1:] may name files it reads. Deny
	// rules also read words[1:scanEnd] as where another command may start
	// (the command is not known to leave its arguments unexecuted).
	words   []string
	scanEnd int
	via     string // how the command runs when another one runs it ("sed's e command")
}

// redir is a file a redirection (or an option like find -fprint) writes or reads.
type redir struct {
	target string // the word, with holes
	src    string
	why    string // for an option that writes: what it is ("sort -o writes its output to the file")
}

type analysis struct {
	entries  []entry
	writes   []redir  // file-writing redirections
	reads    []redir  // input redirections from files
	blockers []string // reasons the line can never be auto-allowed
	parseErr error
}

type analyzer struct {
	an *analysis
	// loose: reading a word that only may be shell code (an argument of an
	// unknown command): entries are kept for deny rules, nothing else.
	loose bool
}

// analyze reads a command line.
func analyze(cmd string) *analysis {
	a := &analyzer{an: &analysis{}}
	seps, ticks := 0, 0 // about one simple command per separator, $( and `...`
	for i := 0; i < len(cmd); i++ {
		switch c := cmd[i]; c {
		case 0, starByte, globByte:
			a.an.parseErr = errControlByte
			return a.an
		case '&', '|':
			if i+1 < len(cmd) && cmd[i+1] == c {
				i++ // && and || separate once
			}
			seps++
		case ';', '\n', '(':
			seps++
		case '`':
			ticks++
		}
	}
	a.an.entries = make([]entry, 0, 4+seps+ticks/2)
	a.parse(cmd, &callCtx{})
	return a.an
}

type parseError string

func (e parseError) Error() string { return string(e) }

const errControlByte = parseError("the command contains a NUL or control byte")

func (a *analyzer) unknown(src, why string) {
	a.an.entries = append(a.an.entries, entry{src: src, unknown: why})
}

// parse reads shell code; c gives the depth, denyOnly and via of what runs it.
func (a *analyzer) parse(src string, c *callCtx) {
	depth, denyOnly := c.depth, c.denyOnly
	if depth > maxDepth {
		a.unknown(src, "shell strings nested too deeply to read")
		return
	}
	parser := parsers.Get().(*syntax.Parser)
	f, err := parser.Parse(strings.NewReader(src), "")
	parsers.Put(parser) // Parse drops its node batches on reset: f stays ours
	if err != nil {
		if depth == 0 {
			a.an.parseErr = err
			return
		}
		a.unknown(src, "the inner shell string does not parse")
		return
	}
	syntax.Walk(f, func(n syntax.Node) bool {
		switch n := n.(type) {
		case *syntax.Lit, *syntax.SglQuoted, nil:
			return false
		case *syntax.Stmt:
			a.redirects(n, src)
			if call, ok := n.Cmd.(*syntax.CallExpr); ok && len(call.Args) > 0 {
				words := make([]string, len(call.Args))
				for i, w := range call.Args {
					words[i] = wordText(w)
				}
				a.simple(words, &callCtx{st: n, src: snippet(src, call), depth: depth, denyOnly: denyOnly, via: c.via})
			}
		case *syntax.Assign:
			if n.Name != nil && dangerousVar(n.Name.Value) {
				a.an.blockers = append(a.an.blockers, "it sets "+n.Name.Value+", which changes what later commands run")
			}
			if n.Name != nil && n.Value != nil {
				a.assignment(n.Name.Value, wordText(n.Value), &callCtx{src: snippet(src, n), depth: depth, denyOnly: denyOnly, via: c.via})
			}
			if n.Index != nil && arithUsesValues(n.Index) {
				a.unknown(snippet(src, n), "array subscripts are evaluated as arithmetic and can run commands")
			}
		case *syntax.ArrayElem:
			if n.Index != nil && arithUsesValues(n.Index) {
				a.unknown(snippet(src, n), "array subscripts are evaluated as arithmetic and can run commands")
			}
		case *syntax.UnaryTest:
			if n.Op == syntax.TsVarSet || n.Op == syntax.TsRefVar {
				if w, ok := n.X.(*syntax.Word); ok && (subscriptCode(wordText(w)) || hasHole(wordText(w))) {
					a.unknown(snippet(src, n), "-v evaluates an array subscript, which can run commands")
				}
			}
		case *syntax.DeclClause:
			a.decl(n, src, denyOnly)
		case *syntax.ArithmCmd, *syntax.ArithmExp, *syntax.LetClause, *syntax.CStyleLoop:
			if arithUsesValues(n) {
				a.unknown(snippet(src, n), "arithmetic on variables or command output can run commands")
			}
		case *syntax.ParamExp:
			switch {
			case (n.Index != nil && !simpleIndex(n.Index)) || (n.Slice != nil && (arithUsesValues(n.Slice.Offset) || arithUsesValues(n.Slice.Length))):
				a.unknown(snippet(src, n), "array subscripts are evaluated as arithmetic and can run commands")
			case n.Excl && n.Names == 0 && n.Index == nil:
				a.unknown(snippet(src, n), "an indirect expansion can evaluate a subscript that runs commands")
			case n.Exp != nil && n.Exp.Op == syntax.OtherParamOps && n.Exp.Word != nil && strings.Contains(n.Exp.Word.Lit(), "P"):
				a.unknown(snippet(src, n), "a prompt expansion (@P) can run commands")
			}
		case *syntax.BinaryTest:
			if n.Op >= syntax.TsEql && n.Op <= syntax.TsGtr && (arithUsesValues(n.X) || arithUsesValues(n.Y)) {
				a.unknown(snippet(src, n), "[[ ]] arithmetic on variables or command output can run commands")
			}
		}
		return true
	})
}

type callCtx struct {
	st       *syntax.Stmt
	src      string
	depth    int
	denyOnly bool   // the command runs under a wrapper an allow rule already has to cover (sudo)
	via      string // what runs this code, for reasons ("sed's e command")
}

func snippet(src string, n syntax.Node) string {
	s, e := int(n.Pos().Offset()), int(n.End().Offset())
	if s < 0 || e > len(src) || s > e {
		return src
	}
	return strings.TrimRight(src[s:e], " \t;&")
}

var devNull = map[string]bool{"/dev/null": true, "/dev/stdout": true, "/dev/stderr": true}

func (a *analyzer) redirects(st *syntax.Stmt, src string) {
	for _, r := range st.Redirs {
		if r.Word == nil {
			continue
		}
		if t := wordText(r.Word); strings.HasPrefix(t, "/dev/tcp/") || strings.HasPrefix(t, "/dev/udp/") {
			a.an.blockers = append(a.an.blockers, quote(snippet(src, st))+" opens a network connection")
		}
		switch r.Op {
		case syntax.RdrOut, syntax.AppOut, syntax.RdrClob, syntax.RdrAll, syntax.RdrAllClob,
			syntax.AppAll, syntax.AppAllClob, syntax.RdrInOut, syntax.DplOut:
			t := wordText(r.Word)
			if devNull[t] {
				continue
			}
			if r.Op == syntax.DplOut && (t == "-" || isDigits(t)) {
				continue // >&2, 2>&1, >&-
			}
			a.an.writes = append(a.an.writes, redir{target: t, src: snippet(src, st)})
			if r.Op == syntax.RdrInOut {
				a.an.reads = append(a.an.reads, redir{target: t, src: snippet(src, st)})
			}
		case syntax.RdrIn:
			a.an.reads = append(a.an.reads, redir{target: wordText(r.Word), src: snippet(src, st)})
		}
	}
}

// subscriptCode: a word naming an array element whose subscript holds an
// expansion ('a[$(cmd)]'): builtins that take variable names (test -v,
// printf -v, read, unset...) evaluate it and run cmd.
func subscriptCode(w string) bool {
	i := strings.IndexByte(w, '[')
	return i >= 0 && strings.ContainsAny(w[i:], "$`")
}

func isDigits(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// decl handles declare/export/local/readonly/typeset: plain assignments are
// neutral; options (declare -i evaluates arithmetic, -n makes references)
// make it a command an allow rule has to cover.
func (a *analyzer) decl(d *syntax.DeclClause, src string, denyOnly bool) {
	words := []string{d.Variant.Value}
	opts := false
	for _, as := range d.Args {
		if as.Naked && as.Name == nil && as.Value != nil {
			t := wordText(as.Value)
			if hasHole(t) {
				a.an.blockers = append(a.an.blockers, d.Variant.Value+" with a name computed at run time")
			}
			if strings.HasPrefix(t, "-") || strings.HasPrefix(t, "+") {
				opts = true
			}
			if subscriptCode(t) {
				a.unknown(snippet(src, d), "an array subscript in a declaration is evaluated and can run commands")
			}
			words = append(words, t)
		}
	}
	if opts {
		all := strings.Join(words, " ")
		a.an.entries = append(a.an.entries, entry{src: snippet(src, d), text: all, needAllow: !denyOnly})
	}
}

// dangerousVar: variables whose value decides what other programs run or
// load. Setting one makes a line impossible to auto-allow.
func dangerousVar(name string) bool {
	switch name {
	case "PATH", "BASH_ENV", "ENV", "IFS", "PS4", "SHELLOPTS", "BASHOPTS", "PROMPT_COMMAND", "CDPATH",
		"PAGER", "MANPAGER", "EDITOR", "VISUAL", "SSH_ASKPASS", "NODE_OPTIONS", "PYTHONSTARTUP",
		"PYTHONPATH", "PYTHONHOME", "PERL5OPT", "PERL5LIB", "PERLLIB", "RUBYOPT", "RUBYLIB",
		"JAVA_TOOL_OPTIONS", "_JAVA_OPTIONS", "GOFLAGS", "CC", "CXX", "LESSOPEN", "LESSCLOSE", "TAR_OPTIONS",
		"LESS", "MANOPT", "PS0", "PS1", "PS2", "PS3", "SUDO_ASKPASS", "SYSTEMD_PAGER", "FCEDIT", "BROWSER",
		"RSYNC_RSH", "RSYNC_CONNECT_PROG", "CVS_RSH", "BAT_PAGER", "DELTA_PAGER", "GH_EDITOR", "GH_PAGER", "GH_BROWSER":
		return true
	}
	return strings.HasPrefix(name, "LD_") || strings.HasPrefix(name, "DYLD_") ||
		strings.HasPrefix(name, "GIT_") || strings.HasPrefix(name, "BASH_FUNC_")
}

// arithUsesValues: does an arithmetic (or test) expression read a variable
// or command output? Bash evaluates such values as expressions again, and
// `a[$(cmd)]` inside a value runs cmd.
func arithUsesValues(n syntax.Node) bool {
	if n == nil {
		return false
	}
	found := false
	syntax.Walk(n, func(m syntax.Node) bool {
		switch m := m.(type) {
		case *syntax.ParamExp, *syntax.CmdSubst, *syntax.ProcSubst:
			found = true
		case *syntax.Lit:
			if !numericLit(m.Value) {
				found = true
			}
		}
		return !found
	})
	return found
}

func numericLit(s string) bool {
	if s == "" {
		return true
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= '0' && c <= '9' || c == 'x' || c == 'X' || c == '#' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F') {
			return false
		}
	}
	return s[0] >= '0' && s[0] <= '9'
}

func simpleIndex(x syntax.ArithmExpr) bool {
	if w, ok := x.(*syntax.Word); ok {
		if l := w.Lit(); l == "@" || l == "*" {
			return true
		}
	}
	return !arithUsesValues(x)
}

// wordText renders a shell word as the string the command will receive,
// quotes removed, with dynByte for every part known only at run time and
// globByte for unquoted glob metacharacters. A brace expansion ({a,b},
// {1..3}) makes the whole word one dynByte: it may become several words.
func wordText(w *syntax.Word) string {
	if braceLike(w) {
		return string(rune(dynByte))
	}
	if len(w.Parts) == 1 {
		if l, ok := w.Parts[0].(*syntax.Lit); ok && plainLit(l.Value) {
			return l.Value
		}
	}
	var b strings.Builder
	for _, part := range w.Parts {
		switch p := part.(type) {
		case *syntax.Lit:
			unquotedLit(&b, p.Value)
		case *syntax.SglQuoted:
			if p.Dollar {
				ansiC(&b, p.Value)
			} else {
				b.WriteString(p.Value)
			}
		case *syntax.DblQuoted:
			for _, q := range p.Parts {
				if l, ok := q.(*syntax.Lit); ok {
					dquotedLit(&b, l.Value)
				} else {
					b.WriteByte(dynByte)
				}
			}
		default:
			b.WriteByte(dynByte)
		}
	}
	return b.String()
}

func plainLit(s string) bool {
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '\\', '*', '?', '[':
			return false
		}
	}
	return true
}

func unquotedLit(b *strings.Builder, v string) {
	for i := 0; i < len(v); i++ {
		c := v[i]
		switch c {
		case '\\':
			if i+1 < len(v) {
				i++
				b.WriteByte(v[i])
			}
		case '*', '?':
			b.WriteByte(globByte)
		case '[':
			if k := strings.IndexByte(v[i+1:], ']'); k > 0 {
				b.WriteByte(globByte)
				i += k + 1
			} else {
				b.WriteByte(c)
			}
		default:
			b.WriteByte(c)
		}
	}
}

func dquotedLit(b *strings.Builder, v string) {
	for i := 0; i < len(v); i++ {
		c := v[i]
		if c == '\\' && i+1 < len(v) && strings.IndexByte("$`\"\\\n", v[i+1]) >= 0 {
			i++
			c = v[i]
		}
		b.WriteByte(c)
	}
}

// ansiC decodes a $'...' string.
func ansiC(b *strings.Builder, v string) {
	hexv := func(c byte) int {
		switch {
		case c >= '0' && c <= '9':
			return int(c - '0')
		case c >= 'a' && c <= 'f':
			return int(c-'a') + 10
		case c >= 'A' && c <= 'F':
			return int(c-'A') + 10
		}
		return -1
	}
	put := func(r rune) {
		if r <= globByte {
			b.WriteByte(dynByte)
			return
		}
		b.WriteRune(r)
	}
	for i := 0; i < len(v); i++ {
		c := v[i]
		if c != '\\' || i+1 >= len(v) {
			b.WriteByte(c)
			continue
		}
		i++
		switch e := v[i]; e {
		case 'n':
			put('\n')
		case 't':
			put('\t')
		case 'r':
			put('\r')
		case 'a':
			put(7)
		case 'b':
			put(8)
		case 'f':
			put(12)
		case 'v':
			put(11)
		case 'e', 'E':
			put(27)
		case 'c':
			if i+1 < len(v) {
				i++
				put(rune(v[i] & 0x1f))
			}
		case 'x', 'u', 'U':
			max := map[byte]int{'x': 2, 'u': 4, 'U': 8}[e]
			n, k := 0, 0
			for k < max && i+1 < len(v) && hexv(v[i+1]) >= 0 {
				i++
				n = n*16 + hexv(v[i])
				k++
			}
			if k == 0 {
				b.WriteByte('\\')
				b.WriteByte(e)
			} else if e == 'x' {
				if n <= globByte {
					b.WriteByte(dynByte)
				} else {
					b.WriteByte(byte(n))
				}
			} else {
				put(rune(n))
			}
		case '0', '1', '2', '3', '4', '5', '6', '7':
			n := int(e - '0')
			for k := 1; k < 3 && i+1 < len(v) && v[i+1] >= '0' && v[i+1] <= '7'; k++ {
				i++
				n = n*8 + int(v[i]-'0')
			}
			if n <= globByte {
				b.WriteByte(dynByte)
			} else {
				b.WriteByte(byte(n))
			}
		default: // \\ \' \" \? and unknown escapes
			if strings.IndexByte("\\'\"?", e) < 0 {
				b.WriteByte('\\')
			}
			b.WriteByte(e)
		}
	}
}

// braceLike reports an unquoted brace expansion: '{' then ',' or '..' then '}'.
func braceLike(w *syntax.Word) bool {
	open, sep := false, false
	for _, part := range w.Parts {
		l, ok := part.(*syntax.Lit)
		if !ok {
			continue
		}
		v := l.Value
		for i := 0; i < len(v); i++ {
			switch v[i] {
			case '\\':
				i++
			case '{':
				open, sep = true, false
			case ',':
				sep = sep || open
			case '.':
				if open && i+1 < len(v) && v[i+1] == '.' {
					sep = true
				}
			case '}':
				if open && sep {
					return true
				}
				open = false
			}
		}
	}
	return false
}
