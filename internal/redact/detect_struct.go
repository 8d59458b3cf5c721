package redact

import (
	"bytes"
	"encoding/base64"
)

// pemCap bounds how far a private-key block (and a service-account value)
// may extend: RSA-4096 PEM is about 3.3 KiB, big PGP key blocks reach tens of
// KiB.
const pemCap = 256 << 10

// jwtMax bounds one JWT segment.
const jwtMax = 16 << 10

// jwt: eyJ<header>.eyJ<payload>.<signature>, header decoding to a JSON object
// that names its algorithm or type. The signature may be empty (alg none).
func (sc *scanner) jwt(s int) {
	b := sc.b
	if !hasPrefixAt(b, s, "eyJ") || !boundaryBefore(b, s, cB64URL) {
		return
	}
	h := spanOf(b, s, cB64URL, jwtMax)
	if h-s < 10 || h >= len(b) || b[h] != '.' || !hasPrefixAt(b, h+1, "eyJ") {
		return
	}
	p := spanOf(b, h+1, cB64URL, jwtMax)
	if p-h-1 < 10 || p >= len(b) || b[p] != '.' {
		return
	}
	end := spanOf(b, p+1, cB64URL, jwtMax)
	if !jwtHeaderOK(b[s:h]) {
		return
	}
	sc.add(s, end, KindJWT)
}

func jwtHeaderOK(seg []byte) bool {
	var buf [768]byte
	if base64.RawURLEncoding.DecodedLen(len(seg)) > len(buf) {
		return false
	}
	n, err := base64.RawURLEncoding.Decode(buf[:], seg)
	if err != nil && n == 0 {
		return false
	}
	d := buf[:n]
	return len(d) > 0 && d[0] == '{' && (bytes.Contains(d, []byte(`"alg"`)) || bytes.Contains(d, []byte(`"typ"`)))
}

// pemHeader parses "-----BEGIN <label>-----" at s and returns the label
// and the index after the header, or ok false if this is not the header of a
// private key block.
func pemHeader(b []byte, s int) (label []byte, hdrEnd int, ok bool) {
	if !hasPrefixAt(b, s, "-----BEGIN ") {
		return nil, 0, false
	}
	ls := s + len("-----BEGIN ")
	k := bytes.Index(window(b, ls, 64), []byte("-----"))
	if k < 0 {
		return nil, 0, false
	}
	label = b[ls : ls+k]
	if !bytes.Contains(label, []byte("PRIVATE KEY")) || !all(label, cUpper|cDigit|cSpace) {
		return nil, 0, false
	}
	return label, ls + k + 5, true
}

// pemEnd finds the "-----END <label>-----" marker after hdrEnd within the
// cap and returns the index after it, or -1 if the block is not terminated
// (another BEGIN or a different END comes first, or nothing does).
func pemEnd(b []byte, hdrEnd int, label []byte) int {
	return pemEndAt(b, hdrEnd, label, nextEnd(b, hdrEnd))
}

// nextEnd returns the index of the next "-----END " at or after i within
// the cap, or -1.
func nextEnd(b []byte, i int) int {
	if k := bytes.Index(b[i:min(len(b), i+pemCap)], []byte("-----END ")); k >= 0 {
		return i + k
	}
	return -1
}

// nextEnd is nextEnd memoised across the BEGIN lines of one scan, so that
// many BEGIN lines before one END (or none) cost one search, not one each:
// the memo says no END starts in [endFrom, endAt), or, with endAt < 0, in
// [endFrom, endTo-len("-----END ")].
func (sc *scanner) nextEnd(i int) int {
	const n = len("-----END ")
	lim := min(len(sc.b), i+pemCap)
	if sc.endValid && i >= sc.endFrom {
		if sc.endAt >= i {
			return sc.endAt
		}
		if sc.endAt < 0 && i <= sc.endTo {
			from := max(i, sc.endTo-n+1)
			at := -1
			if from < lim {
				if k := bytes.Index(sc.b[from:lim], []byte("-----END ")); k >= 0 {
					at = from + k
				}
			}
			sc.endFrom, sc.endTo, sc.endAt = i, lim, at
			return at
		}
	}
	sc.endFrom, sc.endTo, sc.endAt, sc.endValid = i, lim, nextEnd(sc.b, i), true
	return sc.endAt
}

func pemEndAt(b []byte, hdrEnd int, label []byte, end int) int {
	if end < 0 {
		return -1
	}
	k := end - hdrEnd
	if nb := bytes.Index(b[hdrEnd:hdrEnd+k], []byte("-----BEGIN ")); nb >= 0 {
		return -1
	}
	p := hdrEnd + k + len("-----END ")
	if !bytes.HasPrefix(b[p:], label) || !hasPrefixAt(b, p+len(label), "-----") {
		return -1
	}
	return p + len(label) + 5
}

// pem: a whole private-key block (PKCS#1, PKCS#8, SEC1, OpenSSH, PGP,
// encrypted ones), BEGIN to END. A block cut short (head of a key file,
// truncated output) is redacted as far as its body goes.
func (sc *scanner) pem(s int) {
	b := sc.b
	label, hdrEnd, ok := pemHeader(b, s)
	if !ok {
		return
	}
	if end := pemEndAt(b, hdrEnd, label, sc.nextEnd(hdrEnd)); end >= 0 {
		if countB64(b[hdrEnd:end]) >= 64 {
			sc.add(s, end, KindPrivateKey)
		}
		return
	}
	j := pemBodyEnd(b, hdrEnd, min(len(b), hdrEnd+pemCap))
	if countB64(b[hdrEnd:j]) >= 64 {
		sc.add(s, j, KindPrivateKey)
	}
}

func countB64(v []byte) int {
	n := 0
	for _, c := range v {
		if is(c, cB64) {
			n++
		}
	}
	return n
}

// pemBodyEnd returns the end of the body of an unterminated block: RFC 1421
// headers, then base64 lines (also with escaped \n, as inside JSON strings).
func pemBodyEnd(b []byte, i, lim int) int {
	for {
		j := i
		for j < lim && is(b[j], cWS) {
			j++
		}
		if !(hasPrefixAt(b, j, "Proc-Type:") || hasPrefixAt(b, j, "DEK-Info:") ||
			hasPrefixAt(b, j, "Comment:") || hasPrefixAt(b, j, "Version:")) {
			break
		}
		i = lineEnd(b, j, 256)
	}
	end := i
	for i < lim {
		c := b[i]
		if !is(c, cB64|cEq|cWS) && c != '\\' {
			break
		}
		i++
		if !is(c, cWS) {
			end = i
		}
	}
	return end
}

// placeholderPassword reports values that stand for a password rather than
// being one: ${VAR}, $VAR, %s, <password>, {{ .Pass }}, ***, xxx, "password".
func placeholderPassword(v []byte) bool {
	switch v[0] {
	case '<', '{', '[', '*', '(':
		return true
	case '$':
		// $VAR, ${VAR}, $(cmd); $2b$... (a hash) and random $x!.. are not.
		if len(v) == 1 || is(v[1], cAlpha|cUnder) || v[1] == '{' || v[1] == '(' {
			return true
		}
	case '%':
		// %s, %v, %(password)s, %{DB_PASS}, %DB_PASSWORD%; not %PDm8...
		if len(v) <= 2 || v[1] == '(' || v[1] == '{' || envRef(v) {
			return true
		}
	}
	same := true
	for _, c := range v {
		if c != v[0] {
			same = false
			break
		}
	}
	if same {
		return true
	}
	for _, w := range placeholderWords {
		if len(v) == len(w) && hasPrefixFold(v, 0, w) {
			return true
		}
	}
	// P@ssw0rd and friends are the canonical example passwords: the word
	// itself in leetspeak, with at most a few digits or "!" after it
	// (Password123!). A value with more around it (S3cr3tPassw0rd) is not.
	for k := 0; k < 4 && len(v) > 0; k++ {
		if c := v[len(v)-1]; c >= '0' && c <= '9' || c == '!' || c == '#' {
			v = v[:len(v)-1]
			continue
		}
		break
	}
	if len(v) == 0 || len(v) > 16 {
		return false
	}
	var buf [64]byte
	n := buf[:0]
	for _, c := range v {
		switch c {
		case '@', '4':
			c = 'a'
		case '0':
			c = 'o'
		case '$', '5':
			c = 's'
		case '3':
			c = 'e'
		case '1', '!':
			c = 'i'
		}
		n = append(n, c)
	}
	for _, w := range []string{"password", "passwd", "mypassword", "yourpassword", "examplepassword"} {
		if len(n) == len(w) && hasPrefixFold(n, 0, w) {
			return true
		}
	}
	return false
}

// envRef reports a Windows environment reference: %DB_PASSWORD%, %Pass%,
// %PYTHON3%; not random letters between percent signs (%aDntllHwfELrchkIEK%).
func envRef(v []byte) bool {
	if len(v) < 3 || v[0] != '%' || v[len(v)-1] != '%' {
		return false
	}
	in := v[1 : len(v)-1]
	return constantCase(in) || identLike(in) && memberName(in) || wordish(in)
}

var placeholderWords = []string{
	"pass", "pwd", "secret", "changeme", "change_me", "change-me", "redacted",
	"hidden", "masked", "xxxxxx", "pw", "p", "pass123", "mypass", "secretpassword",
}
