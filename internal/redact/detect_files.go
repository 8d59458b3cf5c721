package redact

import (
	"bytes"
	"encoding/base64"
)

// Detectors for credentials that are recognised by the file format that
// holds them rather than by their own shape: .netrc, ~/.docker/config.json,
// Kubernetes Secret manifests, NuGet.Config, curl -u, Telegram bot tokens.

// telegram: <bot id>:AA<33 chars>, as Telegram's BotFather issues them
// (also after "bot" in api.telegram.org/bot<token>/ URLs). s is the ':'.
func (sc *scanner) telegram(s int) {
	b := sc.b
	if !hasPrefixAt(b, s, ":AA") {
		return
	}
	ds := startOf(b, s, cDigit, 16)
	if s-ds < 5 || !(boundaryBefore(b, ds, cAlnum|cUnder) || ds >= 3 && hasPrefixFold(b, ds-3, "bot")) {
		return
	}
	j := spanOf(b, s+1, cB64URL, 36)
	if j-(s+1) != 35 || !boundaryAfter(b, j, cB64URL) || entropy(b[s+3:j]) < 3.5 {
		return
	}
	sc.add(ds, j, KindTelegramBotToken)
}

// netrc: the password of a .netrc entry, "machine HOST login USER password
// PASSWORD" on one line or spread over lines. key is b[ks:ke], the
// "password" the generic detector found with no operator after it.
func (sc *scanner) netrc(ks, ke int) bool {
	b := sc.b
	if ke >= len(b) || (b[ke] != ' ' && b[ke] != '\t') || !boundaryBefore(b, ks, cKey) {
		return false
	}
	if k := b[ks:ke]; !(len(k) == 8 && hasPrefixFold(k, 0, "password")) {
		return false
	}
	ls := lineStart(b, ks, 512)
	ls += linePrefix(b[ls:ks])
	first, rest := firstField(b[ls:ks])
	switch string(first) {
	case "machine", "default":
		if !netrcEntry(first, rest) {
			return false
		}
	case "", "login", "account":
		if !netrcEntryAbove(b, ls) {
			return false
		}
	default:
		return false
	}
	vs := skipSpaces(b, ke)
	ve := vs
	for ve < len(b) && !is(b[ve], cWS) && ve-vs < 256 {
		ve++
	}
	if v := b[vs:ve]; len(v) == 0 || placeholderPassword(v) || wordish(v) {
		return false // a word: "password string" is a struct field
	}
	sc.add(vs, ve, KindNetrcPassword)
	return true
}

// linePrefix returns the length of a tool's prefix at the start of line:
// the right-aligned number and tab of read_file and cat -n, the path:N: of
// grep -n (path-N- on context lines), so that line formats are recognised
// in tool output too.
func linePrefix(line []byte) int {
	i := skipSpaces(line, 0)
	if j := spanOf(line, i, cDigit, 12); j > i && j < len(line) && line[j] == '\t' {
		return j + 1
	}
	k := 0
	for k < len(line) && k < 512 && line[k] != ':' && !is(line[k], cWS) {
		k++
	}
	if k > 0 && k < len(line) && line[k] == ':' {
		if d := spanOf(line, k+1, cDigit, 12); d > k+1 && d < len(line) && (line[d] == ':' || line[d] == '-') {
			return d + 1
		}
	}
	return 0
}

// firstField returns the first space-separated field of line.
func firstField(line []byte) (field, rest []byte) {
	i := skipSpaces(line, 0)
	j := i
	for j < len(line) && !is(line[j], cWS) {
		j++
	}
	return line[i:j], line[j:]
}

// netrcEntry reports whether a line starting with the field first
// ("machine" or "default") starts a .netrc entry: a machine names a host
// (with a dot or a port, or localhost), so that a struct's "machine string"
// field is not one.
func netrcEntry(first, rest []byte) bool {
	if string(first) == "default" {
		return true
	}
	host, _ := firstField(rest)
	return bytes.ContainsAny(host, ".:") || string(host) == "localhost"
}

// netrcEntryAbove reports whether one of the three lines before the line
// starting at ls starts a .netrc entry (machine or default).
func netrcEntryAbove(b []byte, ls int) bool {
	for range 3 {
		if ls == 0 {
			return false
		}
		ps := lineStart(b, ls-1, 512)
		f, rest := firstField(b[ps+linePrefix(b[ps:ls-1]) : ls-1])
		if string(f) == "machine" || string(f) == "default" {
			return netrcEntry(f, rest)
		}
		ls = ps
	}
	return false
}

// dockerAuth reports the "auth" value of a Docker or Podman auth file:
// base64 of user:password.
func dockerAuth(v []byte) bool {
	if len(v) < 8 || len(v) > 1024 || !all(v, cB64|cEq) {
		return false
	}
	var buf [768]byte
	d, err := base64.StdEncoding.AppendDecode(buf[:0], v)
	if err != nil {
		return false
	}
	colon := bytes.IndexByte(d, ':')
	if colon <= 0 || colon == len(d)-1 {
		return false
	}
	for _, c := range d {
		if c < ' ' || c >= 0x7f {
			return false
		}
	}
	return true
}

// k8sDocMax bounds how far a Secret manifest's data block is looked for.
const k8sDocMax = 64 << 10

// k8sSecret runs on "kind: Secret" (YAML or JSON): every value under the
// manifest's data: and stringData: is secret, whatever it looks like.
func (sc *scanner) k8sSecret(s, e int) {
	b := sc.b
	if e < len(b) && is(b[e], cQuote) {
		e++
	}
	if !boundaryAfter(b, e, cIdent) || e <= sc.k8sDone {
		return // SecretProviderClass, SecretStore; or this manifest is done
	}
	if string(b[e-6:e]) != "Secret" && !(e > 6 && string(b[e-7:e-1]) == "Secret") {
		return // kinds are case-sensitive: "kind: secret" is no Kubernetes Secret
	}
	from := max(0, s-8<<10)
	if k := bytes.LastIndex(b[from:s], []byte("\n---")); k >= 0 {
		from += k + 4
	}
	to := min(len(b), e+k8sDocMax)
	if k := bytes.Index(b[e:to], []byte("\n---")); k >= 0 {
		to = e + k
	}
	sc.k8sDone = to
	doc := b[from:to]
	for _, key := range []string{"data:", "stringData:", `"data":`, `"stringData":`} {
		for off := 0; ; {
			k := bytes.Index(doc[off:], []byte(key))
			if k < 0 {
				break
			}
			at := from + off + k
			off += k + len(key)
			if !boundaryBefore(b, at, cIdent) {
				continue
			}
			if key[0] == '"' {
				sc.k8sJSONData(at+len(key), to)
			} else {
				sc.k8sYAMLData(at, at+len(key), to)
			}
		}
	}
}

// k8sYAMLData redacts the values of the block mapping under the key
// b[ks:ke] ("data:" at its line's indentation), up to to.
func (sc *scanner) k8sYAMLData(ks, ke, to int) {
	b := sc.b
	ls := lineStart(b, ks, 256)
	ls += linePrefix(b[ls:ks])
	if spanOf(b, ls, cSpace|cDash, ks-ls) != ks {
		return // not a key at the start of its line
	}
	indent := ks - ls
	i := lineEnd(b, ke, to-ke)
	if rest := bytes.TrimSpace(b[ke:i]); len(rest) > 0 && rest[0] != '#' {
		return // data: on one line (flow style) is not parsed
	}
	for i < to && b[i] == '\n' {
		i++
		le := lineEnd(b, i, to-i)
		i += linePrefix(b[i:le])
		ind := spanOf(b, i, cSpace, le-i) - i
		line := b[i+ind : le]
		if len(bytes.TrimSpace(line)) == 0 {
			i = le
			continue
		}
		if ind <= indent {
			return
		}
		colon := bytes.IndexByte(line, ':')
		if colon <= 0 || line[0] == '#' {
			i = le
			continue
		}
		vs := i + ind + colon + 1
		vs = skipSpaces(b, vs)
		ve := le
		for ve > vs && is(b[ve-1], cWS) {
			ve--
		}
		if vs < ve && (b[vs] == '|' || b[vs] == '>') {
			// A block scalar: the more indented lines after it.
			j := le
			for j < to && b[j] == '\n' {
				nl := lineEnd(b, j+1, to-j-1)
				cs := j + 1 + linePrefix(b[j+1:nl])
				vs := spanOf(b, cs, cSpace, nl-cs)
				if vs-cs <= ind && vs < nl {
					break
				}
				if vs < nl {
					sc.k8sValue(vs, nl)
				}
				j = nl
			}
			i = j
			continue
		}
		sc.k8sValue(vs, ve)
		i = le
	}
}

// k8sJSONData redacts the string values of the object after "data":.
func (sc *scanner) k8sJSONData(i, to int) {
	b := sc.b
	i = skipWS(b, i)
	if i >= to || b[i] != '{' {
		return
	}
	for i++; i < to; {
		i = skipWS(b, i)
		if i >= to || b[i] == '}' || b[i] != '"' {
			return
		}
		k := bytes.IndexByte(b[i+1:to], '"') // the key
		if k < 0 {
			return
		}
		i = skipWS(b, i+k+2)
		if i >= to || b[i] != ':' {
			return
		}
		i = skipWS(b, i+1)
		if i >= to || b[i] != '"' {
			return
		}
		ve := bytes.IndexByte(b[i+1:to], '"')
		if ve < 0 {
			return
		}
		sc.k8sValue(i+1, i+1+ve)
		i = skipWS(b, i+ve+2)
		if i < to && b[i] == ',' {
			i++
		}
	}
}

// skipWS skips whitespace, and the tool prefixes (linePrefix) of the
// lines it crosses.
func skipWS(b []byte, i int) int {
	for i < len(b) && is(b[i], cWS) {
		if b[i] == '\n' && i+1 < len(b) {
			i += linePrefix(b[i+1 : lineEnd(b, i+1, 512)])
		}
		i++
	}
	return i
}

// k8sValue redacts one data value, quotes and templates excepted.
func (sc *scanner) k8sValue(vs, ve int) {
	b := sc.b
	if ve-vs >= 2 && is(b[vs], cQuote) && b[ve-1] == b[vs] {
		vs, ve = vs+1, ve-1
	}
	v := b[vs:ve]
	if len(v) == 0 || bytes.Contains(v, []byte("{{")) || bytes.HasPrefix(v, []byte("${")) || bytes.HasPrefix(v, []byte("[REDACTED:")) {
		return
	}
	sc.add(vs, ve, KindKubernetesSecret)
}

// nuget: <add key="ClearTextPassword" value="..." /> in NuGet.Config (and
// the same element in .NET appSettings with a secret-looking key).
func (sc *scanner) nuget(e int) {
	b := sc.b
	k := bytes.IndexByte(window(b, e, 128), '"')
	if k < 0 {
		return
	}
	key := b[e : e+k]
	i := skipWS(b, e+k+1)
	if !hasPrefixFold(b, i, "value") {
		return
	}
	i = skipWS(b, i+5)
	if i >= len(b) || b[i] != '=' {
		return
	}
	i = skipWS(b, i+1)
	if i >= len(b) || b[i] != '"' {
		return
	}
	ve := bytes.IndexByte(window(b, i+1, maxGenericValue+1), '"')
	if ve <= 0 {
		return
	}
	v := b[i+1 : i+1+ve]
	switch keyTier(key) {
	case tierPassword:
		if len(v) >= 4 && !placeholderPassword(v) && !containsFold(v, "password") {
			sc.add(i+1, i+1+ve, KindNuGetPassword)
		}
	case tierStrong:
		if genericValueOK(v, true, false) && !excludedKey(key) {
			sc.add(i+1, i+1+ve, KindGenericSecret)
		}
	case tierWeak:
		if weakValueOK(v, true) && !excludedKey(key) {
			sc.add(i+1, i+1+ve, KindGenericSecret)
		}
	}
}

// curlCmdMax bounds a curl command line (with its \ continuations).
const curlCmdMax = 2048

// curl: the password of curl -u/--user user:password. Headers (-H
// "Authorization: ...", "X-Api-Key: ...") are the authorization and generic
// detectors' work.
func (sc *scanner) curl(s, e int) {
	b := sc.b
	if !boundaryBefore(b, s, cIdent) || !boundaryAfter(b, e, cIdent) {
		return
	}
	to := e
	for lines := 0; lines < 6; lines++ {
		to = lineEnd(b, to, curlCmdMax-(to-e))
		if to-e >= curlCmdMax || to >= len(b) || to == 0 || b[to-1] != '\\' {
			break
		}
		to++
	}
	for i := e; i < to; i++ {
		if !is(b[i], cWS) {
			continue
		}
		j := i + 1
		switch {
		case hasPrefixAt(b, j, "--user"):
			j += 6
		case hasPrefixAt(b, j, "-u"):
			j += 2
		default:
			continue
		}
		if j < to && b[j] == '=' {
			j++
		} else {
			j = skipSpaces(b, j)
		}
		sc.curlUser(j, to)
	}
}

// curlUser redacts the password of a user:password argument at i.
func (sc *scanner) curlUser(i, to int) {
	b := sc.b
	if i >= to {
		return
	}
	vs, ve := i, i
	if q := b[i]; q == '"' || q == '\'' {
		k := bytes.IndexByte(b[i+1:to], q)
		if k < 0 {
			return
		}
		vs, ve = i+1, i+1+k
	} else {
		for ve < to && !is(b[ve], cWS) {
			ve++
		}
	}
	colon := bytes.IndexByte(b[vs:ve], ':')
	if colon < 0 {
		return
	}
	ps := vs + colon + 1
	if pw := b[ps:ve]; len(pw) > 0 && !placeholderPassword(pw) && !curlPlaceholder(b[vs:ps-1], pw) {
		sc.add(ps, ve, KindGenericSecret)
	}
}

// curlPlaceholder reports a -u user:password whose password stands for
// one: the user name again (test:test), a shell argument ($2), the end of
// <user:password>, or the word for what goes there (username:token).
func curlPlaceholder(user, pw []byte) bool {
	if bytes.Equal(user, pw) || bytes.IndexByte(pw, '>') >= 0 || bytes.IndexByte(user, '<') >= 0 {
		return true
	}
	if pw[0] == '$' && len(pw) > 1 && all(pw[1:], cDigit) {
		return true
	}
	for _, w := range []string{"token", "password", "passwd", "pass", "secret", "apikey", "api_key", "key", "pw", "pwd"} {
		if len(pw) == len(w) && hasPrefixFold(pw, 0, w) {
			return true
		}
	}
	return false
}
