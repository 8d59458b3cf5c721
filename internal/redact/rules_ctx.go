package redact

import (
	"bytes"
	"regexp"
	"strings"
)

// ctxRule is a credential whose value has no prefix of its own and is
// recognised by the vendor named in the key it is assigned to:
// ADAFRUIT_KEY=..., "datadog_api_key": "...", twitter.secret = '...'.
// At a keyword hit the assignment is parsed the way the key=value formats
// of config, code and logs write it (the key's rest, quotes, one operator,
// quotes), then the value must match one of the rule's shapes, whole.
type ctxRule struct {
	kind string
	kws  []string // prefilter keywords (lower case), anywhere in the key
	// vals are the value shapes; each is anchored and must end at a
	// boundary (not followed by a token character).
	vals []string
	// h is the entropy floor of the value (0: markedFloor of what a random
	// value of its alphabet and length has, see randomFloor).
	h float64
}

// ctxRules: the vendors whose tokens are plain hex, base62 or UUIDs.
var ctxRules = []ctxRule{
	{kind: "adafruit-key", kws: []string{"adafruit"}, vals: []string{`(?i)[a-z0-9_-]{32}`}},
	{kind: "adobe-key", kws: []string{"adobe"}, vals: []string{`(?i)[a-f0-9]{32}`}},
	{kind: "airtable-token", kws: []string{"airtable"}, vals: []string{`(?i)[a-z0-9]{17}`, `pat[A-Za-z0-9]{14}\.[a-f0-9]{64}`}},
	{kind: "algolia-key", kws: []string{"algolia"}, vals: []string{`(?i)[a-z0-9]{32}`}},
	{kind: "alibaba-key", kws: []string{"alibaba"}, vals: []string{`(?i)[a-z0-9]{30}`}},
	{kind: "asana-token", kws: []string{"asana"}, vals: []string{`[0-9]{16}`, `(?i)[a-z0-9]{32}`}},
	{kind: "atlassian-token", kws: []string{"atlassian", "confluence", "jira"}, vals: []string{`(?i)[a-z0-9]{20}[a-f0-9]{4}`}},
	{kind: "beamer-token", kws: []string{"beamer"}, vals: []string{`(?i)b_[a-z0-9=_-]{44}`}},
	{kind: "bitbucket-key", kws: []string{"bitbucket"}, vals: []string{`(?i)[a-z0-9]{32}`, `(?i)[a-z0-9=_-]{64}`}},
	{kind: "bittrex-key", kws: []string{"bittrex"}, vals: []string{`(?i)[a-z0-9]{32}`}},
	{kind: "meraki-key", kws: []string{"meraki"}, vals: []string{`[0-9a-f]{40}`}},
	{kind: "cloudflare-key", kws: []string{"cloudflare"}, vals: []string{`(?i)[a-z0-9_-]{40}`, `(?i)[a-f0-9]{37}`}},
	{kind: "codecov-token", kws: []string{"codecov"}, vals: []string{`(?i)[a-z0-9]{32}`}},
	{kind: "cohere-key", kws: []string{"cohere", "co_api_key"}, vals: []string{`[a-zA-Z0-9]{40}`}, h: 3.5},
	{kind: "coinbase-token", kws: []string{"coinbase"}, vals: []string{`(?i)[a-z0-9_-]{64}`}},
	{kind: "confluent-key", kws: []string{"confluent"}, vals: []string{`(?i)[a-z0-9]{16}`, `(?i)[a-z0-9]{64}`}},
	{kind: "contentful-token", kws: []string{"contentful"}, vals: []string{`(?i)[a-z0-9=_-]{43}`}},
	{kind: "datadog-key", kws: []string{"datadog"}, vals: []string{`(?i)[a-z0-9]{40}`, `(?i)[a-f0-9]{32}`}},
	{kind: "discord-token", kws: []string{"discord"}, vals: []string{`(?i)[a-f0-9]{64}`, `[0-9]{18}`, `(?i)[a-z0-9=_-]{32}`}},
	{kind: "droneci-token", kws: []string{"droneci"}, vals: []string{`(?i)[a-z0-9]{32}`}},
	{kind: "dropbox-token", kws: []string{"dropbox"}, vals: []string{`(?i)[a-z0-9]{15}`, `(?i)[a-z0-9]{11}AAAAAAAAAA[a-z0-9_=-]{43}`, `(?i)sl\.[a-z0-9=_-]{135}`}},
	{kind: "etsy-token", kws: []string{"etsy"}, vals: []string{`(?i)[a-z0-9]{24}`}},
	{kind: "facebook-token", kws: []string{"facebook"}, vals: []string{`(?i)[a-f0-9]{32}`}},
	{kind: "fastly-token", kws: []string{"fastly"}, vals: []string{`(?i)[a-z0-9=_-]{32}`}},
	{kind: "finicity-token", kws: []string{"finicity"}, vals: []string{`(?i)[a-f0-9]{32}`, `(?i)[a-z0-9]{20}`}},
	{kind: "finnhub-token", kws: []string{"finnhub"}, vals: []string{`(?i)[a-z0-9]{20}`}},
	{kind: "flickr-token", kws: []string{"flickr"}, vals: []string{`(?i)[a-z0-9]{32}`}},
	{kind: "freshbooks-token", kws: []string{"freshbooks"}, vals: []string{`(?i)[a-z0-9]{64}`}},
	{kind: "gitter-token", kws: []string{"gitter"}, vals: []string{`(?i)[a-z0-9_-]{40}`}},
	{kind: "gocardless-token", kws: []string{"gocardless"}, vals: []string{`(?i)live_[a-z0-9_=-]{40}`}},
	{kind: "heroku-key", kws: []string{"heroku"}, vals: []string{uuidRe}},
	{kind: "hubspot-key", kws: []string{"hubspot"}, vals: []string{uuidRe}},
	{kind: "intercom-key", kws: []string{"intercom"}, vals: []string{`(?i)[a-z0-9=_-]{60}`}},
	{kind: "jfrog-key", kws: []string{"jfrog", "artifactory", "bintray", "xray"}, vals: []string{`(?i)[a-z0-9]{73}`, `(?i)[a-z0-9]{64}`}},
	{kind: "kraken-key", kws: []string{"kraken"}, vals: []string{`(?i)[a-z0-9/=_+-]{80,90}`}},
	{kind: "kucoin-key", kws: []string{"kucoin"}, vals: []string{`(?i)[a-f0-9]{24}`, uuidRe}},
	{kind: "launchdarkly-token", kws: []string{"launchdarkly"}, vals: []string{`(?i)[a-z0-9=_-]{40}`}},
	{kind: "linear-key", kws: []string{"linear"}, vals: []string{`(?i)[a-f0-9]{32}`}},
	{kind: "linkedin-key", kws: []string{"linkedin", "linked_in", "linked-in"}, vals: []string{`(?i)[a-z0-9]{14}`, `(?i)[a-z0-9]{16}`}},
	{kind: "lob-key", kws: []string{"lob"}, vals: []string{`(?:live|test)_[a-f0-9]{35}`, `(?:test|live)_pub_[a-f0-9]{31}`}},
	{kind: "looker-key", kws: []string{"looker"}, vals: []string{`(?i)[a-z0-9]{20}`, `(?i)[a-z0-9]{24}`}},
	{kind: "mailchimp-key", kws: []string{"mailchimp"}, vals: []string{`[a-f0-9]{32}-us[0-9]{1,2}`}},
	{kind: KindMailgunKey, kws: []string{"mailgun"}, vals: []string{`(?i)key-[a-f0-9]{32}`, `(?i)pubkey-[a-f0-9]{32}`, `(?i)[a-h0-9]{32}-[a-h0-9]{8}-[a-h0-9]{8}`}},
	{kind: "mapbox-token", kws: []string{"mapbox"}, vals: []string{`(?i)pk\.[a-z0-9]{60}\.[a-z0-9]{22}`}},
	{kind: "mattermost-token", kws: []string{"mattermost"}, vals: []string{`(?i)[a-z0-9]{26}`}},
	{kind: "messagebird-key", kws: []string{"messagebird", "message-bird", "message_bird"}, vals: []string{`(?i)[a-z0-9]{25}`, uuidRe}},
	{kind: "netlify-token", kws: []string{"netlify"}, vals: []string{`(?i)[a-z0-9=_-]{40,46}`}},
	{kind: "newrelic-key", kws: []string{"new-relic", "newrelic", "new_relic"}, vals: []string{`NRJS-[a-f0-9]{19}`, `(?i)NRII-[a-z0-9-]{32}`, `(?i)NRAK-[a-z0-9]{27}`, `(?i)[a-z0-9]{64}`}},
	{kind: "nytimes-token", kws: []string{"nytimes", "new-york-times", "newyorktimes"}, vals: []string{`(?i)[a-z0-9=_-]{32}`}},
	{kind: KindOktaToken, kws: []string{"okta"}, vals: []string{`00[A-Za-z0-9_=-]{40}`}, h: 3.5},
	{kind: "plaid-key", kws: []string{"plaid"}, vals: []string{`(?i)access-(?:sandbox|development|production)-` + uuidRe, `(?i)[a-z0-9]{24}`, `(?i)[a-z0-9]{30}`}},
	{kind: "privateai-key", kws: []string{"privateai", "private_ai", "private-ai"}, vals: []string{`(?i)[a-z0-9]{32}`}},
	{kind: "rapidapi-key", kws: []string{"rapidapi"}, vals: []string{`(?i)[a-z0-9_-]{50}`}},
	{kind: "sendbird-token", kws: []string{"sendbird"}, vals: []string{uuidRe, `(?i)[a-f0-9]{40}`}},
	{kind: "sentry-token", kws: []string{"sentry"}, vals: []string{`(?i)[a-f0-9]{64}`}},
	{kind: "sidekiq-secret", kws: []string{"bundle_enterprise__contribsys__com", "bundle_gems__contribsys__com"}, vals: []string{`(?i)[a-f0-9]{8}:[a-f0-9]{8}`}},
	{kind: "snyk-token", kws: []string{"snyk"}, vals: []string{uuidRe}},
	{kind: "sonar-token", kws: []string{"sonar"}, vals: []string{`(?i)(?:squ_|sqp_|sqa_)?[a-z0-9=_-]{40}`}},
	{kind: "sourcegraph-token", kws: []string{"sourcegraph"}, vals: []string{`[a-fA-F0-9]{40}`}},
	{kind: "squarespace-token", kws: []string{"squarespace"}, vals: []string{uuidRe}},
	{kind: "sumologic-key", kws: []string{"sumo"}, vals: []string{`su[a-zA-Z0-9]{12}`, `(?i)[a-z0-9]{64}`}},
	{kind: KindTelegramBotToken, kws: []string{"telegr"}, vals: []string{`[0-9]{5,16}:A(?i)[a-z0-9_-]{34}`}},
	{kind: "travis-token", kws: []string{"travis"}, vals: []string{`(?i)[a-z0-9]{22}`}},
	{kind: "twitch-token", kws: []string{"twitch"}, vals: []string{`(?i)[a-z0-9]{30}`}},
	{kind: "twitter-token", kws: []string{"twitter"}, vals: []string{`(?i)[a-z0-9]{45}`, `[0-9]{15,25}-[a-zA-Z0-9]{20,40}`, `(?i)[a-z0-9]{25}`, `(?i)[a-z0-9]{50}`, `A{22}[a-zA-Z0-9%]{80,100}`}},
	{kind: "typeform-token", kws: []string{"typeform"}, vals: []string{`(?i)tfp_[a-z0-9_.=-]{59}`}},
	{kind: "yandex-key", kws: []string{"yandex"}, vals: []string{`t1\.[A-Za-z0-9_-]+={0,2}\.[A-Za-z0-9_-]{86}={0,2}`, `AQVN[A-Za-z0-9_-]{35,38}`, `YC[A-Za-z0-9_-]{38}`}},
	{kind: "zendesk-key", kws: []string{"zendesk"}, vals: []string{`(?i)[a-z0-9]{40}`}},
}

const uuidRe = `(?i)[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}`

// ctxValueMax bounds a context rule's value.
const ctxValueMax = 256

type compiledCtx struct {
	kind string
	h    float64
	vals []*regexp.Regexp
}

// compiledCtxRule gives context rule ri ready to run, compiled on its first
// use (lazy.go).
var compiledCtxRule = lazyTable(len(ctxRules), func(i int) *compiledCtx {
	r := ctxRules[i]
	c := &compiledCtx{kind: r.kind, h: r.h}
	for _, v := range r.vals {
		c.vals = append(c.vals, regexp.MustCompile(`^(?:`+v+`)`))
	}
	return c
})

func ctxKeywords() []kwEntry {
	var kws []kwEntry
	for i, r := range ctxRules {
		for _, k := range r.kws {
			kws = append(kws, kwEntry{text: strings.ToLower(k), det: detCtx, arg: int32(i)})
		}
	}
	return kws
}

// assignedValue parses what follows a key-name fragment ending at e: the
// rest of the key ([ \t\w.-]{0,20}), up to three quotes or spaces, one
// operator (=, :, :=, ::=, =>, ?=, ||, >, ,), up to five quotes, spaces or
// '=', and returns where the value starts, or -1.
func assignedValue(b []byte, e int) int {
	n := len(b)
	i := spanOf(b, e, cIdent|cDot|cDash|cSpace, 20)
	for k := 0; k < 3 && i < n && (is(b[i], cWS|cQuote) || b[i] == '\\'); k++ {
		i++
	}
	if i >= n {
		return -1
	}
	switch c := b[i]; {
	case c == '=' && i+1 < n && b[i+1] == '>', c == '?' && i+1 < n && b[i+1] == '=', c == '|' && i+1 < n && b[i+1] == '|':
		i += 2
	case c == ':':
		j := i
		for j < n && j-i < 3 && b[j] == ':' {
			j++
		}
		if j < n && b[j] == '=' {
			j++
		} else {
			j = i + 1
		}
		i = j
	case c == '=', c == '>', c == ',':
		i++
	default:
		return -1
	}
	for k := 0; k < 5 && i < n && (is(b[i], cWS|cQuote|cEq) || b[i] == '\\'); k++ {
		i++
	}
	if i >= n {
		return -1
	}
	return i
}

// ctx runs context rule ri at the keyword hit ending at e.
func (sc *scanner) ctx(e int, ri int32) {
	b := sc.b
	i := assignedValue(b, e)
	if i < 0 || !is(b[i], cB64URL|cPlus|cSlash) {
		return
	}
	r := compiledCtxRule(int(ri))
	w := window(b, i, ctxValueMax)
	for _, rx := range r.vals {
		m := rx.FindIndex(w)
		if m == nil || !boundaryAfter(b, i+m[1], cAlnum|cUnder|cDash|cPlus|cSlash|cEq) {
			continue
		}
		v := b[i : i+m[1]]
		h := r.h
		if h == 0 {
			h = randomFloor(v, markedFloor)
		}
		if entropy(v) < h || wordish(v) || codeName(v) && classes(v)&cDigit == 0 {
			continue
		}
		sc.add(i, i+m[1], r.kind)
		return
	}
}

// nearRule finds a value by its shape within a window around a keyword
// that names its service: Facebook user tokens near "facebook", Teams
// webhook paths.
type nearRule struct {
	kind string
	kws  []string
	// line limits the window to the keyword's line; otherwise it is
	// [hit-before, hit+after).
	line          bool
	before, after int
	// re is unanchored; group 1 is the secret. maxLen bounds a match.
	re     string
	maxLen int
	h      float64
	// mixed requires a letter and a digit in the secret.
	mixed bool
}

var nearRules = []nearRule{
	{kind: "facebook-token", kws: []string{"facebook"}, before: 256, after: 512,
		re: `(?:^|[^0-9])([0-9]{15,16}[|%][0-9A-Za-z_-]{27,40})(?:[^0-9A-Za-z_-]|$)`, maxLen: 64, h: 3.0},
	{kind: "teams-webhook", kws: []string{"webhook.office.com"}, before: 64, after: 400,
		re: `https://[a-z0-9]+\.webhook\.office\.com/webhookb2/([a-z0-9]{8}-(?:[a-z0-9]{4}-){3}[a-z0-9]{12}@[a-z0-9]{8}-(?:[a-z0-9]{4}-){3}[a-z0-9]{12}/IncomingWebhook/[a-z0-9]{32}/[a-z0-9]{8}-(?:[a-z0-9]{4}-){3}[a-z0-9]{12})`, maxLen: 320, h: 3.0},
}

// maxNear is the size of the scanner's per-rule memo of scanned windows.
const maxNear = 4

// vault: Vault's legacy service tokens, s. and 24 base62 characters, on a
// line that says vault (VAULT_TOKEN=, X-Vault-Token:, vault login): "s." is
// everywhere in code, so the token is looked for only there.
func (sc *scanner) vault(s, e int) {
	b := sc.b
	from, to := max(lineStart(b, s, 512), sc.vaultDone), lineEnd(b, e, 512)
	sc.vaultDone = to
	for i := from; i+26 <= to; i++ {
		k := bytes.Index(b[i:to], []byte("s."))
		if k < 0 {
			return
		}
		i += k
		if !boundaryBefore(b, i, cAlnum|cUnder|cDot) {
			continue
		}
		j := spanOf(b, i+2, cAlnum, 25)
		if j-i-2 != 24 || !boundaryAfter(b, j, cIdent) {
			continue
		}
		v := b[i+2 : j]
		// The shape and the line mark the token: the floor only turns
		// away placeholders (a random one has less than 3.5 bits once in
		// 20,000 draws).
		if c := classes(v); c&cDigit != 0 && c&cAlpha != 0 && entropy(v) >= min(3.5, randomFloor(v, markedFloor)) {
			sc.add(i, j, KindVaultToken)
		}
	}
}

// compiledNear gives near rule ri's pattern, compiled on its first use
// (lazy.go). The scanner keeps a memo per near rule (maxNear of them;
// TestNearRulesFitTheMemo).
var compiledNear = lazyTable(len(nearRules), func(i int) *regexp.Regexp {
	return regexp.MustCompile(nearRules[i].re)
})

func nearKeywords() []kwEntry {
	var kws []kwEntry
	for i, r := range nearRules {
		for _, k := range r.kws {
			kws = append(kws, kwEntry{text: k, det: detNear, arg: int32(i)})
		}
	}
	return kws
}

// near runs near rule ri around the keyword hit b[s:e], skipping what an
// earlier hit of the same rule already scanned.
func (sc *scanner) near(s, e int, ri int32) {
	b := sc.b
	r := &nearRules[ri]
	var from, to int
	if r.line {
		from, to = lineStart(b, s, 512), lineEnd(b, e, 512)
	} else {
		from, to = max(0, s-r.before), min(len(b), e+r.after)
	}
	// What an earlier window of this rule saw is not scanned again, except
	// its last maxLen bytes: a match that starts there may end past it.
	if done := sc.nearDone[ri]; done > 0 {
		from = max(from, done-r.maxLen)
	}
	if from >= to || to <= sc.nearDone[ri] {
		return
	}
	sc.nearDone[ri] = to
	for _, m := range compiledNear(int(ri)).FindAllSubmatchIndex(b[from:to], -1) {
		v := b[from+m[2] : from+m[3]]
		if entropy(v) < r.h {
			continue
		}
		if c := classes(v); r.mixed && (c&cDigit == 0 || c&cAlpha == 0) {
			continue
		}
		sc.add(from+m[2], from+m[3], r.kind)
	}
}

// wordStart reports whether a keyword hit at s starts a word: nothing
// alphanumeric before it, or a lower-to-upper case change (awsEtsyKey), not
// the inside of another word (rookTable, SetSysctl, CameraKit).
func wordStart(b []byte, s int) bool {
	if s == 0 || !is(b[s-1], cAlnum) {
		return true
	}
	return is(b[s-1], cLower|cDigit) && is(b[s], cUpper)
}

// splitsCamelWord reports whether a keyword hit ending at e ends on the
// first letter of a camel-case word (sumO|bj, sumO|fExposures): the word
// is another one.
func splitsCamelWord(b []byte, e int) bool {
	return e >= 2 && e < len(b) && is(b[e-1], cUpper) && is(b[e-2], cLower) && is(b[e], cLower)
}
