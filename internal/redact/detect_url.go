package redact

import "bytes"

// dbSchemes are the URL schemes whose password is named db-url-password;
// every other scheme's is url-password.
var dbSchemes = []string{
	"postgres", "postgresql", "mysql", "mariadb", "mongodb", "mongodb+srv",
	"redis", "rediss", "amqp", "amqps", "sqlserver", "mssql", "clickhouse",
	"cockroachdb", "couchdb", "neo4j", "neo4j+s", "nats",
}

func dbScheme(s []byte) bool {
	for _, d := range dbSchemes {
		if len(s) == len(d) && hasPrefixFold(s, 0, d) {
			return true
		}
	}
	return false
}

// urlCreds runs on "://": the userinfo of scheme://user:password@host (the
// password is replaced, the user and host stay readable), and a user name
// that is itself a key, as in Sentry DSNs (https://KEY@o1.ingest.sentry.io/1)
// and token clone URLs (https://TOKEN@git.example.com/repo.git).
func (sc *scanner) urlCreds(s int) {
	b := sc.b
	ss := startOf(b, s, cAlnum|cPlus|cDot|cDash, 32)
	for ss < s && !is(b[ss], cAlpha) {
		ss++
	}
	if ss == s {
		return
	}
	i := s + 3
	lim := min(len(b), i+512)
	at := -1
	for j := i; j < lim; j++ {
		c := b[j]
		if is(c, cWS|cQuote) || c == '/' || c == '?' || c == '#' || c == '<' || c == '>' || c == '\\' {
			break
		}
		if c == '@' {
			at = j
		}
	}
	if at <= i {
		return
	}
	ui := b[i:at]
	if hostHas(b, at, "contribsys.com") {
		sc.add(i, at, "sidekiq-secret") // both halves of user:password are the license
		return
	}
	if colon := bytes.IndexByte(ui, ':'); colon >= 0 {
		ps := i + colon + 1
		if pw := b[ps:at]; len(pw) > 0 && !placeholderPassword(pw) {
			kind := KindURLPassword
			if dbScheme(b[ss:s]) {
				kind = KindDBURLPassword
			}
			sc.add(ps, at, kind)
		}
		if userTokenOK(ui[:colon]) {
			sc.add(i, i+colon, KindURLToken)
		}
		return
	}
	if hostHas(b, at, "sentry") {
		if sentryKeyOK(ui) {
			sc.add(i, at, KindSentryDSN)
		}
		return
	}
	if userTokenOK(ui) {
		sc.add(i, at, KindURLToken)
	}
}

// sentryKeyOK reports the key of a Sentry DSN (https://KEY@o1.ingest.sentry.io/1):
// the host marks the user name as a key, so its letters need not look
// random beyond turning away placeholders (a key of 32 hex digits has less
// than 3 bits of entropy once in 10,000 draws, and hex is never a word).
func sentryKeyOK(v []byte) bool {
	if len(v) < 16 || len(v) > 256 || !all(v, cToken) || placeholderPassword(v) {
		return false
	}
	return diversity(v) >= 2 && entropy(v) >= min(3.0, randomFloor(v, markedFloor)) && !wordish(v) && !identLike(v)
}

// hostHas reports whether the host after the '@' at at contains w.
func hostHas(b []byte, at int, w string) bool {
	he := at + 1
	for he < len(b) && he-at < 256 && is(b[he], cAlnum|cDot|cDash) {
		he++
	}
	return containsFold(b[at+1:he], w)
}

// userTokenOK reports a URL user name that is a key, not a name: long,
// random and of token characters (git, deploy, app_user, jane.doe are
// names).
func userTokenOK(v []byte) bool {
	if len(v) < 16 || len(v) > 256 || !all(v, cToken) || placeholderPassword(v) {
		return false
	}
	return diversity(v) >= 2 && entropy(v) >= 3.0 && !wordish(v) && !identLike(v)
}
