package repomap

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// A token-level reading of Go source: what scanGo (goscan.go) needs to
// find the declarations and count the references without building an
// AST. It follows the language's lexical rules (identifiers, keywords,
// literals, comments, operators and the automatic semicolons) and gives up
// (ok false) on anything it does not recognise, so that the caller falls
// back to go/parser.

// Token kinds.
const (
	tkEOF uint8 = iota
	tkIdent
	tkString // interpreted or raw string literal
	tkLit    // number or rune literal
	tkKeyword
	tkOp // operator or punctuation; which one is in gtok.op
)

// Keywords scanGo tells apart (the others are kwOther).
const (
	kwOther uint8 = iota + 1
	kwFunc
	kwType
	kwVar
	kwConst
	kwImport
	kwPackage
	kwStruct
	kwInterface
	kwSemi // break, continue, fallthrough, return: a newline after them ends the statement
)

// Operator codes of gtok.op besides the single characters ( ) [ ] { } , ;
// . = * ~ | : that keep their own byte.
const (
	opDefine   = 'D' // :=
	opEllipsis = 'E' // ...
	opOther    = 'o' // every other operator
)

// gtok is one token: its byte span in the source, its line, kind and, for
// operators and keywords, which one.
type gtok struct {
	off, end int32
	line     int32
	kind     uint8
	op       byte // tkOp: the operator; tkKeyword: the kw* constant
}

func (t gtok) is(op byte) bool { return t.kind == tkOp && t.op == op }

// keywordOf returns the kw* constant of a Go keyword, 0 for an identifier.
func keywordOf(w string) uint8 {
	switch len(w) {
	case 2:
		if w == "if" || w == "go" {
			return kwOther
		}
	case 3:
		switch w {
		case "var":
			return kwVar
		case "for", "map":
			return kwOther
		}
	case 4:
		switch w {
		case "func":
			return kwFunc
		case "type":
			return kwType
		case "case", "chan", "else", "goto":
			return kwOther
		}
	case 5:
		switch w {
		case "const":
			return kwConst
		case "break":
			return kwSemi
		case "defer", "range":
			return kwOther
		}
	case 6:
		switch w {
		case "import":
			return kwImport
		case "struct":
			return kwStruct
		case "return":
			return kwSemi
		case "select", "switch":
			return kwOther
		}
	case 7:
		switch w {
		case "package":
			return kwPackage
		case "default":
			return kwOther
		}
	case 8:
		if w == "continue" {
			return kwSemi
		}
	case 9:
		if w == "interface" {
			return kwInterface
		}
	case 11:
		if w == "fallthrough" {
			return kwSemi
		}
	}
	return 0
}

var identByte = func() (t [256]bool) {
	for c := 'a'; c <= 'z'; c++ {
		t[c] = true
	}
	for c := 'A'; c <= 'Z'; c++ {
		t[c] = true
	}
	for c := '0'; c <= '9'; c++ {
		t[c] = true
	}
	t['_'] = true
	return t
}()

// lexGo appends the tokens of s to toks, then four EOF tokens (so that a
// reader may look a few tokens ahead without bounds checks). ok is false
// when s holds something the lexer does not handle.
func lexGo(s string, toks []gtok) (_ []gtok, ok bool) {
	line := int32(1)
	semi := false // a newline here ends the statement
	n := len(s)
	i := 0
	if strings.HasPrefix(s, "\uFEFF") {
		i = 3
	}
	for i < n {
		c := s[i]
		switch {
		case c == '\n':
			if semi {
				toks = append(toks, gtok{off: int32(i), end: int32(i), line: line, kind: tkOp, op: ';'})
				semi = false
			}
			line++
			i++
		case c == ' ' || c == '\t' || c == '\r':
			i++
		case identByte[c] && (c < '0' || c > '9'):
			j := i + 1
			for j < n && identByte[s[j]] {
				j++
			}
			if j < n && s[j] >= utf8.RuneSelf {
				j = identTail(s, j)
			}
			if kw := keywordOf(s[i:j]); kw != 0 {
				toks = append(toks, gtok{off: int32(i), end: int32(j), line: line, kind: tkKeyword, op: kw})
				semi = kw == kwSemi
			} else {
				toks = append(toks, gtok{off: int32(i), end: int32(j), line: line, kind: tkIdent, op: 0})
				semi = true
			}
			i = j
		case c >= utf8.RuneSelf:
			r, _ := utf8.DecodeRuneInString(s[i:])
			if !unicode.IsLetter(r) {
				return toks, false
			}
			j := identTail(s, i)
			toks = append(toks, gtok{off: int32(i), end: int32(j), line: line, kind: tkIdent, op: 0})
			semi = true
			i = j
		case c >= '0' && c <= '9' || c == '.' && i+1 < n && s[i+1] >= '0' && s[i+1] <= '9':
			j := numberEnd(s, i)
			toks = append(toks, gtok{off: int32(i), end: int32(j), line: line, kind: tkLit, op: 0})
			semi = true
			i = j
		case c == '"' || c == '\'':
			j, ok := quotedEnd(s, i)
			if !ok {
				return toks, false
			}
			kind := tkString
			if c == '\'' {
				kind = tkLit
			}
			toks = append(toks, gtok{off: int32(i), end: int32(j), line: line, kind: kind, op: 0})
			semi = true
			i = j
		case c == '`':
			k := strings.IndexByte(s[i+1:], '`')
			if k < 0 {
				return toks, false
			}
			j := i + 1 + k
			toks = append(toks, gtok{off: int32(i), end: int32(j + 1), line: line, kind: tkString, op: 0})
			line += int32(strings.Count(s[i:j], "\n"))
			semi = true
			i = j + 1
		case c == '/' && i+1 < n && s[i+1] == '/':
			if (i == 0 || s[i-1] == '\n') && strings.HasPrefix(s[i:], "//line ") {
				return toks, false // a line directive: go/parser's lines would differ
			}
			k := strings.IndexByte(s[i:], '\n')
			if k < 0 {
				i = n
			} else {
				i += k // the newline ends the statement as usual
			}
		case c == '/' && i+1 < n && s[i+1] == '*':
			if strings.HasPrefix(s[i:], "/*line ") {
				return toks, false
			}
			k := strings.Index(s[i+2:], "*/")
			if k < 0 {
				return toks, false
			}
			if nl := strings.Count(s[i+2:i+2+k], "\n"); nl > 0 {
				if semi {
					toks = append(toks, gtok{off: int32(i), end: int32(i), line: line, kind: tkOp, op: ';'})
					semi = false
				}
				line += int32(nl)
			}
			i += k + 4
		default:
			op, w := opAt(s, i)
			if op == 0 {
				return toks, false
			}
			toks = append(toks, gtok{off: int32(i), end: int32(i + w), line: line, kind: tkOp, op: op})
			semi = op == ')' || op == ']' || op == '}'
			if op == '+' || op == '-' { // ++ or --: it ends a statement
				toks[len(toks)-1].op = opOther
				semi = true
			}
			i += w
		}
	}
	if semi {
		toks = append(toks, gtok{off: int32(n), end: int32(n), line: line, kind: tkOp, op: ';'})
	}
	for range 4 {
		toks = append(toks, gtok{off: int32(n), end: int32(n), line: line})
	}
	return toks, true
}

// identTail returns the end of the identifier whose remaining bytes start
// at j (letters and digits, Unicode included).
func identTail(s string, j int) int {
	for j < len(s) {
		c := s[j]
		if c < utf8.RuneSelf {
			if !identByte[c] {
				break
			}
			j++
			continue
		}
		r, w := utf8.DecodeRuneInString(s[j:])
		if !unicode.IsLetter(r) && !unicode.IsDigit(r) {
			break
		}
		j += w
	}
	return j
}

// numberEnd returns the end of the number literal at i.
func numberEnd(s string, i int) int {
	hex := len(s) > i+1 && s[i] == '0' && (s[i+1] == 'x' || s[i+1] == 'X')
	j := i + 1
	for j < len(s) {
		c := s[j]
		switch {
		case identByte[c] || c == '.':
			j++
		case (c == '+' || c == '-') && !hex && (s[j-1] == 'e' || s[j-1] == 'E'),
			(c == '+' || c == '-') && hex && (s[j-1] == 'p' || s[j-1] == 'P'):
			j++
		default:
			return j
		}
	}
	return j
}

// opAt reads the operator at s[i]: its code (0 when there is none) and
// width. "++" and "--" come back as '+' and '-' (lexGo turns them into
// opOther after noting the automatic semicolon they allow).
func opAt(s string, i int) (byte, int) {
	c := s[i]
	next := func(k int) byte {
		if i+k < len(s) {
			return s[i+k]
		}
		return 0
	}
	switch c {
	case '(', ')', '[', ']', '{', '}', ',', ';', '~':
		return c, 1
	case '.':
		if next(1) == '.' && next(2) == '.' {
			return opEllipsis, 3
		}
		return '.', 1
	case ':':
		if next(1) == '=' {
			return opDefine, 2
		}
		return ':', 1
	case '=':
		if next(1) == '=' {
			return opOther, 2
		}
		return '=', 1
	case '+', '-':
		switch next(1) {
		case c:
			return c, 2
		case '=':
			return opOther, 2
		}
		return opOther, 1
	case '*', '|':
		if next(1) == '=' || c == '|' && next(1) == '|' {
			return opOther, 2
		}
		return c, 1
	case '/', '%', '^', '!':
		if next(1) == '=' {
			return opOther, 2
		}
		return opOther, 1
	case '&':
		switch {
		case next(1) == '^' && next(2) == '=':
			return opOther, 3
		case next(1) == '&' || next(1) == '^' || next(1) == '=':
			return opOther, 2
		}
		return opOther, 1
	case '<', '>':
		switch {
		case next(1) == c && next(2) == '=':
			return opOther, 3
		case next(1) == c || next(1) == '=' || c == '<' && next(1) == '-':
			return opOther, 2
		}
		return opOther, 1
	}
	return 0, 0
}

// quotedEnd returns the end (past the closing quote) of the interpreted
// string or rune literal opening at s[i]; false for one a newline or the
// end of the text cuts.
func quotedEnd(s string, i int) (int, bool) {
	q := s[i]
	for j := i + 1; j < len(s); j++ {
		switch s[j] {
		case q:
			return j + 1, true
		case '\\':
			j++
		case '\n':
			return 0, false
		}
	}
	return 0, false
}
