package redact

import (
	"bytes"
	"strings"
)

// minKnownLen is the shortest value AddKnown accepts: shorter ones ("true",
// "8080", "admin") would redact ordinary words everywhere.
const minKnownLen = 8

// knownValueOK filters values too short or too uniform to match exactly
// everywhere for the rest of the run.
func knownValueOK(v string) bool {
	if len(v) < minKnownLen || strings.HasPrefix(v, "[REDACTED:") {
		return false
	}
	if entropy([]byte(v)) < 2.0 {
		return false // aaaaaaaa, 12121212, 00000000000
	}
	switch strings.ToLower(v) {
	case "localhost", "development", "production", "staging", "undefined", "password", "changeme":
		return false
	}
	return true
}

// AddKnown registers value as a secret of the given kind (known-secret if
// empty): from now on every exact occurrence is redacted. Values shorter than
// 8 bytes or of low entropy are ignored.
func (r *Redactor) AddKnown(kind, value string) {
	r.addKnown([]knownValue{{value: strings.TrimSpace(value), kind: normKind(kind)}})
}

func (r *Redactor) addKnown(vals []knownValue) {
	r.mu.Lock()
	defer r.mu.Unlock()
	added := false
	for _, kv := range vals {
		if !knownValueOK(kv.value) || r.seen[kv.value] {
			continue
		}
		r.seen[kv.value] = true
		r.known = append(r.known, kv)
		added = true
	}
	if added {
		r.engine.Store(newEngine(r.cfg, r.known))
	}
}

// normKind turns a caller's kind into a lowercase-hyphen placeholder name.
func normKind(kind string) string {
	var sb strings.Builder
	for _, c := range []byte(strings.ToLower(strings.TrimSpace(kind))) {
		switch {
		case 'a' <= c && c <= 'z', '0' <= c && c <= '9':
			sb.WriteByte(c)
		case sb.Len() > 0 && !strings.HasSuffix(sb.String(), "-"):
			sb.WriteByte('-')
		}
	}
	k := strings.TrimSuffix(sb.String(), "-")
	if k == "" {
		return KindKnownSecret
	}
	return k
}

// AddEnv registers, as known secrets, the values of the variables in environ
// ("NAME=value", as from os.Environ) whose names mark them as secrets
// (ClassifyEnvName: the same names that are kept from commands), whatever
// their entropy: REDIS_PASSWORD=amber-12345-delta is redacted wherever it
// shows. For URL values (and URL-named variables, EnvURL) the password of
// user:password@ is registered, so that it is caught on its own.
func (r *Redactor) AddEnv(environ []string) {
	var vals []knownValue
	for _, kv := range environ {
		name, value, ok := strings.Cut(kv, "=")
		if !ok {
			continue
		}
		class := ClassifyEnvName(name)
		if class != EnvSecret && class != EnvURL {
			continue
		}
		value = strings.TrimSpace(value)
		if pw := userinfoPassword(value); pw != "" {
			vals = append(vals, knownValue{value: pw, kind: KindKnownSecret})
		}
		if class == EnvSecret {
			vals = append(vals, knownValue{value: value, kind: KindKnownSecret})
		}
	}
	r.addKnown(vals)
}

// userinfoPassword returns the password of "scheme://user:password@host" or of
// a DSN like "user:password@tcp(host)/db", or "".
func userinfoPassword(v string) string {
	rest := v
	if _, after, ok := strings.Cut(v, "://"); ok {
		rest = after
	}
	at := -1
	for i := 0; i < len(rest); i++ {
		c := rest[i]
		if c == '/' || c == '?' || c == '#' || c == ' ' {
			break
		}
		if c == '@' {
			at = i
		}
	}
	if at < 0 {
		return ""
	}
	_, pw, ok := strings.Cut(rest[:at], ":")
	if !ok || pw == "" || placeholderPassword([]byte(pw)) {
		return ""
	}
	return pw
}

// dotenvEntry is one KEY=VALUE of a .env file; the value span excludes quotes.
type dotenvEntry struct {
	keyStart, keyEnd int
	valStart, valEnd int
}

// parseDotenv parses .env content: KEY=VALUE lines, optional "export ",
// '#' comments, single- and double-quoted values (which may span lines),
// and inline " #" comments after bare values.
func parseDotenv(b []byte) []dotenvEntry {
	var out []dotenvEntry
	i := 0
	for i < len(b) {
		le := bytes.IndexByte(b[i:], '\n')
		if le < 0 {
			le = len(b)
		} else {
			le += i
		}
		j := skipSpaces(b, i)
		if hasPrefixAt(b, j, "export ") {
			j = skipSpaces(b, j+len("export "))
		}
		ks := j
		if j < le && (is(b[j], cAlpha) || b[j] == '_') {
			j = spanOf(b, j, cIdent|cDot|cDash, le-j)
		}
		ke := j
		j = skipSpaces(b, j)
		if ke == ks || j >= le || b[j] != '=' {
			i = le + 1
			continue
		}
		j = skipSpaces(b, j+1)
		if j < len(b) && (b[j] == '"' || b[j] == '\'') {
			q := b[j]
			k := j + 1
			for k < len(b) && b[k] != q {
				if b[k] == '\\' && q == '"' {
					k++
				}
				k++
			}
			if k > len(b) {
				k = len(b)
			}
			out = append(out, dotenvEntry{ks, ke, j + 1, k})
			nl := bytes.IndexByte(b[min(k, len(b)):], '\n')
			if nl < 0 {
				return out
			}
			i = k + nl + 1
			continue
		}
		ve := le
		if h := bytes.Index(b[j:le], []byte(" #")); h >= 0 {
			ve = j + h
		}
		for ve > j && is(b[ve-1], cWS) {
			ve--
		}
		out = append(out, dotenvEntry{ks, ke, j, ve})
		i = le + 1
	}
	return out
}

// AddDotenv registers every value of a .env file as a known secret of kind
// dotenv-value (values that AddKnown would ignore excepted), so that later
// output quoting them is redacted.
func (r *Redactor) AddDotenv(content []byte) {
	var vals []knownValue
	for _, e := range parseDotenv(content) {
		vals = append(vals, knownValue{value: strings.TrimSpace(string(content[e.valStart:e.valEnd])), kind: KindDotenvValue})
	}
	r.addKnown(vals)
}

// RedactDotenv returns .env content with every non-empty value replaced by a
// dotenv-value placeholder, keys, comments and layout kept; the text outside
// values still goes through Redact. It does not register the values (see
// AddDotenv).
func (r *Redactor) RedactDotenv(content []byte) []byte {
	entries := parseDotenv(content)
	out := make([]byte, 0, len(content))
	last := 0
	for _, e := range entries {
		if e.valEnd <= e.valStart {
			continue
		}
		out = append(out, r.RedactBytes(content[last:e.valStart])...)
		out = r.appendPlaceholder(out, KindDotenvValue, content[e.valStart:e.valEnd])
		r.count(KindDotenvValue)
		last = e.valEnd
	}
	out = append(out, r.RedactBytes(content[last:])...)
	return out
}
