package redact

import "bytes"

// Documented example credentials (AWS's AKIAIOSFODNN7EXAMPLE and
// wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY, and their kin) are reported as
// examples and never redacted: they are published in vendor docs and
// appear in countless tutorials and test suites.

// isAWSExample reports whether v is (a variant of) AWS's documented example
// access key id or secret key: AWS's documentation marks all of them with
// EXAMPLE (AKIAI44QH8DHBEXAMPLE, je7MtGbClwBF/2Zp9Utk/h3yCo8nvbEXAMPLEKEY, ...).
func isAWSExample(v []byte) bool {
	return bytes.HasSuffix(v, []byte("EXAMPLE")) || bytes.Contains(v, []byte("EXAMPLEKEY"))
}

// awsKeyID: (AKIA|ASIA|ABIA|ACCA|A3T.)[A-Z0-9]{16}, whole word.
func (sc *scanner) awsKeyID(s int) {
	b := sc.b
	if s+20 > len(b) || !boundaryBefore(b, s, cAlnum) {
		return
	}
	switch string(b[s : s+4]) {
	case "AKIA", "ASIA", "ABIA", "ACCA":
	default:
		if !(b[s] == 'A' && b[s+1] == '3' && b[s+2] == 'T' && is(b[s+3], cUpper|cDigit)) {
			return
		}
	}
	v := b[s : s+20]
	if !all(v[4:], cUpper|cDigit) || !boundaryAfter(b, s+20, cAlnum) {
		return
	}
	if isAWSExample(v) {
		sc.addExample(s, s+20, KindAWSAccessKeyID)
	} else if entropy(v) >= 2.5 {
		sc.add(s, s+20, KindAWSAccessKeyID)
	} else {
		return
	}
	// A secret key on the same line: CSV exports, "id secret" pairs.
	sc.awsSecretIn(s+20, lineEnd(b, s+20, 256))
}

// awsSecret runs on "aws" and on secret-access-key spellings: a 40-char
// base64 value later on the same line.
func (sc *scanner) awsSecret(s, e int) {
	b := sc.b
	end := lineEnd(b, e, 256)
	if e-s == 3 { // "aws": needs "secret" right after, as in AWS_SECRET_ACCESS_KEY or awsSecretKey
		if !containsFold(b[e:min(end, e+48)], "secret") {
			return
		}
	}
	sc.awsSecretIn(e, end)
}

// awsSecretIn looks for exactly-40-char standard-base64 runs in b[from:to]
// with both letter cases and high entropy.
func (sc *scanner) awsSecretIn(from, to int) {
	b := sc.b
	for i := from; i < to; {
		if !is(b[i], cB64) {
			i++
			continue
		}
		j := spanOf(b, i, cB64, to-i)
		if j-i == 40 && boundaryAfter(b, j, cEq) && boundaryBefore(b, i, cB64) {
			v := b[i:j]
			m := classes(v)
			switch {
			case isAWSExample(v):
				sc.addExample(i, j, KindAWSSecretKey)
			case m&cUpper != 0 && m&cLower != 0 && entropy(v) >= 3.5:
				sc.add(i, j, KindAWSSecretKey)
			}
		}
		i = j
	}
}

// googleAPI: AIza[0-9A-Za-z_-]{35}.
func (sc *scanner) googleAPI(s int) {
	b := sc.b
	if !hasPrefixAt(b, s, "AIza") || !boundaryBefore(b, s, cB64URL) {
		return
	}
	end := s + 39
	if end > len(b) || spanOf(b, s+4, cB64URL, 35) != end || !boundaryAfter(b, end, cB64URL) {
		return
	}
	if publicGoogleKeys[string(b[s:end])] {
		sc.addExample(s, end, KindGoogleAPIKey)
		return
	}
	if entropy(b[s+4:end]) >= 3.5 {
		sc.add(s, end, KindGoogleAPIKey)
	}
}

// publicGoogleKeys are browser API keys published in Google's and
// Firebase's samples and SDKs, listed as non-secrets by gitleaks'
// gcp-api-key rule (v8.30.1): documented values, reported, not redacted.
var publicGoogleKeys = map[string]bool{
	"AIzaSyabcdefghijklmnopqrstuvwxyz1234567": true, "AIzaSyAnLA7NfeLquW1tJFpx_eQCxoX-oo6YyIs": true,
	"AIzaSyCkEhVjf3pduRDt6d1yKOMitrUEke8agEM": true, "AIzaSyDMAScliyLx7F0NPDEJi1QmyCgHIAODrlU": true,
	"AIzaSyD3asb-2pEZVqMkmL6M9N6nHZRR_znhrh0": true, "AIzayDNSXIbFmlXbIE6mCzDLQAqITYefhixbX4A": true,
	"AIzaSyAdOS2zB6NCsk1pCdZ4-P6GBdi_UUPwX7c": true, "AIzaSyASWm6HmTMdYWpgMnjRBjxcQ9CKctWmLd4": true,
	"AIzaSyANUvH9H9BsUccjsu2pCmEkOPjjaXeDQgY": true, "AIzaSyA5_iVawFQ8ABuTZNUdcwERLJv_a_p4wtM": true,
	"AIzaSyA4UrcGxgwQFTfaI3no3t7Lt1sjmdnP5sQ": true, "AIzaSyDSb51JiIcB6OJpwwMicseKRhhrOq1cS7g": true,
	"AIzaSyBF2RrAIm4a0mO64EShQfqfd2AFnzAvvuU": true, "AIzaSyBcE-OOIbhjyR83gm4r2MFCu4MJmprNXsw": true,
	"AIzaSyB8qGxt4ec15vitgn44duC5ucxaOi4FmqE": true, "AIzaSyA8vmApnrHNFE0bApF4hoZ11srVL_n0nvY": true,
}

// gcp: the "private_key" and "private_key_id" values of a service-account
// JSON file, also when that JSON is itself escaped inside a string.
func (sc *scanner) gcp(s, e int) {
	b := sc.b
	if s == 0 || b[s-1] != '"' {
		return
	}
	isID := bytes.Contains(b[s:e], []byte("_id"))
	escaped := b[e-2] == '\\' // the key's closing quote was \"
	i := skipSpaces(b, e)
	if i >= len(b) || b[i] != ':' {
		return
	}
	i = skipSpaces(b, i+1)
	if escaped {
		if !hasPrefixAt(b, i, `\"`) {
			return
		}
		i += 2
	} else {
		if i >= len(b) || b[i] != '"' {
			return
		}
		i++
	}
	vs := i
	lim := min(len(b), vs+pemCap)
	ve := -1
	if escaped {
		if k := bytes.Index(b[vs:lim], []byte(`\"`)); k >= 0 {
			ve = vs + k
		}
	} else {
		for j := vs; j < lim; j++ {
			if b[j] == '\\' {
				j++
			} else if b[j] == '"' {
				ve = j
				break
			} else if b[j] == '\n' {
				break
			}
		}
	}
	if ve < 0 {
		return
	}
	v := b[vs:ve]
	if isID {
		if len(v) >= 16 && len(v) <= 64 && all(v, cHexLow) {
			sc.add(vs, ve, KindGCPServiceAccount)
		}
		return
	}
	if bytes.Contains(v, []byte("PRIVATE KEY")) {
		sc.add(vs, ve, KindGCPServiceAccount)
	}
}

// azure: AccountKey=<base64> in storage connection strings and
// SharedAccessKey=<base64> in Service Bus / Event Hubs ones.
func (sc *scanner) azure(s, e int) {
	b := sc.b
	i := e
	if i < len(b) && is(b[i], cQuote) {
		i++
	}
	i = skipSpaces(b, i)
	if i >= len(b) || (b[i] != '=' && b[i] != ':') {
		return
	}
	i = skipSpaces(b, i+1)
	if i < len(b) && is(b[i], cQuote) {
		i++
	}
	j := spanOf(b, i, cB64|cEq, 128)
	v := b[i:j]
	if len(v) < 40 || !boundaryAfter(b, j, cB64URL) {
		return
	}
	m := classes(v)
	if m&cUpper != 0 && m&cLower != 0 && entropy(v) >= 3.5 {
		sc.add(i, j, KindAzureStorageKey)
	}
}
