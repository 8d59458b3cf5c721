package redact

import (
	"bytes"
	"math"
)

// genericKeywords are the key-name fragments of generic-secret. A hit only
// matters when it is part of a key that is assigned a value.
var genericKeywords = []string{
	"password", "passwd", "passphrase", "secret", "token", "api_key", "apikey",
	"api-key", "access_key", "accesskey", "access-key", "auth_key", "authkey",
	"credential", "private_key", "privatekey", "creds", "pass", "pwd",
	// Weak words: a key named *key or *auth holds a secret only when its
	// value is random (see keyTier, weakValueOK).
	"key", "auth",
}

// tier is how strongly a key name says its value is secret.
type tier uint8

const (
	tierNone     tier = iota
	tierWeak          // *key, *_key, auth, oauth: only random values
	tierStrong        // secret, token, api_key, credential, ...
	tierPassword      // password, passwd, passphrase, pass, pwd
)

var (
	passwordFragments = []string{"password", "passwd", "passphrase"}
	strongFragments   = []string{"secret", "token", "apikey", "accesskey", "authkey", "credential", "privatekey"}
)

// keyTier classifies a key name: by its letters run together (client_secret,
// CLIENTSECRET and clientSecret alike) for the strong words, by its words
// (split at separators and case changes) for pass, pwd and the weak ones.
func keyTier(key []byte) tier {
	var buf [192]byte
	k := buf[:0]
	for _, c := range key {
		if is(c, cAlnum) {
			k = append(k, lower(c))
		}
	}
	for _, w := range passwordFragments {
		if containsStr(k, w) {
			return tierPassword
		}
	}
	for _, w := range strongFragments {
		if containsStr(k, w) {
			return tierStrong
		}
	}
	// The weak words must end the key (storage_key, signingKey, auth), or
	// come just before a word for its encoding (client-key-data): in
	// ExtKeyUsageAny or keyPrefix the key is something else.
	weak, prevWeak := false, false
	for rest := key; len(rest) > 0; {
		var w []byte
		w, rest = nextWord(rest)
		if len(w) == 0 {
			break
		}
		var lb [64]byte
		lw := lb[:0]
		for _, c := range w[:min(len(w), 64)] {
			lw = append(lw, lower(c))
		}
		switch string(lw) {
		case "pass", "pwd":
			return tierPassword
		case "data", "value", "b64", "base64", "hex", "pem":
			weak = prevWeak
			continue
		}
		weak = string(lw) == "key" || string(lw) == "keys" || string(lw) == "auth" || string(lw) == "oauth" || string(lw) == "creds" ||
			len(lw) > 3 && bytes.HasSuffix(lw, []byte("key")) || len(lw) > 4 && bytes.HasSuffix(lw, []byte("auth"))
		prevWeak = weak
	}
	if weak {
		return tierWeak
	}
	return tierNone
}

// containsStr reports whether v contains w.
func containsStr(v []byte, w string) bool {
	for i := 0; i+len(w) <= len(v); i++ {
		if v[i] == w[0] && string(v[i:i+len(w)]) == w {
			return true
		}
	}
	return false
}

// endsWithPasswordWord reports keys whose last word names a password
// (admin_password, smtpPass, DB_PWD), not a property of one
// (password_hash_algorithm).
func endsWithPasswordWord(key []byte) bool {
	var buf [192]byte
	k := buf[:0]
	for _, c := range key {
		if is(c, cAlnum) {
			k = append(k, lower(c))
		}
	}
	for _, w := range []string{"password", "passwd", "passphrase", "pass", "pwd"} {
		if len(k) >= len(w) && string(k[len(k)-len(w):]) == w {
			return true
		}
	}
	return false
}

// nextWord splits the first word off an identifier: at separators, at a
// lower-to-upper change (storageKey) and at an upper run's end (APIKey).
func nextWord(v []byte) (word, rest []byte) {
	i := 0
	for i < len(v) && !is(v[i], cAlnum) {
		i++
	}
	v = v[i:]
	j := 1
	for j < len(v) && is(v[j], cAlnum) {
		c, p := v[j], v[j-1]
		if is(c, cUpper) && is(p, cLower|cDigit) {
			break
		}
		if is(c, cLower) && is(p, cUpper) && j >= 2 && is(v[j-2], cUpper) {
			j-- // APIKey: the run APIK ends before K
			break
		}
		j++
	}
	if len(v) == 0 {
		return nil, nil
	}
	j = min(j, len(v))
	return v[:j], v[j:]
}

// generic: KEY = VALUE where KEY contains a secret-ish word, in the styles of
// JSON, YAML, .env, shell, Go, Python, JS, TOML, XML, URL query strings, log
// fields and command-line flags; the VALUE must look like a secret, not like
// code (token = tok.Next()), a word, a path or a placeholder.
func (sc *scanner) generic(s, e int) {
	b := sc.b
	if s < sc.genericDone {
		return
	}
	// "tokenizer", "tokenize", "secretary", "passwordless", "secretive"
	// are other words ("secretkey", "tokenhash" are not).
	if e < len(b) && is(b[e], cLower) {
		for _, w := range otherWords {
			if hasPrefixAt(b, e, w) {
				return
			}
		}
	}
	ks := startOf(b, s, cKey, 64)
	ke := spanOf(b, e, cKey, 64)
	for ke > e && (b[ke-1] == '.' || b[ke-1] == '-') {
		ke--
	}
	sc.genericDone = ke
	key := b[ks:ke]
	if string(key) == "PASS" && ke < len(b) && b[ke] == ':' {
		return // go test's "--- PASS: TestName"
	}
	n := len(b)
	i := ke
	xml := ks > 0 && b[ks-1] == '<'
	if i < n && is(b[i], cQuote) {
		i++
	} else if hasPrefixAt(b, i, `\"`) {
		i += 2
	}
	if i < n && b[i] == ']' {
		i++
	}
	flag := len(key) > 2 && key[0] == '-' && key[1] == '-'
	if flag && i < n && b[i] == ' ' {
		i++
	} else {
		i = skipSpaces(b, i)
		if i >= n {
			return
		}
		switch c := b[i]; {
		case c == ':' && i+1 < n && b[i+1] == '=':
			i += 2
		case c == '=' && i+1 < n && b[i+1] == '>':
			i += 2
		case c == '=':
			if i+1 < n && b[i+1] == '=' {
				// "a == b" compares; KEY==x (no spaces) assigns "=x".
				if i != ke || i+2 >= n || b[i+2] == ' ' || b[i+2] == '=' {
					return
				}
			}
			i++
		case c == ':':
			// YAML and logs put a space after ':', JSON a quote;
			// "password:GID:user_list" is prose or a format string.
			if i+1 < n && !is(b[i+1], cSpace|cQuote) && b[i+1] != '\\' {
				return
			}
			i++
		case c == '>' && xml:
			i++
		default:
			if ke-ks == 8 && (c == ' ' || i > ke) {
				sc.netrc(ks, ke) // .netrc: password PASSWORD
			}
			return
		}
	}
	i = skipSpaces(b, i)
	vs, ve, quoted, ok := readValue(b, i)
	if !ok || ve-vs < 8 {
		return
	}
	v := b[vs:ve]
	if !quoted && (codeAfter(b, ve) || bytes.IndexByte(v, '*') >= 0) {
		return // a call, an index or an expression: token = next(), n = 2*k + 1
	}
	kt := keyTier(key)
	if kt == tierNone || excludedKey(key) {
		return
	}
	if isAWSExample(v) || goNoteExample(v) {
		sc.addExample(vs, ve, KindGenericSecret)
		return
	}
	switch kt {
	case tierWeak:
		if !quoted && ve < n && b[ve] == ',' {
			return // Key: value, in a struct or object literal is code
		}
		if len(key) == 4 && hasPrefixFold(key, 0, "auth") && dockerAuth(v) {
			sc.add(vs, ve, KindDockerAuth)
		} else if weakValueOK(v, quoted) {
			sc.add(vs, ve, KindGenericSecret)
		}
	default:
		if genericValueOK(v, quoted, kt == tierPassword && endsWithPasswordWord(key)) {
			sc.add(vs, ve, KindGenericSecret)
		}
	}
}

// goNoteExample reports the example signer and verifier keys of Go's
// checksum-database note format, published in golang.org/x/mod/sumdb/note's
// documentation under the name PeterNeumann.
func goNoteExample(v []byte) bool {
	return bytes.Contains(v, []byte("PeterNeumann+"))
}

// codeAfter reports whether a bare value ending at i is followed by a call,
// an index or a binary operator: it is then an expression in code.
func codeAfter(b []byte, i int) bool {
	if i >= len(b) {
		return false
	}
	if b[i] == '(' || b[i] == '[' || b[i] == '{' {
		return true // a call, an index, a composite literal
	}
	j := skipSpaces(b, i)
	if j == i || j+1 >= len(b) {
		return false
	}
	switch b[j] {
	case '+', '-', '*', '/', '%', '|', '^', '?':
		return b[j+1] == ' ' || b[j+1] == '='
	case '&':
		return b[j+1] == '&' || b[j+1] == ' '
	}
	return false
}

var otherWords = []string{"iz", "is", "ar", "less", "ive", "ed"}

// readValue reads a quoted (same line) or bare value at i.
func readValue(b []byte, i int) (vs, ve int, quoted, ok bool) {
	n := len(b)
	if i >= n {
		return 0, 0, false, false
	}
	escaped := false
	q := byte(0)
	if is(b[i], cQuote) {
		q = b[i]
		i++
	} else if hasPrefixAt(b, i, `\"`) {
		q, escaped = '"', true
		i += 2
	}
	vs = i
	lim := min(n, i+maxGenericValue+1)
	if q == 0 {
		j := i
		for j < lim && bareValueChar(b[j]) {
			j++
		}
		return vs, j, false, j > vs
	}
	for j := i; j < lim; j++ {
		c := b[j]
		switch {
		case c == '\n':
			return 0, 0, false, false
		case c == '\\' && escaped:
			if j+1 < n && b[j+1] == '"' {
				return vs, j, true, j > vs
			}
			j++
		case c == '\\':
			j++
		case c == q && !escaped:
			return vs, j, true, j > vs
		}
	}
	return 0, 0, false, false
}

const maxGenericValue = 512

func bareValueChar(c byte) bool {
	if c <= ' ' || c >= 0x7f {
		return false
	}
	switch c {
	case '"', '\'', '`', ',', ';', ')', ']', '}', '&', '<', '>', '(', '[', '{':
		return false
	}
	return true
}

// excludedKeySuffixes end key names whose values are not secrets:
// token_url, secret_name, password_file, max_tokens_len, ...
var excludedKeySuffixes = []string{
	"url", "uri", "endpoint", "path", "file", "filename", "dir", "name", "type",
	"kind", "count", "len", "length", "size", "ttl", "timeout", "expiry",
	"expires", "expiresat", "expiresin", "expiration", "header", "prefix",
	"suffix", "field", "format", "mode", "method", "version", "index", "idx",
	"pos", "offset", "limit", "ref", "policy", "provider", "env", "arn",
	"location", "template", "pattern", "regex", "regexp", "label", "placeholder",
	"hint", "message", "msg", "error", "err", "required", "enabled", "disabled",
	"manager", "store", "source", "scope", "scopes", "usage", "tokenizer",
	"class", "style", "selector", "cmd", "command", "script", "id", "ids",
	"algorithm", "algo",
}

func excludedKey(key []byte) bool {
	var buf [64]byte
	k := buf[:0]
	for _, c := range key {
		if is(c, cAlnum) {
			k = append(k, lower(c))
		}
	}
	if len(k) == 0 {
		return false
	}
	last := k[len(k)-1]
	for _, s := range excludedKeySuffixes {
		if s[len(s)-1] == last && len(k) > len(s) && string(k[len(k)-len(s):]) == s {
			// "secretid"/"tokenid": the suffix follows the keyword itself;
			// keep Vault's secret_id, it is a credential.
			if s == "id" && bytes.HasSuffix(k, []byte("secretid")) {
				return false
			}
			return true
		}
	}
	return false
}

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
		if v[1] == '(' || v[1] == '{' || envRef(v) || wordish(v[1:]) {
			return false // %(password)s, %{DB_PASS}, %DB_PASSWORD%
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
		if v[len(v)-1] == '+' {
			return false // "<token>"+name+"</token>": a concatenation
		}
	case '@', '#', '&', '!', '*', '-':
		if t := bytes.TrimLeft(v, "@#&!*-"); wordish(t) && wordsOf(t) {
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
		if bytes.Contains(lv, w) {
			return false
		}
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
		return len(v) >= 24 && entropy(v) >= 4.0 && !wordish(v)
	}
	if wordish(v) || constantCase(v) || longWords(v) >= 2 && nameLike(v) {
		return false
	}
	if t := bytes.TrimRight(v, "."); !quoted && (identLike(t) || codeName(t)) {
		return false // code: x = someName, Key: OtherName.
	}
	// Entropy floors sit below the 1e-6 quantile of random values of the
	// length (hex, base62, base64); words and code were excluded above.
	d := diversity(v)
	h := entropy(v)
	switch {
	case len(v) < 12:
		return d >= 3 && h >= 2.0 || pw && d >= 2 && h >= 2.0
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

// sequential reports runs like 0123456789abcdef or abcdefghijkl: random
// keys step by one from byte to byte rarely.
func sequential(v []byte) bool {
	steps := 0
	for i := 1; i < len(v); i++ {
		if v[i] == v[i-1]+1 {
			steps++
		}
	}
	return steps*3 >= len(v)
}

// placeholderFragments mark documentation values: "your-token-here",
// "<insert key>", "xxxxxxxx", "example-secret".
var placeholderFragments = []string{
	"example", "placeholder", "dummy", "xxxx", "****", "....", "redacted",
	"your_", "your-", "yourtoken", "yourkey", "yourpass", "changeme", "replace",
	"insert", "sample", "<", ">",
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
		if len(seg) == 0 || is(seg[0], cDigit) || !(identLike(seg) || codeName(seg)) {
			return false
		}
		if !more {
			return true
		}
		rest = tail
	}
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
			w = w[j:]
		}
	}
	return true
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

// authHeader: "Authorization: Basic|Bearer|Token <credentials>" and a bare
// "Bearer <token>".
func (sc *scanner) authHeader(s, e int) {
	b := sc.b
	if !boundaryBefore(b, s, cAlpha) {
		return
	}
	i := e
	if e-s == len("bearer") {
		if i >= len(b) || b[i] != ' ' {
			return
		}
		i = skipSpaces(b, i)
		sc.credentials(i, 16, KindGenericSecret)
		return
	}
	if i < len(b) && is(b[i], cQuote) {
		i++
	}
	i = skipSpaces(b, i)
	if i >= len(b) || (b[i] != ':' && b[i] != '=') {
		return
	}
	i = skipSpaces(b, i+1)
	if i < len(b) && is(b[i], cQuote) {
		i++
	}
	w := spanOf(b, i, cAlpha, 16)
	switch {
	case hasPrefixFold(b, i, "basic") && w-i == 5, hasPrefixFold(b, i, "token") && w-i == 5:
		sc.credentials(skipSpaces(b, w), 8, KindGenericSecret)
	case hasPrefixFold(b, i, "ssws") && w-i == 4:
		// the ssws keyword hit handles Okta's scheme
	case hasPrefixFold(b, i, "bearer") && w-i == 6:
		// the "bearer" keyword hit handles it
	default:
		sc.credentials(i, 16, KindGenericSecret)
	}
}

// ssws: Okta's "Authorization: SSWS <API token>".
func (sc *scanner) ssws(s, e int) {
	b := sc.b
	if !boundaryBefore(b, s, cAlpha) || e >= len(b) || b[e] != ' ' {
		return
	}
	sc.credentials(skipSpaces(b, e), 16, KindOktaToken)
}

func (sc *scanner) credentials(i, minLen int, kind string) {
	b := sc.b
	j := i
	for j < len(b) && (is(b[j], cTokenX) || b[j] == '~') {
		j++
	}
	v := b[i:j]
	if len(v) < minLen || len(v) > 8192 || bytes.HasPrefix(v, []byte("[REDACTED:")) {
		return
	}
	if diversity(v) >= 2 && entropy(v) >= 3.0 && !wordish(v) {
		sc.add(i, j, kind)
	}
}
