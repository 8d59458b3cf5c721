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
// ("NAME=value", as from os.Environ) whose names look secret: *KEY*,
// *TOKEN*, *SECRET*, *PASSWORD*, *PASSWD*, *CREDENTIAL*, *AUTH*, *_DSN,
// DATABASE_URL, ... For URL values the password of user:password@ is
// registered too, so that it is caught on its own.
func (r *Redactor) AddEnv(environ []string) {
	var vals []knownValue
	for _, kv := range environ {
		name, value, ok := strings.Cut(kv, "=")
		if !ok || !secretEnvName(name) {
			continue
		}
		value = strings.TrimSpace(value)
		if pw := userinfoPassword(value); pw != "" {
			vals = append(vals, knownValue{value: pw, kind: KindKnownSecret})
		}
		if strings.HasSuffix(strings.ToUpper(name), "_URL") && !strings.EqualFold(name, "DATABASE_URL") {
			continue // a service URL: only its password is secret
		}
		vals = append(vals, knownValue{value: value, kind: KindKnownSecret})
	}
	r.addKnown(vals)
}

// secretEnvName reports whether an environment variable name looks like it
// holds a secret.
func secretEnvName(name string) bool {
	up := strings.ToUpper(name)
	switch up {
	case "PWD", "OLDPWD", "SSH_AUTH_SOCK", "GPG_AGENT_INFO", "XAUTHORITY", "GIT_AUTHOR_NAME",
		"GIT_AUTHOR_EMAIL", "GIT_AUTHOR_DATE", "KEYTIMEOUT":
		return false
	case "DATABASE_URL", "REDIS_URL", "MONGODB_URI", "MONGO_URL", "AMQP_URL", "CLOUDAMQP_URL":
		return true
	}
	parts := strings.FieldsFunc(up, func(c rune) bool { return c == '_' || c == '-' || c == '.' })
	if len(parts) == 0 {
		return false
	}
	switch parts[len(parts)-1] {
	case "FILE", "PATH", "DIR", "SOCK", "SOCKET", "HOST", "PORT", "USER", "USERNAME", "NAME",
		"TYPE", "MODE", "REGION", "ENDPOINT", "TIMEOUT", "TTL", "SIZE", "LENGTH", "LEN", "ENABLED", "EMAIL":
		return false
	}
	secret := false
	for _, p := range parts {
		switch {
		case p == "KEY", p == "KEYS", strings.HasSuffix(p, "KEY") && len(p) > 3 && !strings.HasSuffix(p, "MONKEY"),
			strings.Contains(p, "TOKEN"), strings.Contains(p, "SECRET"), strings.Contains(p, "PASSW"),
			p == "PASS", p == "PASSPHRASE", p == "PWD", strings.Contains(p, "CREDENTIAL"),
			p == "AUTH", strings.HasSuffix(p, "AUTH"), p == "AUTHORIZATION", p == "AUTHTOKEN", p == "DSN", p == "PRIVATE", p == "SALT",
			p == "COOKIE", p == "SESSION", p == "SIGNING", p == "WEBHOOK":
			secret = true
		}
	}
	if !secret && strings.HasSuffix(up, "_URL") {
		secret = true // only its userinfo password is used, see AddEnv
	}
	return secret
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
