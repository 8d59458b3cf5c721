package redact

import "bytes"

// genericKeywords are the key-name fragments of generic-secret. A hit only
// matters when it is part of a key that is assigned a value.
var genericKeywords = []string{
	"password", "passwd", "passphrase", "secret", "token", "api_key", "apikey",
	"api-key", "access_key", "accesskey", "access-key", "auth_key", "authkey",
	"credential", "private_key", "privatekey",
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
			return
		}
	}
	i = skipSpaces(b, i)
	vs, ve, quoted, ok := readValue(b, i)
	if !ok {
		return
	}
	v := b[vs:ve]
	if isAWSExample(v) {
		sc.addExample(vs, ve, KindGenericSecret)
		return
	}
	if !quoted && (codeAfter(b, ve) || bytes.IndexByte(v, '*') >= 0) {
		return // a call, an index or an expression: token = next(), n = 2*k + 1
	}
	if genericValueOK(v, quoted) && !excludedKey(key) {
		sc.add(vs, ve, KindGenericSecret)
	}
}

// codeAfter reports whether a bare value ending at i is followed by a call,
// an index or a binary operator: it is then an expression in code.
func codeAfter(b []byte, i int) bool {
	if i >= len(b) {
		return false
	}
	if b[i] == '(' || b[i] == '[' {
		return true
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
}

func excludedKey(key []byte) bool {
	var buf [64]byte
	k := buf[:0]
	for _, c := range key {
		if is(c, cAlnum) {
			k = append(k, lower(c))
		}
	}
	for _, s := range excludedKeySuffixes {
		if len(k) > len(s) && string(k[len(k)-len(s):]) == s {
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

// genericValueOK decides whether an assigned value looks like a secret.
func genericValueOK(v []byte, quoted bool) bool {
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
		if v[1] == '(' || v[1] == '{' || v[len(v)-1] == '%' || wordish(v[1:]) {
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
	case '@', '#', '&', '!', '*', '-':
		if wordish(bytes.TrimLeft(v, "@#&!*-")) {
			return false // @Annotation, #comment, &anchor, !tag, --flag
		}
	}
	if bytes.IndexByte(v, ' ') >= 0 || bytes.Contains(v, []byte("://")) || escapes(v) || bytes.Contains(v, []byte(`:\`)) ||
		bytes.Contains(v, []byte("{{")) || bytes.Contains(v, []byte("${")) {
		return false
	}
	var buf [maxGenericValue]byte
	lv := buf[:len(v)]
	for i, c := range v {
		lv[i] = lower(c)
	}
	for _, w := range placeholderFragments {
		if bytes.Contains(lv, []byte(w)) {
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
	if wordish(v) {
		return false
	}
	if m&^(cAlpha|cHexLow) == 0 {
		// Letters only: an identifier (allNumericOrString) unless long and
		// random. A random base62 value of 24+ chars lacks digits rarely.
		return len(v) >= 24 && entropy(v) >= 4.0
	}
	// Entropy floors sit below the 1e-6 quantile of random values of the
	// length (hex, base62, base64); words and code were excluded above.
	d := diversity(v)
	h := entropy(v)
	switch {
	case len(v) < 12:
		return d >= 3 && h >= 2.0
	case len(v) < 20 || m&^(cDigit|cHexLow|cLower) == 0 && m&cLower != 0 && all(v, cHexLow):
		return d >= 2 && h >= 2.5
	default:
		return d >= 2 && h >= 2.8
	}
}

// placeholderFragments mark documentation values: "your-token-here",
// "<insert key>", "xxxxxxxx", "example-secret".
var placeholderFragments = []string{
	"example", "placeholder", "dummy", "xxxx", "****", "....", "redacted",
	"your_", "your-", "yourtoken", "yourkey", "yourpass", "changeme", "replace",
	"insert", "sample", "<", ">",
}

// escapes reports string escapes of non-ASCII text: "\u3299\ufe0f".
func escapes(v []byte) bool {
	for i := 0; i+2 < len(v); i++ {
		if v[i] == '\\' && (v[i+1] == 'u' || v[i+1] == 'U' || v[i+1] == 'x') && is(v[i+2], cHexLow|cUpper) {
			return true
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
		if len(seg) == 0 || is(seg[0], cDigit) || !identLike(seg) {
			return false
		}
		if !more {
			return true
		}
		rest = tail
	}
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
		if i < len(v) && !is(v[i], cUnder|cDash|cDot|cSlash) {
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
		sc.credentials(i, 16)
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
		sc.credentials(skipSpaces(b, w), 8)
	case hasPrefixFold(b, i, "bearer") && w-i == 6:
		// the "bearer" keyword hit handles it
	default:
		sc.credentials(i, 16)
	}
}

func (sc *scanner) credentials(i, minLen int) {
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
		sc.add(i, j, KindGenericSecret)
	}
}
