package redact

import (
	"bytes"
	"math"
)

// Assigned values: whether a value given to a secret-named key is a
// secret (genericValueOK, weakValueOK) or a name, a word, code, a path, a
// placeholder; and the entropy floors of random values (randomFloor).

// valueShapeOK rejects assigned values that are not secrets whatever their
// letters: placeholders, templates, paths, URLs, numbers, identifiers,
// member chains (unquoted); callers reject words as their tier requires.
func valueShapeOK(v []byte, quoted bool) bool {
	if len(v) < 8 || len(v) > maxGenericValue {
		return false
	}
	if bytes.HasPrefix(v, []byte("[REDACTED:")) {
		return false
	}
	switch v[0] {
	case '<', '{':
		return false // <your-key>, {{ templates }}, {json}
	case '%':
		if v[1] == '(' || v[1] == '{' || envRef(v) || namedWord(v[1:]) {
			return false // %(password)s, %{DB_PASS}, %DB_PASSWORD%, %PropertyName
		}
	case '$':
		if is(v[1], cAlpha|cUnder) || v[1] == '{' || v[1] == '(' {
			return false // $VAR, ${VAR}, $(cmd); bcrypt's $2b$... stays
		}
	case '/', '~', '.':
		if pathLike(v) {
			return false
		}
	case '+':
		if in := v[1 : len(v)-1]; v[len(v)-1] == '+' && (memberChain(in) || identLike(in) || codeName(in) || wordish(in)) {
			return false // "<token>"+name+"</token>": a concatenation
		}
	case '@', '#', '&', '!', '*', '-':
		if t := bytes.TrimLeft(v, "@#&!*-"); namedWord(t) {
			return false // @Annotation, #comment, &anchor, !tag, --flag
		}
	}
	if bytes.IndexByte(v, ' ') >= 0 || bytes.Contains(v, []byte("://")) || escapes(v) || bytes.Contains(v, []byte(`:\`)) ||
		bytes.Contains(v, []byte("{{")) || bytes.Contains(v, []byte("${")) || bytes.Contains(v, []byte("/*")) ||
		bytes.Contains(v, []byte("(?")) || bytes.Contains(v, []byte("]{")) {
		return false
	}
	var buf [maxGenericValue]byte
	lv := buf[:len(v)]
	for i, c := range v {
		lv[i] = lower(c)
	}
	for _, w := range placeholderFragmentBytes {
		if fragmentAt(v, lv, w) {
			return false
		}
	}
	if placeholderXs(v) {
		return false
	}
	m := classes(v)
	if m&^(cDigit|cHexLow) == 0 || numberLiteral(v) {
		return false // a number
	}
	if !quoted && memberChain(v) {
		return false // cfg.Token, os.Args, this.password
	}
	return true
}

// genericValueOK decides whether a value assigned to a secret-named key
// looks like a secret; pw says the key names a password.
func genericValueOK(v []byte, quoted, pw bool) bool {
	if !valueShapeOK(v, quoted) {
		return false
	}
	m := classes(v)
	if all(v, cAlpha) {
		// Letters only: an identifier (allNumericOrString) unless long and
		// random. A random base62 value of 24+ chars lacks digits rarely;
		// a password of letters only is redacted when its case is random
		// (tldVaOthVBjmqAAmsKpX, not PropTypes or AuthenticationRequired).
		if pw && len(v) >= 12 && (quoted || len(v) >= 16) && mixedCaseRandom(v) && entropy(v) >= 3.0 {
			return true
		}
		// 24 random letters of both cases have less than 4 bits of
		// entropy one time in five, less than 3.3 once in 100,000.
		return len(v) >= 24 && !wordish(v) && (entropy(v) >= 4.0 || mixedCaseRandom(v) && entropy(v) >= 3.3)
	}
	if wordish(v) || constantCase(v) || !pw && longWords(v) >= 3 && nameLike(v) || sequential(v) || qualifiedTypeName(v) {
		return false
	}
	if t := bytes.TrimRight(v, "."); !quoted && codeName(t) {
		return false // code: x = someName, Key: OtherName.
	}
	// Entropy floors sit below the 1e-6 quantile of random values of the
	// length (hex, base62, base64); words and code were excluded above.
	d := diversity(v)
	h := entropy(v)
	switch {
	case len(v) < 12:
		return d >= 3 && h >= 2.0 || pw && d >= 2 && h >= 2.0
	case len(v) < 20 && pw:
		// A password of lower case and digits (99zf1d199fzm) has less than
		// 2.5 bits once in 200 draws: gitleaks' floor for passwords is 2.
		return d >= 2 && h >= 2.0
	case len(v) < 20 || m&^(cDigit|cHexLow|cLower) == 0 && m&cLower != 0 && all(v, cHexLow):
		return d >= 2 && h >= 2.5
	default:
		return d >= 2 && h >= 2.8
	}
}

// mixedCaseRandom reports letters whose case is random, not that of
// words: between 15 % and 85 % of them upper case (AuthenticationRequired
// has 9 %, tldVaOthVBjmqAAmsKpX 40 %; a random 20-letter value falls
// outside with probability 4e-4).
func mixedCaseRandom(v []byte) bool {
	up := 0
	for _, c := range v {
		if is(c, cUpper) {
			up++
		}
	}
	return up*100 >= 15*len(v) && up*100 <= 85*len(v)
}

// nameLike reports names made of words and numbers joined by separators:
// build-linux-amd64, app.v2.cache, eu-west-1, urn:ietf:params:oauth, and
// "+name+" concatenations (a random value has segments that are not words).
func nameLike(v []byte) bool {
	segs := 0
	if !bytes.ContainsAny(v, nameSeps) {
		return false
	}
	for rest := v; len(rest) > 0; {
		var seg []byte
		seg, rest = cutAny(rest, nameSeps)
		if len(seg) == 0 {
			continue
		}
		segs++
		if all(seg, cDigit) {
			continue
		}
		w := seg
		for len(w) > 0 && is(w[len(w)-1], cDigit) {
			w = w[:len(w)-1]
		}
		if len(w) == 1 && is(w[0], cAlpha) {
			continue // us-central1-a
		}
		if !all(w, cAlpha) || !wordish(w) || !wordsOf(w) {
			return false
		}
	}
	return segs >= 1
}

// namedWord reports a name after a sigil (@SuppressWarnings, !GetAtt,
// %PropertyName, &db_anchor, --dry-run): words, and when of mixed case at
// most three camel-case pieces of 3.5 letters on average, as names are;
// random letters of mixed case (YMyxtUdozUmsUCixpEU, JrbcyNyqUMCweZixdoh)
// fall into more and shorter pieces even when each piece has a vowel.
func namedWord(t []byte) bool {
	if !wordish(t) || !wordsOf(t) {
		return false
	}
	if m := classes(t); m&cUpper == 0 || m&cLower == 0 {
		return true
	}
	letters, pieces := camelPieces(t)
	return pieces <= 3 && (letters*2 >= pieces*7 || letters <= 6)
}

// camelPieces counts the alphanumerics of v and its camel-case pieces
// (nextWord).
func camelPieces(v []byte) (letters, pieces int) {
	for rest := v; len(rest) > 0; {
		var p []byte
		p, rest = nextWord(rest)
		if len(p) == 0 {
			break
		}
		pieces++
		letters += len(p)
	}
	return letters, pieces
}

// wordsOf reports letters whose camel-case pieces are all wordParts.
func wordsOf(w []byte) bool {
	for rest := w; len(rest) > 0; {
		var p []byte
		p, rest = nextWord(rest)
		if len(p) == 0 {
			break
		}
		if !wordPart(p) {
			return false
		}
	}
	return true
}

// longWords counts the runs of four or more letters of v.
func longWords(v []byte) int {
	n, run := 0, 0
	for i := 0; i <= len(v); i++ {
		if i < len(v) && is(v[i], cAlpha) {
			run++
			continue
		}
		if run >= 4 {
			n++
		}
		run = 0
	}
	return n
}

// constantCase reports CONSTANT_CASE names (S2A_ACCESS_TOKEN): the name of
// a variable that holds the secret, not the secret.
func constantCase(v []byte) bool {
	return bytes.IndexByte(v, '_') > 0 && all(v, cUpper|cDigit|cUnder) && !is(v[0], cDigit)
}

// nameSeps join the words of a name (and the pieces of a concatenation).
const nameSeps = "-_./:#@+,;="

// weakValueOK decides whether a value assigned to a key that is only
// named like one (storage_key, signingKey, auth) is a secret: it must be as
// random as a generated key of its alphabet and length.
func weakValueOK(v []byte, quoted bool) bool {
	// Keys are made of a token alphabet (base64, base64url, hex, base32):
	// a value with commas, dots or other signs is a tag, a path or prose.
	if len(v) < 16 || !all(v, cAlnum|cPlus|cSlash|cEq|cUnder|cDash) || !valueShapeOK(v, quoted) ||
		wordish(v) || identLike(v) || codeName(v) || nameLike(v) || sequential(v) {
		return false
	}
	m := classes(v)
	if all(v, cAlpha) && (len(v) < 20 || m&cUpper == 0 || m&cLower == 0) {
		return false
	}
	return diversity(v) >= 2 && entropy(v) >= randomFloor(v, weakFloor)
}

// Entropy floors as fractions of the expected entropy of a random value
// (randomFloor): for a value under a key-like name, and for one that a
// vendor prefix or a vendor-named key already marks, where the floor only
// turns away placeholders (0000…, xxxx…, abab…). TestRandomFloorQuantiles
// measures what they cost on random values.
const (
	weakFloor   = 0.75
	markedFloor = 0.55
)

// randomFloor is the entropy floor for v as a random string: the fraction
// frac of the expected entropy of len(v) uniform draws from the alphabet
// v's bytes suggest (digits, hex, lower case and digits, base62, base64),
// by the Miller-Madow estimate log2(k) - (k-1)/(2n ln 2), capped at log2(n).
func randomFloor(v []byte, frac float64) float64 {
	n := float64(len(v))
	// Separators (UUID dashes, dots) do not widen the alphabet.
	var buf [maxGenericValue]byte
	a := buf[:0]
	for _, c := range v[:min(len(v), maxGenericValue)] {
		if c != '-' && c != '.' && c != ':' {
			a = append(a, c)
		}
	}
	if len(a) > 0 {
		v = a
	}
	k := 64.0
	switch m := classes(v); {
	case all(v, cDigit):
		k = 10
	case hexLike(v):
		k = 16
	case all(v, cDigit|cLower), all(v, cDigit|cUpper):
		k = 36
	case all(v, cAlnum) && m != 0:
		k = 62
	}
	e := math.Log2(k) - (k-1)/(2*n*math.Ln2)
	return frac * min(e, math.Log2(n))
}

// hexLike reports hex digits of one case.
func hexLike(v []byte) bool {
	lo, up := true, true
	for _, c := range v {
		d := '0' <= c && c <= '9'
		lo = lo && (d || 'a' <= c && c <= 'f')
		up = up && (d || 'A' <= c && c <= 'F')
	}
	return lo || up
}

// sequential reports runs like 0123456789abcdef, abcdefghijkl, abcd1234
// or AbCdEF123 (in either case): random keys step by one from byte to
// byte rarely (a third of the 7 steps of 8 random characters do once in
// 2,300 draws, half of them once in 80,000).
func sequential(v []byte) bool {
	steps := 0
	for i := 1; i < len(v); i++ {
		if lower(v[i]) == lower(v[i-1])+1 {
			steps++
		}
	}
	return steps*2 >= len(v)
}

// placeholderFragments mark documentation values: "your-token-here",
// "<insert key>", "example-secret" (runs of x: placeholderXs).
var placeholderFragments = []string{
	"example", "placeholder", "dummy", "****", "####", "....", "redacted",
	"your_", "your-", "yourtoken", "yourkey", "yourpass", "changeme", "replace",
	"insert", "sample", "<", ">",
}

// placeholderXs reports the x's that stand for a value's characters
// (xxxxxxxx, sk-XXXX, AKIAXXXXXXXXXXXXXXXX, xxxx-xxxx): a run of one case,
// six or more long or four or more at an end of the value or beside a
// separator. Mixed case (uxXxxn) and short runs inside a random value are
// chance: one base64 value of 88 characters in 12,000 holds four x's of
// either case in a row.
func placeholderXs(v []byte) bool {
	for i := 0; i < len(v); {
		c := v[i]
		if c != 'x' && c != 'X' {
			i++
			continue
		}
		j := i
		for j < len(v) && v[j] == c {
			j++
		}
		if n := j - i; n >= 6 || n >= 4 && (i == 0 || j == len(v) || !is(v[i-1], cAlnum) || !is(v[j], cAlnum)) {
			return true
		}
		i = j
	}
	return false
}

// fragmentAt reports the placeholder fragment w (lower case) in v (lv is
// v in lower case) written as a word is: dummy, DUMMY, Dummy, not the
// random case of a random value (IoUHQ9%9DumMY?459).
func fragmentAt(v, lv, w []byte) bool {
	for off := 0; ; {
		i := bytes.Index(lv[off:], w)
		if i < 0 {
			return false
		}
		i += off
		if m := classes(v[i+1 : i+len(w)]); m&cUpper == 0 || m&cLower == 0 {
			return true
		}
		off = i + 1
	}
}

var placeholderFragmentBytes = func() [][]byte {
	out := make([][]byte, len(placeholderFragments))
	for i, w := range placeholderFragments {
		out[i] = []byte(w)
	}
	return out
}()

// escapes reports string escapes of non-ASCII text: "\u3299\ufe0f".
// It also reports \n, \t, \r and \\: a value that holds them is a
// format string, prose or a Windows path in a string literal.
func escapes(v []byte) bool {
	for i := 0; i+1 < len(v); i++ {
		if v[i] != '\\' {
			continue
		}
		switch v[i+1] {
		case 'n', 't', 'r', '\\':
			return true
		case 'u', 'U', 'x':
			if i+2 < len(v) && is(v[i+2], cHexLow|cUpper) {
				return true
			}
		}
	}
	return false
}

// numberLiteral reports signed decimal and hexadecimal literals: -0x3f879676.
func numberLiteral(v []byte) bool {
	v = bytes.TrimLeft(v, "+-")
	if len(v) > 2 && v[0] == '0' && (v[1] == 'x' || v[1] == 'X') {
		v = v[2:]
		for _, c := range v {
			if !is(c, cHexLow) && !('A' <= c && c <= 'F') && c != '_' {
				return false
			}
		}
		return true
	}
	return len(v) > 0 && all(v, cDigit|cDot|cUnder)
}

// pathLike reports file paths (/etc/ssl/private/server.key, ~/.config/app,
// ./certs/dev.pem) as opposed to base64 values that happen to start with a
// slash: most of a path's segments are words.
func pathLike(v []byte) bool {
	if !(v[0] == '/' || bytes.HasPrefix(v, []byte("~/")) || bytes.HasPrefix(v, []byte("./")) || bytes.HasPrefix(v, []byte("../"))) {
		return false
	}
	if bytes.ContainsAny(v, "+=") {
		return false
	}
	words, segs := 0, 0
	for rest := v; len(rest) > 0; {
		seg, tail := cutAny(rest, "/._-")
		rest = tail
		if classes(seg)&cAlpha == 0 {
			continue
		}
		if len(seg) >= 16 && diversity(seg) >= 3 {
			return false // base64 that starts with a slash: /Bg26sVeDUhizEZrRxsfGAjg/ucm
		}
		segs++
		if wordish(seg) {
			words++
		}
	}
	return segs > 0 && words*2 >= segs
}

// memberChain reports a.b.c identifier chains (selectors, not secrets).
func memberChain(v []byte) bool {
	if bytes.IndexByte(v, '.') < 0 || !all(v, cIdent|cDot) {
		return false
	}
	for rest := v; ; {
		seg, tail, more := bytes.Cut(rest, []byte("."))
		if len(seg) == 0 || is(seg[0], cDigit) || !(identLike(seg) || codeName(seg)) || !memberName(seg) {
			return false
		}
		if !more {
			return true
		}
		rest = tail
	}
}

// memberName reports a segment of a member chain that reads as a name:
// one case (r, cfg, struct_passwd, utf8, URL, S2A), a codeName, or mixed
// case whose camel-case pieces are words or acronyms (HTTPClient,
// getToken, NewServeMuxWithOptions: 3.5 letters a piece on average from
// three pieces on); random mixed case (ICrw, qwvp__OXJ4, toeYvzSKFvoguT)
// has pieces without a vowel or with digits inside, or short ones.
func memberName(seg []byte) bool {
	if m := classes(seg); m&cUpper == 0 || m&cLower == 0 || codeName(seg) {
		return true
	}
	if letters, pieces := camelPieces(seg); pieces > 2 && letters*2 < pieces*7 {
		return false
	}
	for rest := seg; len(rest) > 0; {
		var p []byte
		p, rest = nextWord(rest)
		for len(p) > 1 && is(p[len(p)-1], cDigit) {
			p = p[:len(p)-1]
		}
		if !wordPart(p) {
			return false
		}
	}
	return true
}

// codeName reports identifiers that identLike's case rule turns away
// (NoClientCert, oldDo, OAuth2Implicit: one-letter lower-case runs, digits
// inside): letters with at most two short digit runs, a fifth of the
// letters vowels and at most 40 % upper case, as names are; a random token
// has more digits or random case.
func codeName(seg []byte) bool {
	if len(seg) == 0 || !all(seg, cIdent) || is(seg[0], cDigit) {
		return false
	}
	letters, vowels, up, runs := 0, 0, 0, 0
	for i, c := range seg {
		if c == '_' {
			continue
		}
		if is(c, cDigit) {
			// OAuth2Implicit, S2A, utf8: a digit or two, in a run or two.
			if i == 0 || !is(seg[i-1], cDigit) {
				runs++
			}
			if runs > 2 || i >= 2 && is(seg[i-1], cDigit) && is(seg[i-2], cDigit) {
				return false
			}
			continue
		}
		letters++
		if is(c, cUpper) {
			up++
		}
		switch lower(c) {
		case 'a', 'e', 'i', 'o', 'u', 'y':
			vowels++
		}
	}
	if letters == 0 || vowels*5 < letters || up*5 > letters*2 {
		return false
	}
	pieces := 0
	for rest := seg; len(rest) > 0; {
		var w []byte
		w, rest = nextWord(rest)
		if len(w) == 0 {
			break
		}
		for len(w) > 0 { // the letter runs between digits: v1beta1compute
			i := 0
			for i < len(w) && !is(w[i], cAlpha) {
				i++
			}
			j := i
			for j < len(w) && is(w[j], cAlpha) {
				j++
			}
			if !wordPart(w[i:j]) {
				return false
			}
			if j > i {
				pieces++
			}
			w = w[j:]
		}
	}
	// Names are made of words (3.5+ letters a piece on average); random
	// mixed case falls into short pieces: tgy|Ppof|Acx|TQ|Y.
	return letters*2 >= pieces*7 || letters <= 6 && letters == len(seg) // oldDo
}

// wordPart reports a piece of a name that reads as a word or an acronym:
// one letter, an upper-case run of up to five (HTTP, API), or letters with
// a vowel (a fifth of them from six letters on) and no run of five
// consonants (Client, oauth, measurementprotocol); random pieces (Rh, Pvp)
// often fail.
func wordPart(w []byte) bool {
	if len(w) == 0 {
		return true
	}
	if len(w) == 1 || len(w) <= 5 && all(w, cUpper) {
		return true
	}
	if !all(w, cAlpha) {
		return false
	}
	vowels, run := 0, 0
	for _, c := range w {
		switch lower(c) {
		case 'a', 'e', 'i', 'o', 'u', 'y':
			vowels++
			run = 0
		default:
			if run++; run >= 5 {
				return false
			}
		}
	}
	return vowels > 0 && (len(w) < 6 || vowels*5 >= len(w))
}

// cutAny splits v at the first byte in seps.
func cutAny(v []byte, seps string) (before, after []byte) {
	if i := bytes.IndexAny(v, seps); i >= 0 {
		return v[:i], v[i+1:]
	}
	return v, nil
}

// identLike reports identifiers shaped by a naming convention: snake_case,
// CONSTANT_CASE, camelCase or PascalCase parts, digits only at the end of a
// part (struct_passwd, x509, APIKey, utf8); random strings are not shaped.
func identLike(seg []byte) bool {
	for rest := seg; ; {
		part, tail, more := bytes.Cut(rest, []byte("_"))
		for len(part) > 0 && is(part[len(part)-1], cDigit) {
			part = part[:len(part)-1]
		}
		if !all(part, cAlpha) || !caseShaped(part) {
			return false
		}
		if !more {
			return true
		}
		rest = tail
	}
}

// caseShaped reports letters whose lower-case runs after an upper-case
// letter are at least two long, as in words (getHTTPToken), unlike random
// mixed case (aBcDeF).
func caseShaped(w []byte) bool {
	run := 0
	for k, c := range w {
		if is(c, cLower) {
			run++
			continue
		}
		if run == 1 && k > 1 {
			return false
		}
		run = 0
	}
	return !(run == 1 && len(w) > 1)
}

// wordish reports values made of words: snake_case, kebab-case, camelCase,
// CONSTANT_CASE, dotted.words — identifiers and names, not random strings.
// Every letters-only segment must be built from case runs the way words
// are: lower-case runs of two or more letters (AuthenticationRequired,
// getHTTPToken), and at least a quarter of the letters vowels.
func wordish(v []byte) bool {
	letters, vowels := 0, 0
	seg := 0
	for i := 0; i <= len(v); i++ {
		if i < len(v) && is(v[i], cAlpha) {
			continue
		}
		if i < len(v) && !is(v[i], cUnder|cDash|cDot|cSlash) && v[i] != ':' {
			return false // digits or symbols: not word-like
		}
		w := v[seg:i]
		seg = i + 1
		if len(w) == 0 {
			continue
		}
		if !caseShaped(w) {
			return false
		}
		for _, c := range w {
			letters++
			switch lower(c) {
			case 'a', 'e', 'i', 'o', 'u', 'y':
				vowels++
			}
		}
	}
	return letters > 0 && vowels*4 >= letters
}

// qualifiedTypeName reports a short prefix, a colon and a long name made
// of words: an XML schema type (clm5:AgencyIdentificationCodeContentType),
// a URN part; random tokens are not made of words.
func qualifiedTypeName(v []byte) bool {
	pre, name, ok := bytes.Cut(v, []byte(":"))
	return ok && len(pre) <= 12 && all(pre, cAlnum) && len(name) >= 16 && all(name, cAlpha) &&
		caseShaped(name) && wordsOf(name) && bytes.IndexByte(name, ':') < 0
}
