package redact

import (
	"slices"
	"strings"
)

// EnvClass says what an environment variable's name tells of its value.
type EnvClass uint8

const (
	// EnvPlain: the name does not mark a credential (PATH, PWD, GOPATH,
	// KEYBOARD_LAYOUT, GITHUB_SERVER_URL).
	EnvPlain EnvClass = iota
	// EnvSecret: the value is a secret (REDIS_PASSWORD, NPM_TOKEN, DB_PW,
	// MY_API_KEY, GCP_CREDS, AWS_SESSION_TOKEN).
	EnvSecret
	// EnvAgent: the value is not secret but grants the person's rights
	// (SSH_AUTH_SOCK, the person's ssh agent): kept from commands, not
	// redacted.
	EnvAgent
	// EnvURL: a URL or DSN (DATABASE_URL, SENTRY_DSN), a credential only when
	// its value carries one (user:password@); see SecretEnv.
	EnvURL
)

func (c EnvClass) String() string {
	switch c {
	case EnvSecret:
		return "secret"
	case EnvAgent:
		return "agent"
	case EnvURL:
		return "url"
	}
	return "plain"
}

// SecretEnvName reports whether an environment variable's name alone marks
// it as a credential (EnvSecret or EnvAgent): the names whose values AddEnv
// registers, and that callers keep from commands.
func SecretEnvName(name string) bool {
	c := ClassifyEnvName(name)
	return c == EnvSecret || c == EnvAgent
}

// SecretEnv reports whether a variable is a credential by its name or, for
// a URL-named one (EnvURL), by a password in its value. Values that hold a
// secret under any name are for the detectors (Find) to say.
func SecretEnv(name, value string) bool {
	switch ClassifyEnvName(name) {
	case EnvSecret, EnvAgent:
		return true
	case EnvURL:
		return userinfoPassword(strings.TrimSpace(value)) != ""
	}
	return false
}

// plainEnvNames are names that contain a credential word but hold none.
var plainEnvNames = []string{
	"PWD", "OLDPWD", "XAUTHORITY", "ICEAUTHORITY", "KEYTIMEOUT", "DESKTOP_SESSION",
	"SESSION_MANAGER", "SECURITYSESSIONID", "SESSIONNAME", "GPG_TTY",
}

// agentEnvNames hand a command the person's agents.
var agentEnvNames = []string{"SSH_AUTH_SOCK", "GPG_AGENT_INFO", "SSH_AGENT_PID"}

// urlEnvNames are URLs by convention without a URL word at the end.
var urlEnvNames = []string{"MONGODB_URI", "DATABASE_URI"}

// envQualifiers end names whose value describes a credential without
// being one: TOKEN_TTL, AUTH_HOST, PASSWORD_FILE, XDG_SESSION_TYPE.
var envQualifiers = []string{
	"FILE", "PATH", "DIR", "HOST", "HOSTNAME", "PORT", "USER", "USERNAME", "LOGIN", "NAME", "TYPE",
	"MODE", "REGION", "ENDPOINT", "TIMEOUT", "TTL", "SIZE", "LENGTH", "LEN", "ENABLED", "DISABLED",
	"EMAIL", "CLASS", "DESKTOP", "MANAGER", "ADDRESS", "FORMAT", "ALGORITHM", "ALG", "VERSION",
	"COUNT", "LIMIT", "EXPIRY", "EXPIRES", "PROVIDER", "METHOD", "SCOPE", "SCOPES", "HEADER",
	"PREFIX", "STRATEGY", "BACKEND", "REQUIRED",
}

// envURLWords end names whose value is a URL.
var envURLWords = []string{"URL", "URI", "DSN", "URLS", "ENDPOINT_URL"}

// ClassifyEnvName classifies an environment variable by its name. A name
// marks a secret when a word of it (split at _, -, . and case changes)
// contains PASS (not PASSENGER, BYPASS, PASSIVE, PASSTHROUGH, COMPASS),
// TOKEN (not TOKENIZER, nor a count: MAX_TOKENS), SECRET, BEARER, AUTH
// (not AUTHOR, AUTHORITY), CRED (not CREDIT), COOKIE or SIGNATURE,
// starts with PRIVATE (not GOPRIVATE), or is PW, PWD, KEY, KEYS, a word ending in KEY (APIKEY; not
// MONKEY, TURKEY, ...), SESSION, JWT, SALT, SIGNING or WEBHOOK; unless the
// name is one of the few that hold none (PWD, OLDPWD, XAUTHORITY,
// DESKTOP_SESSION, ...) or its last word qualifies it (TOKEN_TTL,
// AUTH_HOST, PASSWORD_FILE, XDG_SESSION_TYPE, *_SESSION_ID). Names ending
// in URL, URI or DSN are EnvURL unless a webhook's; SSH_AUTH_SOCK and the
// like are EnvAgent.
func ClassifyEnvName(name string) EnvClass {
	up := strings.ToUpper(strings.TrimSpace(name))
	if up == "" || slices.Contains(plainEnvNames, up) {
		return EnvPlain
	}
	if slices.Contains(agentEnvNames, up) {
		return EnvAgent
	}
	if slices.Contains(urlEnvNames, up) {
		return EnvURL
	}
	// git's configuration from the environment can carry an
	// http.extraHeader with a token; its keys and values go together.
	if up == "GIT_CONFIG_PARAMETERS" || up == "GIT_CONFIG_COUNT" || strings.HasPrefix(up, "GIT_CONFIG_KEY_") || strings.HasPrefix(up, "GIT_CONFIG_VALUE_") {
		return EnvSecret
	}
	words := envWords(name)
	if len(words) == 0 {
		return EnvPlain
	}
	last := words[len(words)-1]
	secret, session := false, false
	for i, w := range words {
		switch {
		case strings.Contains(w, "PASS"):
			if !passNotPassword(w) {
				secret = true
			}
		case strings.Contains(w, "TOKEN"):
			if !strings.HasPrefix(w, "TOKENIZ") && !tokenCount(words, i) {
				secret = true
			}
		case strings.Contains(w, "SECRET"), strings.Contains(w, "BEARER"), strings.Contains(w, "COOKIE"),
			strings.HasPrefix(w, "PRIVATE"), strings.Contains(w, "SIGNATURE"):
			secret = true
		case strings.Contains(w, "AUTH"):
			if !authorWord(w) {
				secret = true
			}
		case strings.Contains(w, "CRED"):
			if !strings.Contains(w, "CREDIT") {
				secret = true
			}
		case w == "SESSION":
			session = true
		case w == "PW", w == "PWD", w == "PAT", w == "KEY", w == "KEYS", w == "JWT", w == "SALT", w == "SIGNING",
			w == "WEBHOOK", w == "WEBHOOKS", w == "APIKEY", w == "PASSCODE":
			secret = true
		case len(w) > 3 && strings.HasSuffix(w, "KEY") && !notKeyWord(w):
			secret = true
		}
	}
	if slices.Contains(envURLWords, last) {
		if slices.Contains(words, "WEBHOOK") || slices.Contains(words, "WEBHOOKS") {
			return EnvSecret // the URL is the secret
		}
		return EnvURL
	}
	if !secret && !session {
		return EnvPlain
	}
	if slices.Contains(envQualifiers, last) {
		return EnvPlain
	}
	if last == "SOCK" || last == "SOCKET" {
		return EnvAgent
	}
	if !secret && session && last == "ID" {
		return EnvPlain // TERM_SESSION_ID, XDG_SESSION_ID: which session, not a key to it
	}
	return EnvSecret
}

// envWords splits an environment variable's name into upper-case words at
// separators and at lower-to-upper case changes (npm_config__authToken).
func envWords(name string) []string {
	var words []string
	var cur []byte
	flush := func() {
		if len(cur) > 0 {
			words = append(words, strings.ToUpper(string(cur)))
			cur = cur[:0]
		}
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		switch {
		case is(c, cAlnum):
			if is(c, cUpper) && len(cur) > 0 && is(cur[len(cur)-1], cLower|cDigit) {
				flush()
			}
			cur = append(cur, c)
		default:
			flush()
		}
	}
	flush()
	return words
}

// passNotPassword reports words that contain PASS and are not about a
// password: PASSENGER_APP_ENV, BYPASS_CACHE, FTP_PASSIVE, PASSTHROUGH.
func passNotPassword(w string) bool {
	for _, p := range []string{"PASSENGER", "BYPASS", "COMPASS", "PASSTHR", "PASSIVE", "PASSAGE", "SURPASS", "TRESPASS"} {
		if strings.Contains(w, p) {
			return true
		}
	}
	return false
}

// tokenCount reports a TOKENS word counted by its neighbours: MAX_TOKENS,
// CLAUDE_CODE_MAX_OUTPUT_TOKENS, TOKENS_LIMIT.
func tokenCount(words []string, i int) bool {
	if words[i] != "TOKENS" && !strings.HasSuffix(words[i], "TOKENS") {
		return false
	}
	for _, w := range words {
		switch w {
		case "MAX", "MIN", "LIMIT", "BUDGET", "COUNT", "OUTPUT", "INPUT", "THINKING", "CONTEXT", "NUM":
			return true
		}
	}
	return false
}

// authorWord reports AUTHOR, AUTHORS, AUTHORITY (GIT_AUTHOR_NAME,
// XAUTHORITY) as opposed to AUTH, OAUTH, AUTHORIZATION.
func authorWord(w string) bool {
	i := strings.Index(w, "AUTHOR")
	return i >= 0 && !strings.HasPrefix(w[i:], "AUTHORIZ")
}

// notKeyWord reports words that end in KEY without being one.
func notKeyWord(w string) bool {
	for _, s := range []string{"MONKEY", "DONKEY", "TURKEY", "HOCKEY", "JOCKEY", "WHISKEY", "HOTKEY", "TURNKEY", "LACKEY"} {
		if strings.HasSuffix(w, s) {
			return true
		}
	}
	return false
}
