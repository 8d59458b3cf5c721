package redact

import (
	"bytes"
	"math"
)

// Character classes used by the hand-written scanners.
const (
	cLower  uint16 = 1 << iota // a-z
	cUpper                     // A-Z
	cDigit                     // 0-9
	cUnder                     // _
	cDash                      // -
	cPlus                      // +
	cSlash                     // /
	cEq                        // =
	cDot                       // .
	cHexLow                    // 0-9a-f
	cSpace                     // space, tab
	cNL                        // \r, \n
	cQuote                     // " ' `

	cAlpha  = cLower | cUpper
	cAlnum  = cAlpha | cDigit
	cIdent  = cAlnum | cUnder
	cB64    = cAlnum | cPlus | cSlash        // standard base64 alphabet
	cB64URL = cAlnum | cUnder | cDash        // URL-safe base64 alphabet
	cToken  = cAlnum | cUnder | cDash | cDot // typical token characters
	cKey    = cAlnum | cUnder | cDash | cDot // characters of a key name
	cWS     = cSpace | cNL                   // any whitespace
	cTokenX = cToken | cPlus | cSlash | cEq  // token chars incl. base64 extras
)

var ctab [256]uint16

func init() {
	for c := 'a'; c <= 'z'; c++ {
		ctab[c] |= cLower
	}
	for c := 'A'; c <= 'Z'; c++ {
		ctab[c] |= cUpper
	}
	for c := '0'; c <= '9'; c++ {
		ctab[c] |= cDigit | cHexLow
	}
	for c := 'a'; c <= 'f'; c++ {
		ctab[c] |= cHexLow
	}
	ctab['_'] |= cUnder
	ctab['-'] |= cDash
	ctab['+'] |= cPlus
	ctab['/'] |= cSlash
	ctab['='] |= cEq
	ctab['.'] |= cDot
	ctab[' '] |= cSpace
	ctab['\t'] |= cSpace
	ctab['\r'] |= cNL
	ctab['\n'] |= cNL
	ctab['"'] |= cQuote
	ctab['\''] |= cQuote
	ctab['`'] |= cQuote
}

func is(c byte, class uint16) bool { return ctab[c]&class != 0 }

// spanOf returns the end of the run of bytes in class starting at i, looking
// at no more than max bytes.
func spanOf(b []byte, i int, class uint16, max int) int {
	lim := i + max
	if lim > len(b) || lim < i {
		lim = len(b)
	}
	for i < lim && ctab[b[i]]&class != 0 {
		i++
	}
	return i
}

// startOf returns the start of the run of bytes in class ending just before
// i, looking back no more than max bytes.
func startOf(b []byte, i int, class uint16, max int) int {
	lim := i - max
	if lim < 0 {
		lim = 0
	}
	for i > lim && ctab[b[i-1]]&class != 0 {
		i--
	}
	return i
}

// boundaryBefore reports whether the byte before i is not in class.
func boundaryBefore(b []byte, i int, class uint16) bool {
	return i == 0 || ctab[b[i-1]]&class == 0
}

// boundaryAfter reports whether the byte at i is not in class.
func boundaryAfter(b []byte, i int, class uint16) bool {
	return i >= len(b) || ctab[b[i]]&class == 0
}

// all reports whether every byte of v is in class.
func all(v []byte, class uint16) bool {
	for _, c := range v {
		if ctab[c]&class == 0 {
			return false
		}
	}
	return true
}

// classes returns the union of the classes of the bytes of v.
func classes(v []byte) uint16 {
	var m uint16
	for _, c := range v {
		m |= ctab[c]
	}
	return m
}

// diversity counts which of lower, upper, digit and other occur in v.
func diversity(v []byte) int {
	var lo, up, di, ot int
	for _, c := range v {
		switch t := ctab[c]; {
		case t&cLower != 0:
			lo = 1
		case t&cUpper != 0:
			up = 1
		case t&cDigit != 0:
			di = 1
		default:
			ot = 1
		}
	}
	return lo + up + di + ot
}

// entropy returns the Shannon entropy of v in bits per byte.
func entropy(v []byte) float64 {
	if len(v) == 0 {
		return 0
	}
	var counts [256]uint32
	for _, c := range v {
		counts[c]++
	}
	// Sum over the distinct bytes of v (visiting each once: its count is
	// cleared), not over all 256: values are short.
	n := float64(len(v))
	h := 0.0
	for _, c := range v {
		if k := counts[c]; k != 0 {
			counts[c] = 0
			p := float64(k) / n
			h -= p * math.Log2(p)
		}
	}
	return h
}

// lineEnd returns the index of the next newline at or after i, or the end of
// the window i+max.
func lineEnd(b []byte, i, max int) int {
	lim := i + max
	if lim > len(b) || lim < i {
		lim = len(b)
	}
	if j := bytes.IndexByte(b[i:lim], '\n'); j >= 0 {
		return i + j
	}
	return lim
}

// lineStart returns the index just after the previous newline before i, or
// the start of the window i-max.
func lineStart(b []byte, i, max int) int {
	lim := i - max
	if lim < 0 {
		lim = 0
	}
	if j := bytes.LastIndexByte(b[lim:i], '\n'); j >= 0 {
		return lim + j + 1
	}
	return lim
}

// skipSpaces skips spaces and tabs (not newlines) from i.
func skipSpaces(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t') {
		i++
	}
	return i
}

// hasPrefixFold reports whether b[i:] starts with the lowercase ASCII prefix p,
// ignoring case.
func hasPrefixFold(b []byte, i int, p string) bool {
	if len(b)-i < len(p) {
		return false
	}
	for k := 0; k < len(p); k++ {
		c := b[i+k]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != p[k] {
			return false
		}
	}
	return true
}

// hasPrefixAt reports whether b[i:] starts with p exactly.
func hasPrefixAt(b []byte, i int, p string) bool {
	return len(b)-i >= len(p) && string(b[i:i+len(p)]) == p
}

// containsFold reports whether v contains the lowercase ASCII word w,
// ignoring case.
func containsFold(v []byte, w string) bool {
	for i := 0; i+len(w) <= len(v); i++ {
		if hasPrefixFold(v, i, w) {
			return true
		}
	}
	return false
}

func lower(c byte) byte {
	if 'A' <= c && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}
