package redact

import "hash/crc32"

// base62 is the GMP (digits, upper, lower) alphabet GitHub and npm use for
// token checksums.
const base62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"

// base62CRC32 returns the 6-char base62 CRC-32 (IEEE) of v, zero padded: the
// checksum GitHub (ghp_, gho_, ghu_, ghs_, ghr_) and npm (npm_) append to
// the 30 random characters of their tokens.
func base62CRC32(v []byte) [6]byte {
	c := crc32.ChecksumIEEE(v)
	var out [6]byte
	for i := 5; i >= 0; i-- {
		out[i] = base62[c%62]
		c /= 62
	}
	return out
}

// checksumOK reports whether the 36-char token body (30 random + 6
// checksum) carries a valid base62 CRC-32.
func checksumOK(body []byte) bool {
	if len(body) != 36 {
		return false
	}
	sum := base62CRC32(body[:30])
	return string(sum[:]) == string(body[30:])
}

// github: gh[pousr]_ + 36 base62 chars (checksummed), or longer.
func (sc *scanner) github(s int) {
	b := sc.b
	if !hasPrefixAt(b, s, "gh") || b[s+3] != '_' || !boundaryBefore(b, s, cAlnum) {
		return
	}
	sc.checksummedToken(s, s+4, KindGitHubToken, 255)
}

// npm: npm_ + 36 base62 chars, checksummed like GitHub's.
func (sc *scanner) npm(s int) {
	if !hasPrefixAt(sc.b, s, "npm_") || !boundaryBefore(sc.b, s, cAlnum) {
		return
	}
	sc.checksummedToken(s, s+4, KindNPMToken, 36)
}

// checksummedToken accepts prefix+body when the body is a valid 36-char
// checksummed token or, failing the checksum, when it is long and random
// enough to be one anyway (hand-edited, legacy or future formats).
func (sc *scanner) checksummedToken(s, bs int, kind string, max int) {
	b := sc.b
	j := spanOf(b, bs, cAlnum, max+1)
	body := b[bs:j]
	if len(body) < 36 || len(body) > max || !boundaryAfter(b, j, cIdent) {
		return
	}
	if checksumOK(body) || entropy(body) >= 4.0 {
		sc.add(s, j, kind)
	}
}

// githubPAT: fine-grained personal access tokens, github_pat_ + 22 + _ + 59.
func (sc *scanner) githubPAT(s int) {
	b := sc.b
	if !hasPrefixAt(b, s, "github_pat_") || !boundaryBefore(b, s, cAlnum) {
		return
	}
	j := spanOf(b, s+11, cIdent, 256)
	if body := b[s+11 : j]; len(body) >= 70 && entropy(body) >= 4.0 {
		sc.add(s, j, KindGitHubToken)
	}
}

// gitlabPrefixes are GitLab's token prefixes: personal, deploy, runner
// (authentication and registration), CI job, pipeline trigger, feed, incoming
// mail, agent, SCIM, OAuth application secret, feature flags client,
// workspace tokens.
var gitlabPrefixes = []string{
	"glpat-", "gldt-", "glrt-", "glrtr-", "glcbt-", "glptt-", "glft-",
	"glimt-", "glagent-", "glsoat-", "gloas-", "glffct-", "glwt-", "gr1348941",
}

// gitlab: a GitLab prefix + 20 or more token chars.
func (sc *scanner) gitlab(s, e int) {
	b := sc.b
	if !boundaryBefore(b, s, cAlnum) {
		return
	}
	p := b[s:e]
	if p[0] == 'g' && p[1] == 'l' {
		if !all(p[:len(p)-1], cLower) {
			return
		}
	} else if string(p) != "GR1348941" {
		return
	}
	j := spanOf(b, e, cToken, 256)
	for j > e && b[j-1] == '.' {
		j--
	}
	if body := b[e:j]; len(body) >= 20 && entropy(body) >= 2.8 {
		sc.add(s, j, KindGitLabToken)
	}
}

// pypi: pypi-Ag... macaroons (pypi.org: pypi-AgEIcHlwaS5vcmc..., test.pypi.org:
// pypi-AgENdGVzdC5weXBpLm9yZw...).
func (sc *scanner) pypi(s int) {
	b := sc.b
	if !hasPrefixAt(b, s, "pypi-Ag") || !boundaryBefore(b, s, cAlnum) {
		return
	}
	j := spanOf(b, s+5, cB64URL, 4096)
	if body := b[s+5 : j]; len(body) >= 50 && entropy(body) >= 3.5 {
		sc.add(s, j, KindPyPIToken)
	}
}
