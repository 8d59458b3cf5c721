package redact

import (
	"bytes"
	"encoding/base64"
	"regexp"
	"strings"
)

// prefixRule is a token recognised by its own spelling: a vendor prefix
// (hf_, shpat_, dop_v1_, AGE-SECRET-KEY-1) or, with back > 0, a fixed
// infix or suffix (_mmk, .atlasv1., Q~). Each literal is a prefilter
// keyword; at a hit the anchored pattern runs on a small window and the
// checks below decide.
type prefixRule struct {
	kind string
	// lits are the exact spellings at the keyword position (their lower
	// case forms are the prefilter keywords); fold accepts any case.
	lits []string
	fold bool
	// back is how many bytes before the literal the token starts.
	back int
	// re is the token, anchored at its start; if it has a group, the
	// group is the part whose entropy is checked (else the whole match).
	re string
	// h is the entropy floor (bits per byte) of the checked part, lowered
	// for short parts to markedFloor of what a random one has (randomFloor).
	h float64
	// mixed requires the checked part to hold a letter and a digit.
	mixed bool
	// head are the classes that may not precede the token, tail those that
	// may not follow it (0: cAlnum and cAlnum|cUnder|cDash).
	head, tail uint16
	// max bounds the window the pattern runs on (0: 512 bytes).
	max int
	// dot, if > 0, is the offset from the token start of a '.' the shape
	// has: a cheap test before the pattern runs on a hot keyword ("pat").
	dot int
	// check, if set, must accept the match (a decoded form, a checksum).
	check func(tok []byte) bool
	// extend, if set, returns where the token really ends (wrapped lines).
	extend func(b []byte, start, end int) int
}

// cNever is a class no byte has: a head or tail that accepts any byte.
const cNever uint16 = 1 << 15

// compiledPrefix is a prefixRule ready to run.
type compiledPrefix struct {
	prefixRule
	rx *regexp.Regexp
}

// prefixRules are the prefix-recognised tokens. Shapes follow the vendors'
// documented formats (and the token shapes gitleaks' default rules name);
// entropy floors sit well below what random bodies of the shape reach.
var prefixRules = []prefixRule{
	// Finding 2 of issue 9.
	{kind: KindHuggingFaceToken, lits: []string{"hf_"}, re: `hf_([A-Za-z0-9]{34})`, h: 3.5},
	{kind: KindHuggingFaceToken, lits: []string{"api_org_"}, re: `api_org_([A-Za-z0-9]{34})`, h: 3.5},
	{kind: KindShopifyToken, lits: []string{"shpat_", "shpca_", "shppa_", "shpss_"}, re: `shp(?:at|ca|pa|ss)_([a-fA-F0-9]{32})`, h: 3.0},
	{kind: KindDigitalOcean, lits: []string{"dop_v1_", "doo_v1_", "dor_v1_"}, re: `do[opr]_v1_([a-f0-9]{64})`, h: 3.0},
	{kind: KindDatabricksToken, lits: []string{"dapi"}, re: `dapi([a-f0-9]{32})(?:-[0-9])?`, h: 3.0, mixed: true},
	{kind: KindMailgunKey, lits: []string{"key-"}, re: `key-([a-f0-9]{32})`, h: 3.0, mixed: true},
	{kind: KindMailgunKey, lits: []string{"pubkey-"}, re: `pubkey-([a-f0-9]{32})`, h: 3.0, mixed: true},
	{kind: KindAgeSecretKey, lits: []string{"AGE-SECRET-KEY-1"}, re: `AGE-SECRET-KEY-1([QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L]{58})`}, // the format alone marks it: even a test key (all Q) is one
	{kind: KindVaultToken, lits: []string{"hvs.", "hvb."}, re: `hv[sb]\.([A-Za-z0-9_-]{90,300})`, h: 3.5},
	{kind: KindPrivateKey, lits: []string{"LS0tLS1CRUdJTi"}, re: `LS0tLS1CRUdJTi[A-Za-z0-9+/]{40,}={0,2}`, tail: cB64 | cEq, max: pemCap, check: base64PEMKey, extend: wrappedBase64},

	// Other vendors with a prefix of their own.
	{kind: "1password-secret-key", lits: []string{"A3-"}, re: `A3-[A-Z0-9]{6}-(?:[A-Z0-9]{11}|[A-Z0-9]{6}-[A-Z0-9]{5})-[A-Z0-9]{5}-[A-Z0-9]{5}-[A-Z0-9]{5}`, h: 3.5, tail: cAlnum | cDash},
	{kind: "1password-token", lits: []string{"ops_eyJ"}, re: `ops_(eyJ[A-Za-z0-9+/]{250,}={0,3})`, h: 4.0, tail: cB64 | cEq, max: 8200},
	{kind: "adobe-key", lits: []string{"p8e-"}, re: `p8e-((?i)[a-z0-9]{32})`, h: 3.0},
	{kind: "airtable-token", lits: []string{"pat"}, re: `pat[A-Za-z0-9]{14}\.([a-f0-9]{64})`, h: 3.0, dot: 17},
	{kind: "alibaba-key", lits: []string{"LTAI"}, re: `LTAI((?i)[a-z0-9]{20})`, h: 3.0},
	{kind: "artifactory-token", lits: []string{"AKCp"}, re: `AKCp([A-Za-z0-9]{69})`, h: 4.0},
	{kind: "artifactory-token", lits: []string{"cmVmd"}, re: `cmVmd([A-Za-z0-9]{59})`, h: 4.0},
	{kind: "atlassian-token", lits: []string{"ATATT3"}, re: `ATATT3([A-Za-z0-9_=-]{186})`, h: 4.0},
	{kind: "aws-bedrock-key", lits: []string{"ABSK"}, re: `ABSK([A-Za-z0-9+/]{109,269}={0,2})`, h: 3.5, tail: cB64 | cEq},
	{kind: "aws-bedrock-key", lits: []string{"bedrock-api-key-"}, re: `bedrock-api-key-YmVkcm9jay5hbWF6b25hd3MuY29t([A-Za-z0-9+/=%_-]{16,})`, h: 3.0, tail: cB64 | cEq, max: 4100},
	{kind: "azure-ad-client-secret", lits: []string{"Q~"}, back: 4, re: `[A-Za-z0-9_~.]{3}[0-9]Q~([A-Za-z0-9_~.-]{31,34})`, h: 3.0, head: cAlnum | cUnder | cDot, tail: cAlnum | cUnder | cDot | cDash},
	{kind: "clickhouse-key", lits: []string{"4b1d"}, re: `4b1d([A-Za-z0-9]{38})`, h: 3.0, mixed: true},
	{kind: "clojars-token", lits: []string{"CLOJARS_"}, fold: true, re: `(?i)CLOJARS_([a-z0-9]{60})`, h: 3.0},
	{kind: "cloudflare-key", lits: []string{"v1.0-"}, re: `v1\.0-([a-f0-9]{24}-[a-f0-9]{146})`, h: 3.0, max: 200},
	{kind: "doppler-token", lits: []string{"dp.pt."}, re: `dp\.pt\.((?i)[a-z0-9]{43})`, h: 3.0},
	{kind: "duffel-token", lits: []string{"duffel_"}, re: `duffel_(?:test|live)_((?i)[a-z0-9_=-]{43})`, h: 3.0},
	{kind: "dynatrace-token", lits: []string{"dt0c01."}, re: `dt0c01\.((?i)[a-z0-9]{24}\.[a-z0-9]{64})`, h: 3.5},
	{kind: "easypost-token", lits: []string{"EZAK", "EZTK"}, re: `EZ[AT]K((?i)[a-z0-9]{54})`, h: 3.0},
	{kind: "facebook-token", lits: []string{"EAAM", "EAAC"}, re: `EAA[MC]((?i)[a-z0-9]{100,1000})`, h: 4.0, max: 1100},
	{kind: "flutterwave-key", lits: []string{"FLWSECK_TEST-", "FLWPUBK_TEST-"}, re: `FLW(?:SECK|PUBK)_TEST-((?i)[a-h0-9]{32})-X|FLWSECK_TEST-((?i)[a-h0-9]{12})`, h: 2.5},
	{kind: "flyio-token", lits: []string{"fo1_"}, re: `fo1_([A-Za-z0-9_-]{43})`, h: 4.0},
	{kind: "flyio-token", lits: []string{"fm1a_", "fm1r_", "fm2_"}, re: `fm(?:1[ar]|2)_([A-Za-z0-9+/]{100,}={0,3})`, h: 4.0, tail: cB64 | cEq, max: 4100},
	{kind: "frameio-token", lits: []string{"fio-u-"}, re: `fio-u-((?i)[a-z0-9_=-]{64})`, h: 3.0},
	{kind: KindGitLabToken, lits: []string{"_gitlab_session="}, re: `_gitlab_session=([0-9a-z]{32})`, h: 3.0, head: cNever},
	{kind: "grafana-token", lits: []string{"eyJrIjoi"}, re: `eyJrIjoi([A-Za-z0-9]{70,400}={0,3})`, h: 3.5, tail: cB64 | cEq},
	{kind: "grafana-token", lits: []string{"glc_"}, re: `glc_([A-Za-z0-9+/]{32,400}={0,3})`, h: 3.5, tail: cB64 | cEq},
	{kind: "grafana-token", lits: []string{"glsa_"}, re: `glsa_([A-Za-z0-9]{32}_[A-Fa-f0-9]{8})`, h: 3.0},
	{kind: "harness-token", lits: []string{"pat.", "sat."}, re: `[ps]at\.([A-Za-z0-9_-]{22}\.[A-Za-z0-9]{24}\.[A-Za-z0-9]{20})`, h: 3.5, dot: 26},
	{kind: "terraform-token", lits: []string{".atlasv1."}, back: 14, re: `(?i:[a-z0-9]{14})\.atlasv1\.((?i)[a-z0-9_=-]{60,70})`, h: 3.5},
	{kind: "heroku-key", lits: []string{"HRKU-AA"}, re: `HRKU-AA([0-9A-Za-z_-]{58})`, h: 4.0},
	{kind: "infracost-token", lits: []string{"ico-"}, re: `ico-([A-Za-z0-9]{32})`, h: 3.5, mixed: true},
	{kind: "intra42-secret", lits: []string{"s-s4t2ud-", "s-s4t2af-"}, re: `s-s4t2(?:ud|af)-((?i)[a-f0-9]{64})`, h: 3.0},
	{kind: KindJWT, lits: []string{"ZXlK"}, re: `ZXlK[A-Za-z0-9+/]{40,}={0,2}`, tail: cB64 | cEq, max: 16100, check: base64JWT},
	{kind: "linear-key", lits: []string{"lin_api_"}, re: `lin_api_((?i)[a-z0-9]{40})`, h: 3.0},
	{kind: "mailchimp-key", lits: []string{"-us"}, back: 32, re: `([a-f0-9]{32})-us[0-9]{1,2}`, h: 3.0, mixed: true},
	{kind: "mapbox-token", lits: []string{"pk.", "sk."}, re: `[ps]k\.(eyJ[A-Za-z0-9_-]{20,400}\.[A-Za-z0-9_-]{20,40})`, h: 3.5},
	{kind: "mapbox-token", lits: []string{"pk.", "sk."}, re: `[ps]k\.((?i)[a-z0-9]{60}\.[a-z0-9]{22})`, h: 3.5, dot: 63},
	{kind: "maxmind-key", lits: []string{"_mmk"}, back: 36, re: `([A-Za-z0-9]{6}_[A-Za-z0-9]{29})_mmk`, h: 3.5},
	{kind: "newrelic-key", lits: []string{"NRJS-", "NRII-", "NRAK-"}, re: `NRJS-([a-f0-9]{19})|NRII-([A-Za-z0-9-]{32})|NRAK-([A-Za-z0-9]{27})`, h: 3.0},
	{kind: "notion-token", lits: []string{"ntn_"}, re: `ntn_([0-9]{11}[A-Za-z0-9]{35})`, h: 3.5},
	{kind: "octopus-key", lits: []string{"API-"}, re: `API-([A-Z0-9]{26})`, h: 3.5, mixed: true},
	{kind: "openshift-token", lits: []string{"sha256~"}, re: `sha256~([A-Za-z0-9_-]{43})`, h: 3.5},
	{kind: "perplexity-key", lits: []string{"pplx-"}, re: `pplx-([A-Za-z0-9]{48})`, h: 3.5},
	{kind: "planetscale-token", lits: []string{"pscale_tkn_", "pscale_oauth_", "pscale_pw_"}, re: `pscale_(?:tkn|oauth|pw)_([A-Za-z0-9_=.-]{32,64})`, h: 3.0},
	{kind: "postman-token", lits: []string{"PMAK-"}, re: `PMAK-((?i)[a-f0-9]{24}-[a-f0-9]{34})`, h: 3.0},
	{kind: "prefect-token", lits: []string{"pnu_"}, re: `pnu_([A-Za-z0-9]{36})`, h: 3.0},
	{kind: "pulumi-token", lits: []string{"pul-"}, re: `pul-([a-f0-9]{40})`, h: 3.0},
	{kind: "readme-token", lits: []string{"rdme_"}, re: `rdme_([a-z0-9]{70})`, h: 3.0},
	{kind: "rubygems-token", lits: []string{"rubygems_"}, re: `rubygems_([a-f0-9]{48})`, h: 3.0},
	{kind: "scalingo-token", lits: []string{"tk-us-"}, re: `tk-us-([A-Za-z0-9_-]{48})`, h: 3.0},
	{kind: "brevo-key", lits: []string{"xkeysib-"}, re: `xkeysib-([a-f0-9]{64}-(?i:[a-z0-9]{16}))`, h: 3.0},
	{kind: "sentry-token", lits: []string{"sntrys_eyJpYXQiO"}, re: `sntrys_(eyJpYXQiO[A-Za-z0-9+/]{10,200}(?:LCJyZWdpb25fdXJs|InJlZ2lvbl91cmwi|cmVnaW9uX3VybCI6)[A-Za-z0-9+/]{10,200}={0,2}_[A-Za-z0-9+/]{43})`, h: 4.0, tail: cB64},
	{kind: "sentry-token", lits: []string{"sntryu_"}, re: `sntryu_([a-f0-9]{64})`, h: 3.5},
	{kind: "settlemint-token", lits: []string{"sm_aat_", "sm_pat_", "sm_sat_"}, re: `sm_[aps]at_([A-Za-z0-9]{16})`, h: 3.0},
	{kind: "shippo-token", lits: []string{"shippo_"}, re: `shippo_(?:live|test)_([a-fA-F0-9]{40})`, h: 3.0},
	{kind: KindSlackToken, lits: []string{"xapp-"}, re: `xapp-[0-9]-([A-Z0-9]+-[0-9]+-[a-z0-9]+)`, h: 3.0},
	{kind: "sourcegraph-token", lits: []string{"sgp_"}, re: `sgp_(?:[a-fA-F0-9]{16}_|local_)?([a-fA-F0-9]{40})`, h: 3.0},
	{kind: "square-token", lits: []string{"EAAA", "sq0atp-", "sq0csp-"}, re: `(?:EAAA|sq0atp-|sq0csp-)([A-Za-z0-9_-]{22,60})`, h: 3.5, tail: cB64URL | cPlus | cSlash | cEq},
	{kind: KindTwilio, lits: []string{"SK"}, re: `SK([0-9a-fA-F]{32})`, h: 3.0, mixed: true},
	{kind: "typeform-token", lits: []string{"tfp_"}, re: `tfp_((?i)[a-z0-9_.=-]{59})`, h: 3.0},
	{kind: "defined-networking-token", lits: []string{"dnkey-"}, re: `dnkey-((?i)[a-z0-9=_-]{26}-[a-z0-9=_-]{52})`, h: 3.0},
	{kind: "authress-key", lits: []string{"sc_", "ext_", "scauth_", "authress_"}, re: `(?:sc|ext|scauth|authress)_(?i:[a-z0-9]{5,30})\.(?i:[a-z0-9]{4,6})\.acc[_-]((?i)[a-z0-9-]{10,32}\.[a-z0-9+/_=-]{30,120})`, h: 3.0},
}

// prefixCompiled gives prefix rule ri ready to run, compiled on its first
// use (lazy.go).
var prefixCompiled = lazyTable(len(prefixRules), func(i int) *compiledPrefix {
	r := prefixRules[i]
	if r.head == 0 {
		r.head = cAlnum
	}
	if r.tail == 0 {
		r.tail = cAlnum | cUnder | cDash
	}
	if r.max == 0 {
		r.max = 512
	}
	return &compiledPrefix{prefixRule: r, rx: regexp.MustCompile(`^(?:` + r.re + `)`)}
})

// prefixKeywords are the prefilter keywords of the prefix rules: arg is the
// rule index, and lit (the literal's index) is implied by the text.
func prefixKeywords() []kwEntry {
	var kws []kwEntry
	for i, r := range prefixRules {
		for _, l := range r.lits {
			kws = append(kws, kwEntry{text: strings.ToLower(l), det: detPrefix, arg: int32(i)})
		}
	}
	return kws
}

// prefix runs prefix rule ri on the keyword hit b[s:e].
func (sc *scanner) prefix(s, e int, ri int32) {
	b := sc.b
	r := prefixCompiled(int(ri))
	if !r.fold {
		ok := false
		for _, l := range r.lits {
			if len(l) == e-s && hasPrefixAt(b, s, l) {
				ok = true
				break
			}
		}
		if !ok {
			return
		}
	}
	start := s - r.back
	if start < 0 || !boundaryBefore(b, start, r.head) || start > 0 && b[start-1] == '.' && r.head&cDot == 0 && hasPrefixAt(b, start, "ico-") {
		return // video_box.ico-<hash>.png: a file name, not an Infracost key
	}
	if r.dot > 0 && (start+r.dot >= len(b) || b[start+r.dot] != '.') {
		return
	}
	m := r.rx.FindSubmatchIndex(window(b, start, r.max))
	if m == nil {
		return
	}
	end := start + m[1]
	if !boundaryAfter(b, end, r.tail) {
		return
	}
	body := b[start:end]
	for g := 2; g+1 < len(m); g += 2 {
		if m[g] >= 0 {
			body = b[start+m[g] : start+m[g+1]]
			break
		}
	}
	if r.h > 0 && entropy(body) < min(r.h, randomFloor(body, markedFloor)) {
		return
	}
	if r.mixed {
		if c := classes(body); c&cDigit == 0 || c&cAlpha == 0 {
			return
		}
	}
	if r.check != nil && !r.check(b[start:end]) {
		return
	}
	if r.extend != nil {
		end = r.extend(b, start, end)
	}
	sc.add(start, end, r.kind)
}

// wrappedBase64 continues a base64 token that fills a line of the usual
// wrap widths (64, 76) over the following lines of that width, indented like
// the first, and a last shorter one, as base64(1), PEM bodies and YAML block
// scalars wrap.
func wrappedBase64(b []byte, start, end int) int {
	ls := lineStart(b, start, 256)
	ls += linePrefix(b[ls:start])
	indent := start - ls
	if spanOf(b, ls, cSpace, indent) != start {
		return end // the token does not start its line: not a wrapped block
	}
	w := end - start
	if w != 64 && w != 76 {
		return end
	}
	for {
		i := end
		if hasPrefixAt(b, i, "\r\n") {
			i += 2
		} else if i < len(b) && b[i] == '\n' {
			i++
		} else {
			return end
		}
		i += linePrefix(b[i:lineEnd(b, i, 512)])
		if spanOf(b, i, cSpace, indent) != i+indent {
			return end
		}
		i += indent
		j := spanOf(b, i, cB64|cEq, w+1)
		if j == i || j-i > w || !boundaryAfter(b, j, cB64|cEq|cSpace) {
			return end
		}
		end = j
		if j-i < w || b[j-1] == '=' {
			return end
		}
	}
}

// base64PEMKey accepts base64 whose decoded head is a private-key PEM
// header (kubeconfig client-key-data, Kubernetes tls.key, Helm values).
func base64PEMKey(tok []byte) bool {
	var buf [96]byte
	n := min(len(tok), 128) &^ 3
	d, err := base64.StdEncoding.AppendDecode(buf[:0], tok[:n])
	if err != nil && len(d) == 0 {
		return false
	}
	hdr, _, _ := bytes.Cut(d, []byte("\n"))
	return bytes.HasPrefix(hdr, []byte("-----BEGIN ")) && bytes.Contains(hdr, []byte("PRIVATE KEY"))
}

// base64JWT accepts base64 whose decoded form is a JWT (header.payload.),
// as in a Kubernetes Secret holding a service-account token.
func base64JWT(tok []byte) bool {
	var buf [1024]byte
	n := min(len(tok), 1300) &^ 3
	d, err := base64.StdEncoding.AppendDecode(buf[:0], tok[:n])
	if err != nil && len(d) == 0 {
		return false
	}
	h, rest, ok := bytes.Cut(d, []byte("."))
	return ok && bytes.HasPrefix(h, []byte("eyJ")) && bytes.HasPrefix(rest, []byte("eyJ")) && jwtHeaderOK(h)
}
