package redact

import "bytes"

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
	op := -1
	if flag && i < n && b[i] == ' ' {
		i++
	} else {
		i = skipSpaces(b, i)
		if i >= n {
			return
		}
		if is(b[i], cAlpha) && ke-ks >= 3 {
			// a typed declaration: var apiToken string = "..."
			w := spanOf(b, i, cAlpha, 8)
			if t := string(b[i:w]); t == "string" || t == "String" || t == "str" {
				if j := skipSpaces(b, w); j > w && j+1 < n && b[j] == '=' && b[j+1] != '=' {
					i = j
				}
			}
		}
		op = i
		switch c := b[i]; {
		case c == ':' && hasPrefixAt(b, i, ":::="):
			i += 4 // make's assignment operators
		case c == ':' && hasPrefixAt(b, i, "::="):
			i += 3
		case (c == '.' || c == '?' || c == '+') && i+1 < n && b[i+1] == '=' && i > ke:
			i += 2 // PHP's .=, make's ?= and +=
		case c == ',' && i > ke && ks > 0 && b[ks-1] == b[ke] && defineCall(b, ks-1):
			i++ // define('DB_PASSWORD', 'value'), env("API_TOKEN", "value")
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
	if xml {
		for i < n && is(b[i], cWS) {
			i++ // <token>\n    value\n</token>
		}
	}
	vs, ve, quoted, ok := readValue(b, i)
	if !ok {
		return
	}
	if (string(key) == "PWD" || string(key) == "OLDPWD") && (b[vs] == '/' || b[vs] == '~') {
		return // the shell's working directory, not a password
	}
	if ve-vs < 8 {
		if op == ke && b[op] == '=' && shortEnvValue(b, ks, ke, vs, ve, quoted) {
			sc.add(vs, ve, KindGenericSecret)
		}
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
			if b[j] == '\\' && j+1 < n && (b[j+1] == 'n' || b[j+1] == 'r' || b[j+1] == 't' || b[j+1] == '"') {
				break // the value ends a line of a JSON-escaped file: "X_TOKEN=...\nNEXT=1"
			}
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

// defineCall reports whether the quote at q opens the first argument of a
// call that sets a named value: PHP's define('DB_PASSWORD', '...'),
// Laravel's env('DB_PASSWORD', '...'), setenv, setdefault, putenv, Java's
// System.setProperty("API_TOKEN", "..."), map put and set, and the default
// of getenv("API_TOKEN", "...").
func defineCall(b []byte, q int) bool {
	i := q
	for i > 0 && b[i-1] == ' ' {
		i--
	}
	if i == 0 || b[i-1] != '(' {
		return false
	}
	i--
	for i > 0 && b[i-1] == ' ' {
		i--
	}
	name := b[startOf(b, i, cIdent, 16):i]
	for _, w := range []string{"define", "env", "setenv", "setdefault", "putenv", "set_env", "setproperty", "put", "set", "getenv", "getenvordefault", "getordefault"} {
		if len(name) == len(w) && hasPrefixFold(name, 0, w) {
			return true
		}
	}
	return false
}

// shortEnvValues are values of fewer than 8 bytes that stand for no secret.
var shortEnvValues = []string{
	"true", "false", "yes", "no", "on", "off", "none", "null", "nil", "empty", "unset", "changeme",
	"secret", "password", "pass", "passwd", "token", "test", "testing", "dummy", "example", "default",
	"disabled", "enabled", "auto", "local", "dev", "prod", "xxx", "todo", "tbd", "required", "optional",
}

// shortEnvValue reports a .env-style assignment of a value shorter than 8
// bytes to a secret-named key (DB_PASSWORD=hunt3r, export API_TOKEN='k9x2'):
// the key begins its line (after "export ", a grep file:line: prefix or
// read_file's line number) and the value ends it.
func shortEnvValue(b []byte, ks, ke, vs, ve int, quoted bool) bool {
	if ve-vs < 3 {
		return false
	}
	j := ks
	if j >= 7 && hasPrefixAt(b, j-7, "export ") {
		j -= 7
	}
	if j > 0 && !is(b[j-1], cWS) && b[j-1] != ':' {
		return false
	}
	k := ve
	if quoted {
		k++
	}
	k = skipSpaces(b, k)
	if k < len(b) && b[k] != '\n' && b[k] != '\r' && b[k] != '#' {
		return false
	}
	key := b[ks:ke]
	if ClassifyEnvName(string(key)) != EnvSecret || keyTier(key) < tierStrong || excludedKey(key) {
		return false
	}
	v := b[vs:ve]
	if placeholderPassword(v) || envRef(v) || bytes.ContainsAny(v, "${}<>") {
		return false
	}
	for _, w := range shortEnvValues {
		if len(v) == len(w) && hasPrefixFold(v, 0, w) {
			return false
		}
	}
	return true
}
