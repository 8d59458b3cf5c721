package redact

// Anchored patterns, run only on a window starting at a keyword hit, each
// compiled on its first use (lazy.go).
var (
	slackTokenRe   = lazyRE(`^xox(?:[abposr]|e(?:\.xox[abp])?)-([0-9A-Za-z-]{10,250})`)
	slackWebhookRe = lazyRE(`^(?i:hooks\.slack\.com)/(?:services|workflows|triggers)/([A-Za-z0-9_/+-]{20,200})`)
	anthropicRe    = lazyRE(`^sk-ant-[a-z]+[0-9]*-([A-Za-z0-9_-]{32,400})`)
	openaiRe       = lazyRE(`^sk-(?:(?:proj|svcacct|admin|None)-)?([A-Za-z0-9_-]{32,400})`)
	sendgridRe     = lazyRE(`^SG\.[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]{43}`)
)

// window returns b[s:s+n], clipped.
func window(b []byte, s, n int) []byte {
	return b[s:min(len(b), s+n)]
}

// slackToken: xoxb-, xoxp-, xoxa-, xoxo-, xoxs-, xoxr-, xoxe-, xoxe.xoxp-.
func (sc *scanner) slackToken(s int) {
	b := sc.b
	if !hasPrefixAt(b, s, "xox") || !boundaryBefore(b, s, cAlnum) {
		return
	}
	m := slackTokenRe().FindSubmatchIndex(window(b, s, 300))
	if m == nil {
		return
	}
	body := b[s+m[2] : s+m[3]]
	tok := b[s : s+m[1]]
	if (hasPrefixAt(tok, 0, "xoxb-") || hasPrefixAt(tok, 0, "xoxp-")) && spanOf(tok, 5, cDigit, 16)-5 < 8 {
		return // bot and user tokens start with a team or user id: xoxb-12345-abcd234 is an example
	}
	if end := s + m[1]; end < len(b) && b[end] == '#' || len(tok) >= 4 && hasPrefixFold(tok, len(tok)-4, "here") || len(tok) < 16 {
		return // a documentation placeholder: xoxb-12345-abcd234, xoxp-...-####, xoxe.xoxp-1-TOKENHERE
	}
	if classes(body)&cDigit != 0 && entropy(body) >= 3.0 && boundaryAfter(b, s+m[1], cIdent) {
		sc.add(s, s+m[1], KindSlackToken)
	}
}

// slackWebhook: hooks.slack.com/services/T.../B.../...; the path after the
// service segment is the secret, the host stays readable.
func (sc *scanner) slackWebhook(s, e int) {
	m := slackWebhookRe().FindSubmatchIndex(window(sc.b, s, 256))
	if m == nil {
		return
	}
	if body := sc.b[s+m[2] : s+m[3]]; entropy(body) >= 3.0 {
		sc.add(s+m[2], s+m[3], KindSlackWebhook)
	}
}

// stripe: sk_live_, sk_test_, rk_live_, rk_test_ keys and whsec_ webhook
// signing secrets.
func (sc *scanner) stripe(s, e int) {
	b := sc.b
	if !all(b[s:e], cLower|cUnder) || !boundaryBefore(b, s, cAlnum) {
		return
	}
	j := spanOf(b, e, cAlnum, 256)
	if body := b[e:j]; len(body) >= 20 && len(body) <= 255 && boundaryAfter(b, j, cIdent) && entropy(body) >= 3.0 {
		sc.add(s, j, KindStripeKey)
	}
}

// skDash: "sk-" starts OpenAI keys (sk-..., sk-proj-..., sk-svcacct-...,
// sk-admin-...) and Anthropic keys (sk-ant-api03-..., sk-ant-admin01-...).
// "sk-" is also the tail of task-, disk-, risk-: the boundary check drops
// those before any pattern runs.
func (sc *scanner) skDash(s int) {
	b := sc.b
	if !hasPrefixAt(b, s, "sk-") || !boundaryBefore(b, s, cB64URL) {
		return
	}
	if hasPrefixAt(b, s+3, "ant-") {
		m := anthropicRe().FindSubmatchIndex(window(b, s, 450))
		if m != nil && entropy(b[s+m[2]:s+m[3]]) >= 3.5 {
			sc.add(s, s+m[1], KindAnthropicKey)
		}
		return
	}
	m := openaiRe().FindSubmatchIndex(window(b, s, 450))
	if m == nil || !boundaryAfter(b, s+m[1], cB64URL) {
		return
	}
	body := b[s+m[2] : s+m[3]]
	seps := 0
	for _, c := range body {
		if c == '-' || c == '_' {
			seps++
		}
	}
	cl := classes(body)
	if cl&cUpper != 0 && cl&cLower != 0 && seps <= len(body)/6+1 && entropy(body) >= 3.5 {
		sc.add(s, s+m[1], KindOpenAIKey)
	}
}

// sendgrid: SG.<22>.<43>.
func (sc *scanner) sendgrid(s int) {
	b := sc.b
	if !hasPrefixAt(b, s, "SG.") || !boundaryBefore(b, s, cB64URL|cDot) {
		return
	}
	m := sendgridRe().FindIndex(window(b, s, 69))
	if m == nil || !boundaryAfter(b, s+m[1], cB64URL) {
		return
	}
	if entropy(b[s+3:s+m[1]]) >= 3.5 {
		sc.add(s, s+m[1], KindSendGridKey)
	}
}

// twilio: near the word "twilio", account and API key SIDs (AC/SK + 32 hex)
// and 32-hex auth tokens on a line that says token, secret or auth.
func (sc *scanner) twilio(s int) {
	b := sc.b
	from := max(0, s-256, sc.twilioDone)
	to := min(len(b), s+512)
	sc.twilioDone = to
	for i := from; i < to; {
		if !is(b[i], cAlnum) {
			i++
			continue
		}
		j := spanOf(b, i, cAlnum, to-i)
		if !boundaryBefore(b, i, cAlnum) {
			i = j
			continue
		}
		v := b[i:j]
		switch {
		case len(v) == 34 && (string(v[:2]) == "AC" || string(v[:2]) == "SK") && all(v[2:], cHexLow):
			if entropy(v[2:]) >= 2.5 {
				sc.add(i, j, KindTwilio)
			}
		case len(v) == 32 && all(v, cHexLow) && entropy(v) >= 2.5:
			ls, le := lineStart(b, i, 200), lineEnd(b, j, 200)
			line := b[ls:le]
			if containsFold(line, "token") || containsFold(line, "secret") || containsFold(line, "auth") {
				sc.add(i, j, KindTwilio)
			}
		}
		i = j
	}
}
