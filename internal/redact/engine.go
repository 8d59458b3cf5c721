package redact

import (
	"bytes"
	"slices"
	"strings"
	"sync"
)

// det names a detector; each keyword of the prefilter runs one.
type det uint8

const (
	detNone det = iota
	detAWSKeyID
	detAWSSecret
	detGitHub
	detGitHubPAT
	detGitLab
	detSlackToken
	detSlackWebhook
	detStripe
	detSKDash // openai-key and anthropic-key share the "sk-" prefix
	detGoogleAPI
	detGCP
	detAzure
	detNPM
	detPyPI
	detSendGrid
	detTwilio
	detJWT
	detPEM
	detURL
	detGeneric
	detAuthHeader
	detKnown
	detEmail
	detDomain
	detPrefix   // a prefixRule, by kwEntry.arg
	detCtx      // a ctxRule, by kwEntry.arg
	detNear     // a nearRule, by kwEntry.arg
	detTelegram // ":AA" of a Telegram bot token
	detSSWS
	detK8sSecret
	detNuGet
	detCurl
	detVault
	detDiscordWebhook
	detPgpass
	detJWTBase64
)

// kwEntry is one prefilter keyword (lower case) and the detector it runs.
type kwEntry struct {
	text string
	det  det
	arg  int32 // detector argument: an index into engine.known or a rule table
	// full is the whole keyword when text is its first maxKeywordLen
	// bytes: the automaton stays small, a hit is confirmed on the input.
	full string
}

// maxKeywordLen bounds the keywords the automaton holds.
const maxKeywordLen = 8

// staticKeywords are the keywords of the built-in detectors, listed when
// the first engine is built (lazy.go).
var staticKeywords = sync.OnceValue(func() []kwEntry {
	var kws []kwEntry
	add := func(d det, words ...string) {
		for _, w := range words {
			kws = append(kws, kwEntry{text: w, det: d})
		}
	}
	add(detAWSKeyID, "akia", "asia", "abia", "acca", "a3t")
	add(detAWSSecret, "aws", "secretaccesskey", "secret_access_key", "secret-access-key")
	add(detGitHub, "ghp_", "gho_", "ghu_", "ghs_", "ghr_")
	add(detGitHubPAT, "github_pat_")
	add(detGitLab, gitlabPrefixes...)
	add(detSlackToken, "xox")
	add(detSlackWebhook, "hooks.slack.com/")
	add(detStripe, "sk_live_", "sk_test_", "sk_prod_", "rk_live_", "rk_test_", "rk_prod_", "whsec_")
	add(detSKDash, "sk-")
	add(detGoogleAPI, "aiza")
	add(detGCP, `private_key"`, `private_key\"`, `private_key_id"`, `private_key_id\"`)
	add(detAzure, "accountkey", "sharedaccesskey")
	add(detNPM, "npm_")
	add(detPyPI, "pypi-ag")
	add(detSendGrid, "sg.")
	add(detTwilio, "twilio")
	add(detJWT, "eyj")
	add(detPEM, "-----begin")
	add(detURL, "://")
	add(detGeneric, genericKeywords...)
	add(detAuthHeader, "bearer", "authorization")
	add(detSSWS, "ssws")
	add(detTelegram, ":aa")
	add(detK8sSecret, "kind: secret", `kind: "secret`, `kind: 'secret`, `"kind": "secret`, `"kind":"secret`)
	add(detNuGet, `<add key="`)
	add(detCurl, "curl")
	add(detVault, "vault")
	add(detDiscordWebhook, "/webhooks/")
	add(detJWTBase64, "zxlk")
	add(detPgpass, ":5432:", ":5433:", ":5434:", ":6432:", ":*:")
	kws = append(kws, prefixKeywords()...)
	kws = append(kws, ctxKeywords()...)
	kws = append(kws, nearKeywords()...)
	return kws
})

// knownValue is a secret registered at run time, matched exactly.
type knownValue struct {
	value string
	kind  string
}

// knownAnchorLen is how many leading bytes of a known value go into the
// prefilter; the rest is compared on a hit.
const knownAnchorLen = 8

// engine is an immutable compiled detector set; the Redactor swaps in a new
// one when the registry of known values changes.
type engine struct {
	ac    *automaton
	kws   []kwEntry
	known [][]knownValue // by kwEntry.arg for detKnown, longest first
	pii   bool
}

func newEngine(cfg Config, known []knownValue) *engine {
	e := &engine{pii: cfg.PII}
	e.kws = append(e.kws, staticKeywords()...)
	if cfg.PII {
		e.kws = append(e.kws, kwEntry{text: "@", det: detEmail})
	}
	for _, d := range cfg.InternalDomains {
		d = strings.Trim(strings.ToLower(strings.TrimSpace(d)), ".")
		if d == "" {
			continue
		}
		e.kws = append(e.kws, kwEntry{text: d, det: detDomain})
	}
	groups := map[string]int32{}
	for _, kv := range known {
		anchor := strings.ToLower(kv.value[:min(len(kv.value), knownAnchorLen)])
		g, ok := groups[anchor]
		if !ok {
			g = int32(len(e.known))
			groups[anchor] = g
			e.known = append(e.known, nil)
			e.kws = append(e.kws, kwEntry{text: anchor, det: detKnown, arg: g})
		}
		e.known[g] = append(e.known[g], kv)
	}
	for _, g := range e.known {
		// Longest first so that the longest registered value wins.
		slices.SortStableFunc(g, func(x, y knownValue) int { return len(y.value) - len(x.value) })
	}
	words := make([]string, len(e.kws))
	for i := range e.kws {
		kw := &e.kws[i]
		if len(kw.text) > maxKeywordLen {
			kw.full, kw.text = kw.text, kw.text[:maxKeywordLen]
		}
		words[i] = kw.text
	}
	e.ac = newAutomaton(words)
	return e
}

// scanner is the state of one scan of one buffer.
type scanner struct {
	e     *engine
	b     []byte
	cands []cand
	// genericDone is the end of the last key name the generic detector
	// looked at, so that "secret_token" is examined once.
	genericDone int
	// twilioDone is the end of the last window the twilio detector
	// scanned, so that repeated keywords do not rescan it.
	twilioDone int
	// endFrom, endTo, endAt memoise searches for PEM END markers (see
	// scanner.nextEnd).
	endFrom, endTo, endAt int
	endValid              bool
	// nearDone is, per near rule, where its last window ended (less the
	// overlap), so that repeated keywords do not rescan it.
	nearDone [maxNear]int
	// k8sDone is the end of the last Secret manifest parsed, vaultDone
	// of the last line the vault detector scanned.
	k8sDone, vaultDone int
}

func (sc *scanner) add(start, end int, kind string) {
	if start < end && !inPlaceholder(sc.b, start, end) {
		sc.cands = append(sc.cands, cand{start: start, end: end, kind: kind})
	}
}

// inPlaceholder reports whether b[start:end] holds or is inside a
// placeholder: redacting redacted text changes nothing (a URL's
// https://[REDACTED:sentry-dsn:…]@host is not a user and a password).
func inPlaceholder(b []byte, start, end int) bool {
	const open = "[REDACTED:"
	if bytes.Contains(b[start:end], []byte(open)) {
		return true
	}
	from := max(0, start-64)
	k := bytes.LastIndex(b[from:start], []byte(open))
	return k >= 0 && bytes.IndexByte(b[from+k:start], ']') < 0
}

func (sc *scanner) addExample(start, end int, kind string) {
	sc.cands = append(sc.cands, cand{start: start, end: end, kind: kind, example: true})
}

// run is the single prefilter pass; each keyword hit runs its detector.
func (sc *scanner) run() {
	e := sc.e
	a := e.ac
	b := sc.b
	delta := a.delta
	class := &a.class
	first := a.firstOut
	s := int32(0)
	for i := 0; i < len(b); i++ {
		s = delta[s+class[b[i]]]
		if s >= first {
			for _, k := range a.outputs(s) {
				kw := &e.kws[k]
				start, end := i+1-len(kw.text), i+1
				if kw.full != "" {
					if !hasPrefixFold(b, start, kw.full) {
						continue
					}
					end = start + len(kw.full)
				}
				sc.dispatch(kw, start, end)
			}
		}
	}
	if e.pii {
		sc.piiNumbers()
	}
}

func (sc *scanner) dispatch(kw *kwEntry, s, e int) {
	switch kw.det {
	case detAWSKeyID:
		sc.awsKeyID(s)
	case detAWSSecret:
		sc.awsSecret(s, e)
	case detGitHub:
		sc.github(s)
	case detGitHubPAT:
		sc.githubPAT(s)
	case detGitLab:
		sc.gitlab(s, e)
	case detSlackToken:
		sc.slackToken(s)
	case detSlackWebhook:
		sc.slackWebhook(s, e)
	case detStripe:
		sc.stripe(s, e)
	case detSKDash:
		sc.skDash(s)
	case detGoogleAPI:
		sc.googleAPI(s)
	case detGCP:
		sc.gcp(s, e)
	case detAzure:
		sc.azure(s, e)
	case detNPM:
		sc.npm(s)
	case detPyPI:
		sc.pypi(s)
	case detSendGrid:
		sc.sendgrid(s)
	case detTwilio:
		sc.twilio(s)
	case detJWT:
		sc.jwt(s)
	case detPEM:
		sc.pem(s)
	case detURL:
		sc.urlCreds(s)
	case detGeneric:
		sc.generic(s, e)
	case detAuthHeader:
		sc.authHeader(s, e)
	case detKnown:
		sc.knownAt(s, kw.arg)
	case detEmail:
		sc.email(s)
	case detDomain:
		sc.domain(s, e)
	case detPrefix:
		sc.prefix(s, e, kw.arg)
	case detCtx:
		if wordStart(sc.b, s) && !splitsCamelWord(sc.b, e) {
			sc.ctx(e, kw.arg)
		}
	case detNear:
		sc.near(s, e, kw.arg)
	case detTelegram:
		sc.telegram(s)
	case detSSWS:
		sc.ssws(s, e)
	case detK8sSecret:
		sc.k8sSecret(s, e)
	case detNuGet:
		sc.nuget(e)
	case detCurl:
		sc.curl(s, e)
	case detVault:
		sc.vault(s, e)
	case detDiscordWebhook:
		sc.discordWebhook(s, e)
	case detPgpass:
		sc.pgpass(s, e)
	case detJWTBase64:
		sc.jwtBase64(s)
	}
}

// knownAt checks the values registered under anchor group g at s.
func (sc *scanner) knownAt(s int, g int32) {
	for _, kv := range sc.e.known[g] {
		if hasPrefixAt(sc.b, s, kv.value) {
			sc.add(s, s+len(kv.value), kv.kind)
			return
		}
	}
}
