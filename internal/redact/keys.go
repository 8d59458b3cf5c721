package redact

import "bytes"

// Key names: how strongly a key says its value is secret (keyTier), and
// the key names whose values are not secrets (excludedKey).

// tier is how strongly a key name says its value is secret.
type tier uint8

const (
	tierNone     tier = iota
	tierWeak          // *key, *_key, auth, oauth: only random values
	tierStrong        // secret, token, api_key, credential, ...
	tierPassword      // password, passwd, passphrase, pass, pwd
)

var (
	passwordFragments = []string{"password", "passwd", "passphrase"}
	strongFragments   = []string{"secret", "token", "apikey", "accesskey", "authkey", "credential", "privatekey"}
)

// keyTier classifies a key name: by its letters run together (client_secret,
// CLIENTSECRET and clientSecret alike) for the strong words, by its words
// (split at separators and case changes) for pass, pwd and the weak ones.
func keyTier(key []byte) tier {
	var buf [192]byte
	k := buf[:0]
	for _, c := range key {
		if is(c, cAlnum) {
			k = append(k, lower(c))
		}
	}
	for _, w := range passwordFragments {
		if containsStr(k, w) {
			return tierPassword
		}
	}
	for _, w := range strongFragments {
		if containsStr(k, w) {
			return tierStrong
		}
	}
	// The weak words must end the key (storage_key, signingKey, auth), or
	// come just before a word for its encoding (client-key-data): in
	// ExtKeyUsageAny or keyPrefix the key is something else.
	weak, prevWeak := false, false
	for rest := key; len(rest) > 0; {
		var w []byte
		w, rest = nextWord(rest)
		if len(w) == 0 {
			break
		}
		var lb [64]byte
		lw := lb[:0]
		for _, c := range w[:min(len(w), 64)] {
			lw = append(lw, lower(c))
		}
		switch string(lw) {
		case "pass", "pwd":
			return tierPassword
		case "data", "value", "b64", "base64", "hex", "pem":
			weak = prevWeak
			continue
		}
		weak = string(lw) == "key" || string(lw) == "keys" || string(lw) == "auth" || string(lw) == "oauth" || string(lw) == "creds" ||
			len(lw) > 3 && bytes.HasSuffix(lw, []byte("key")) || len(lw) > 4 && bytes.HasSuffix(lw, []byte("auth"))
		prevWeak = weak
	}
	if weak {
		return tierWeak
	}
	return tierNone
}

// containsStr reports whether v contains w.
func containsStr(v []byte, w string) bool {
	for i := 0; i+len(w) <= len(v); i++ {
		if v[i] == w[0] && string(v[i:i+len(w)]) == w {
			return true
		}
	}
	return false
}

// endsWithPasswordWord reports keys whose last word names a password
// (admin_password, smtpPass, DB_PWD), not a property of one
// (password_hash_algorithm).
func endsWithPasswordWord(key []byte) bool {
	var buf [192]byte
	k := buf[:0]
	for _, c := range key {
		if is(c, cAlnum) {
			k = append(k, lower(c))
		}
	}
	for _, w := range []string{"password", "passwd", "passphrase", "pass", "pwd"} {
		if len(k) >= len(w) && string(k[len(k)-len(w):]) == w {
			return true
		}
	}
	return false
}

// nextWord splits the first word off an identifier: at separators, at a
// lower-to-upper change (storageKey) and at an upper run's end (APIKey).
func nextWord(v []byte) (word, rest []byte) {
	i := 0
	for i < len(v) && !is(v[i], cAlnum) {
		i++
	}
	v = v[i:]
	j := 1
	for j < len(v) && is(v[j], cAlnum) {
		c, p := v[j], v[j-1]
		if is(c, cUpper) && is(p, cLower|cDigit) {
			break
		}
		if is(c, cLower) && is(p, cUpper) && j >= 2 && is(v[j-2], cUpper) {
			j-- // APIKey: the run APIK ends before K
			break
		}
		j++
	}
	if len(v) == 0 {
		return nil, nil
	}
	j = min(j, len(v))
	return v[:j], v[j:]
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
	"algorithm", "algo",
}

// notSecretKeyPrefixes start key names whose values are not secrets
// though the name says key or token: public_key, publicToken, primaryKey,
// foreignKey, csrf-token (a per-session form token shown in every page).
var notSecretKeyPrefixes = []string{"public", "pubkey", "primary", "foreign", "csrf", "xsrf", "natural", "schema", "sequence", "bucket"}

func excludedKey(key []byte) bool {
	var buf [64]byte
	k := buf[:0]
	for _, c := range key {
		if is(c, cAlnum) {
			k = append(k, lower(c))
		}
	}
	if len(k) == 0 {
		return false
	}
	for _, p := range notSecretKeyPrefixes {
		if bytes.HasPrefix(k, []byte(p)) && !bytes.Contains(k, []byte("secret")) && !bytes.Contains(k, []byte("password")) {
			return true
		}
	}
	if bytes.HasPrefix(k, []byte("keyvault")) {
		return true // keyVaultToStoreSecrets: a vault's name
	}
	last := k[len(k)-1]
	for _, s := range excludedKeySuffixes {
		if s[len(s)-1] == last && len(k) > len(s) && string(k[len(k)-len(s):]) == s {
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
