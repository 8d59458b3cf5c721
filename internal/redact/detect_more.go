package redact

import (
	"bytes"
	"encoding/base64"
)

// Detectors of issue 19: Discord webhooks, .pgpass lines, and short .env
// values under secret-named keys (called from generic).

// Kinds of issue 19.
const (
	KindDiscordWebhook = "discord-webhook" // https://discord.com/api/webhooks/ID/TOKEN
	KindPgpassPassword = "pgpass-password" // host:port:database:user:PASSWORD
)

// discordWebhook: ".../api/webhooks/<17-20 digit id>/<60-68 char token>"
// (discord.com, discordapp.com, ptb. and canary.); the hit is "/webhooks/".
// JSON-escaped and percent-encoded slashes reach it through normalise.
func (sc *scanner) discordWebhook(s, e int) {
	b := sc.b
	if !bytes.Contains(bytes.ToLower(b[max(0, s-48):s]), []byte("discord")) {
		return
	}
	i := spanOf(b, e, cDigit, 24)
	if n := i - e; n < 17 || n > 20 || i >= len(b) || b[i] != '/' {
		return
	}
	j := spanOf(b, i+1, cB64URL, 100)
	if tok := b[i+1 : j]; len(tok) >= 60 && len(tok) <= 68 && boundaryAfter(b, j, cB64URL) && entropy(tok) >= 3.5 {
		sc.add(e, j, KindDiscordWebhook)
	}
}

// pgpass: a line of ~/.pgpass, "hostname:port:database:username:password",
// found at its port (":5432:", ":*:", ...). What precedes the host (a
// grep file name, read_file's line number) does not matter; the database
// and user fields must not both be numbers (/etc/shadow's "root:*:19000:0:").
func (sc *scanner) pgpass(s, e int) {
	b := sc.b
	ls := lineStart(b, s, 512)
	host := b[ls:s]
	if k := bytes.LastIndexAny(host, " \t:"); k >= 0 {
		host = host[k+1:]
	}
	if len(host) == 0 || !all(bytes.ReplaceAll(host, []byte("*"), []byte("x")), cToken) {
		return
	}
	le := lineEnd(b, e, 1024)
	for le > e && (b[le-1] == '\r' || b[le-1] == ' ') {
		le--
	}
	var fields [2][]byte
	i := e
	for f := 0; f < 2; f++ {
		j := pgpassField(b, i, le)
		if j >= le || j == i {
			return
		}
		fields[f] = b[i:j]
		i = j + 1
	}
	if all(fields[0], cDigit) && all(fields[1], cDigit) {
		return
	}
	for _, f := range fields {
		if bytes.ContainsAny(f, " \t\"'") {
			return
		}
	}
	pw := b[i:le]
	if len(pw) < 4 || bytes.IndexByte(pw, ' ') >= 0 && !bytes.Contains(pw, []byte(`\ `)) || placeholderPassword(pw) {
		return
	}
	sc.add(i, le, KindPgpassPassword)
}

// pgpassField returns the end of the .pgpass field at i (an unescaped ':').
func pgpassField(b []byte, i, le int) int {
	for i < le && b[i] != ':' {
		if b[i] == '\\' {
			i++
		}
		i++
	}
	return min(i, le)
}

// jwtBase64: a JWT encoded once more in base64 (Kubernetes Secret data,
// config blobs): base64 of "eyJ..." starts with "ZXlK"; the run must decode
// to a JWT's dotted base64url segments.
func (sc *scanner) jwtBase64(s int) {
	b := sc.b
	if !hasPrefixAt(b, s, "ZXlK") || !boundaryBefore(b, s, cB64) {
		return
	}
	j := spanOf(b, s, cB64, 16384)
	k := spanOf(b, j, cEq, 2)
	if j-s < 40 || !boundaryAfter(b, k, cB64) {
		return
	}
	enc := b[s:j]
	enc = enc[:len(enc)-len(enc)%4]
	dec := make([]byte, base64.StdEncoding.DecodedLen(len(enc)))
	n, err := base64.StdEncoding.Decode(dec, enc)
	if err != nil {
		return
	}
	dec = dec[:n]
	if !bytes.HasPrefix(dec, []byte("eyJ")) || bytes.IndexByte(dec, '.') < 8 || !all(dec, cB64URL|cDot) {
		return
	}
	sc.add(s, k, KindJWT)
}
