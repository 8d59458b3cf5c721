package policy

import "strings"

// Glob matching. Two kinds of patterns exist:
//
//   - command patterns: `*` matches any run of characters, spaces and slashes
//     included; everything else is literal (`\*` is a literal star). A
//     pattern ending in " *" also matches the command without arguments
//     ("ls *" matches "ls").
//   - path patterns: `*` and `?` stay within one path segment, `[...]` is a
//     character class, a `**` segment spans any number of directories.
//
// The candidate strings we match against may carry placeholders for the
// parts of a shell word that are only known at run time:
//
//   - dynByte (0x00): a parameter expansion, command substitution, brace
//     expansion...: any string at all.
//   - globByte (0x02): an unquoted glob metacharacter: any string within a
//     path segment that does not start with '.' at the segment start.
//
// An allow rule must match universally (for every value of the placeholders:
// each placeholder has to be swallowed by a `*` of the pattern); a deny rule
// matches existentially (for some value).

const (
	dynByte  = 0x00
	starByte = 0x01 // a `*` in a compiled command pattern
	globByte = 0x02
)

func isHole(c byte) bool { return c == dynByte || c == globByte }

func hasHole(s string) bool {
	for i := 0; i < len(s); i++ {
		if isHole(s[i]) {
			return true
		}
	}
	return false
}

// cmdPattern is a compiled command pattern.
type cmdPattern struct {
	p    string // literal bytes and starByte
	bare string // p without its trailing " *", or "" if it has none
	// line: the pattern holds shell operators (`curl * | bash`), so it
	// describes a whole command line, never one simple command.
	line bool
	// name: the literal first word (the command it names), "" if that
	// holds a star.
	name string
}

func compileCmdPattern(s string) cmdPattern {
	b := make([]byte, 0, len(s))
	space := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			space = true
			continue
		case c == '\\' && i+1 < len(s) && (s[i+1] == '*' || s[i+1] == '\\'):
			i++
			c = s[i]
		case c == '*':
			c = starByte
		}
		if space && len(b) > 0 {
			b = append(b, ' ')
		}
		space = false
		b = append(b, c)
	}
	cp := cmdPattern{p: string(b), line: strings.ContainsAny(s, "|;&<>`") || strings.Contains(s, "$(")}
	cp.name = firstWord(cp.p)
	if n := len(b); n >= 2 && b[n-1] == starByte && b[n-2] == ' ' {
		cp.bare = string(b[:n-2])
	}
	return cp
}

// matchAll: does the pattern match the candidate for every value of its holes?
func (cp cmdPattern) matchAll(s string) bool {
	return starMatch(cp.p, s) || (cp.bare != "" && starMatch(cp.bare, s))
}

// matchAny: does the pattern match the candidate for some value of its holes?
func (cp cmdPattern) matchAny(s string) bool {
	if !hasHole(s) {
		return cp.matchAll(s)
	}
	return starMatchAny(cp.p, s) || (cp.bare != "" && starMatchAny(cp.bare, s))
}

// starMatch is the classic linear-time glob match with a single wildcard.
// Holes in s are only matched by a star of p (p never contains hole bytes).
func starMatch(p, s string) bool {
	px, sx := 0, 0
	nextPx, nextSx := -1, 0
	for px < len(p) || sx < len(s) {
		if px < len(p) {
			c := p[px]
			if c == starByte {
				nextPx, nextSx = px, sx+1
				px++
				continue
			}
			if sx < len(s) && s[sx] == c {
				px++
				sx++
				continue
			}
		}
		if nextPx >= 0 && nextSx <= len(s) {
			px, sx = nextPx+1, nextSx
			nextSx++
			continue
		}
		return false
	}
	return true
}

// starMatchAny decides whether some string is matched both by p (stars) and
// by s (holes), by dynamic programming from the ends.
func starMatchAny(p, s string) bool {
	// Literal ends must agree up to the first star or hole: most candidates
	// are rejected here without the quadratic table.
	for len(p) > 0 && len(s) > 0 && p[0] != starByte && !isHole(s[0]) {
		if p[0] != s[0] {
			return false
		}
		p, s = p[1:], s[1:]
	}
	for len(p) > 0 && len(s) > 0 && p[len(p)-1] != starByte && !isHole(s[len(s)-1]) {
		if p[len(p)-1] != s[len(s)-1] {
			return false
		}
		p, s = p[:len(p)-1], s[:len(s)-1]
	}
	lp, ls := len(p), len(s)
	w := ls + 1
	var stack [512]bool
	var m []bool
	if (lp+1)*w <= len(stack) {
		m = stack[:(lp+1)*w]
	} else {
		m = make([]bool, (lp+1)*w)
	}
	for i := lp; i >= 0; i-- {
		for j := ls; j >= 0; j-- {
			var v bool
			switch {
			case i == lp && j == ls:
				v = true
			default:
				if i < lp && p[i] == starByte {
					v = m[(i+1)*w+j] || (j < ls && m[i*w+j+1])
				}
				if !v && j < ls && isHole(s[j]) {
					v = m[i*w+j+1] || (i < lp && m[(i+1)*w+j])
				}
				if !v && i < lp && j < ls && p[i] != starByte && !isHole(s[j]) && p[i] == s[j] {
					v = m[(i+1)*w+j+1]
				}
			}
			m[i*w+j] = v
		}
	}
	return m[0]
}

// Path patterns.

type tokKind uint8

const (
	tLit tokKind = iota
	tAny1
	tStar
	tClass
)

type ptok struct {
	kind  tokKind
	c     byte
	class string // tClass: the set, ranges as "a-z"
	neg   bool
}

// pathPattern is a compiled path pattern: segments, nil for a `**` segment.
type pathPattern struct {
	lit      string // a literal run every matching relative path contains (prefilter)
	segs     [][]ptok
	rooted   bool // started with "/" or "~/": matches absolute or home paths only
	anywhere bool // a single segment without "/": matches a segment at any depth
}

func compileSeg(s string) ([]ptok, error) {
	var out []ptok
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch c {
		case '*':
			if len(out) == 0 || out[len(out)-1].kind != tStar {
				out = append(out, ptok{kind: tStar})
			}
		case '?':
			out = append(out, ptok{kind: tAny1})
		case '\\':
			if i+1 < len(s) {
				i++
			}
			out = append(out, ptok{kind: tLit, c: s[i]})
		case '[':
			j := i + 1
			t := ptok{kind: tClass}
			if j < len(s) && (s[j] == '!' || s[j] == '^') {
				t.neg = true
				j++
			}
			start := j
			if j < len(s) && s[j] == ']' {
				j++
			}
			for j < len(s) && s[j] != ']' {
				j++
			}
			if j >= len(s) {
				return nil, errUnclosedClass
			}
			t.class = s[start:j]
			out = append(out, t)
			i = j
		default:
			out = append(out, ptok{kind: tLit, c: c})
		}
	}
	return out, nil
}

func (t ptok) matchByte(c byte) bool {
	switch t.kind {
	case tLit:
		return t.c == c
	case tAny1:
		return c != '/'
	case tClass:
		in := false
		cl := t.class
		for k := 0; k < len(cl); k++ {
			if k+2 < len(cl) && cl[k+1] == '-' {
				if cl[k] <= c && c <= cl[k+2] {
					in = true
				}
				k += 2
				continue
			}
			if cl[k] == c {
				in = true
			}
		}
		return in != t.neg
	}
	return false
}

// segMatch decides whether some string matches both the segment pattern p
// and the candidate segment s (whose globByte holes match any run of
// characters; a hole at the start cannot produce a leading '.').
func segMatch(p []ptok, s string) bool {
	lp, ls := len(p), len(s)
	w := ls + 1
	var stack [512]bool
	var m []bool
	if (lp+1)*w <= len(stack) {
		m = stack[:(lp+1)*w]
	} else {
		m = make([]bool, (lp+1)*w)
	}
	for i := lp; i >= 0; i-- {
		for j := ls; j >= 0; j-- {
			var v bool
			if i == lp && j == ls {
				v = true
			} else {
				if i < lp && p[i].kind == tStar {
					v = m[(i+1)*w+j] || (j < ls && m[i*w+j+1])
				}
				if !v && j < ls && isHole(s[j]) {
					v = m[i*w+j+1]
					if !v && i < lp && !(j == 0 && s[j] == globByte && p[i].kind == tLit && p[i].c == '.') {
						v = m[(i+1)*w+j]
					}
				}
				if !v && i < lp && j < ls && p[i].kind != tStar && !isHole(s[j]) && p[i].matchByte(s[j]) {
					v = m[(i+1)*w+j+1]
				}
			}
			m[i*w+j] = v
		}
	}
	return m[0]
}

// matchSegs decides whether the pattern segments match the path segments
// (with prefix, also a parent directory of the path), by dynamic
// programming so that several `**` stay linear in the path's depth.
func matchSegs(pat [][]ptok, segs []string, prefix bool) bool {
	P, N := len(pat), len(segs)
	w := N + 1
	var stack [256]bool
	var m []bool
	if (P+1)*w <= len(stack) {
		m = stack[:(P+1)*w]
	} else {
		m = make([]bool, (P+1)*w)
	}
	for j := 0; j <= N; j++ {
		m[P*w+j] = j == N || (prefix && j > 0)
	}
	for i := P - 1; i >= 0; i-- {
		for j := N; j >= 0; j-- {
			if pat[i] == nil { // **
				m[i*w+j] = m[(i+1)*w+j] || (j < N && m[i*w+j+1])
			} else {
				m[i*w+j] = j < N && m[(i+1)*w+j+1] && segMatch(pat[i], segs[j])
			}
		}
	}
	return m[0]
}

// match reports whether the pattern names the path (given as segments) or one
// of its parent directories.
func (pp *pathPattern) match(segs []string) bool {
	if pp.anywhere {
		for _, s := range segs {
			if segMatch(pp.segs[0], s) {
				return true
			}
		}
		return false
	}
	return len(segs) > 0 && matchSegs(pp.segs, segs, true)
}
