package redact

import (
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"math/big"
	"strings"
)

// Test-time generators: every true positive is made of fresh random values
// from crypto/rand, so the corpus never holds a real secret.

const (
	alUpper   = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
	alLower   = "abcdefghijklmnopqrstuvwxyz"
	alDigit   = "0123456789"
	alBase62  = alDigit + alUpper + alLower
	alBase32  = alUpper + "234567"
	alHex     = "0123456789abcdef"
	alB64URL  = alBase62 + "-_"
	alUpDigit = alUpper + alDigit
)

func rnd(n int) int {
	v, err := rand.Int(rand.Reader, big.NewInt(int64(n)))
	if err != nil {
		panic(err)
	}
	return int(v.Int64())
}

func rstr(alphabet string, n int) string {
	b := make([]byte, n)
	for i := range b {
		b[i] = alphabet[rnd(len(alphabet))]
	}
	return string(b)
}

func rbytes(n int) []byte {
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		panic(err)
	}
	return b
}

func pick[T any](xs ...T) T { return xs[rnd(len(xs))] }

// rsecret is a random value as password generators and API key issuers make
// them: it always mixes letters and digits.
func rsecret(alphabet string, n int) string {
	if n < 2 || !strings.ContainsAny(alphabet, alDigit) || !strings.ContainsAny(alphabet, alLower+alUpper) {
		return rstr(alphabet, n)
	}
	for {
		s := rstr(alphabet, n)
		if strings.ContainsAny(s, alDigit) && strings.ContainsAny(s, alLower+alUpper) && s[0] != '=' {
			return s
		}
	}
}

func checksummed(prefix string) string {
	body := rstr(alBase62, 30)
	sum := base62CRC32([]byte(body))
	return prefix + body + string(sum[:])
}

func pemBlock(label string, nbytes, width int) string {
	body := base64.StdEncoding.EncodeToString(rbytes(nbytes))
	var sb strings.Builder
	sb.WriteString("-----BEGIN " + label + "-----\n")
	for len(body) > width {
		sb.WriteString(body[:width] + "\n")
		body = body[width:]
	}
	sb.WriteString(body + "\n-----END " + label + "-----")
	return sb.String()
}

func jwtToken() string {
	enc := base64.RawURLEncoding
	hdr, _ := json.Marshal(map[string]string{"alg": pick("HS256", "RS256", "ES256", "EdDSA"), "typ": "JWT", "kid": rstr(alB64URL, 12)})
	claims, _ := json.Marshal(map[string]any{"sub": rstr(alDigit, 10), "name": rstr(alLower, 8), "iat": 1700000000 + rnd(1e7), "scope": "read write"})
	sig := enc.EncodeToString(rbytes(pick(32, 64, 256)))
	return enc.EncodeToString(hdr) + "." + enc.EncodeToString(claims) + "." + sig
}

// sample is one generated true positive: Value goes into a document under
// Name; Secret is the part of Value that must be redacted (often Value).
type sample struct {
	Kind   string
	Name   string
	Value  string
	Secret string
	// Exact requires the finding to cover Secret exactly (partial kinds).
	Exact bool
	// Multiline values only go into contexts that can hold them.
	Multiline bool
	// Doc samples are whole files (a .netrc, a kubeconfig, a curl command):
	// Name is the file's path, Value its content, Needles the parts that
	// must not survive redaction. They are rendered by docContexts.
	Doc     bool
	Needles []string
}

// kv is a name=value sample; the caller sets the kind.
func kv(name, value string) sample { return sample{Name: name, Value: value, Secret: value} }

// doc is a whole-file sample; the caller sets the kind.
func doc(path, content string, needles ...string) sample {
	return sample{Name: path, Value: content, Doc: true, Needles: needles}
}

// docContext renders a file the way a tool shows it.
type docContext struct {
	name   string
	render func(path, content string) string
}

// docContexts: the file itself, read_file's numbered lines, grep -n's
// path:N: prefixes, and cat of it between other files.
var docContexts = []docContext{
	{"file", func(p, c string) string { return c }},
	{"read_file", func(p, c string) string {
		var sb strings.Builder
		for i, l := range strings.Split(strings.TrimSuffix(c, "\n"), "\n") {
			fmt.Fprintf(&sb, "%6d\t%s\n", i+1, l)
		}
		return sb.String()
	}},
	{"grep -n", func(p, c string) string {
		var sb strings.Builder
		for i, l := range strings.Split(strings.TrimSuffix(c, "\n"), "\n") {
			fmt.Fprintf(&sb, "%s:%d:%s\n", p, i+1, l)
		}
		return sb.String()
	}},
	{"cat", func(p, c string) string {
		return "# app\nSee docs/setup.md.\n" + c + "package main\n\nfunc main() {}\n"
	}},
}

// Alphabets of the gitleaks-shaped generators.
const (
	alLD  = alLower + alDigit    // [a-z0-9]
	alAH  = "abcdefgh" + alDigit // [a-h0-9]
	alB64 = alBase62 + "+/"      // standard base64 without padding
)

// b64n is standard base64 of n random bytes.
func b64n(n int) string { return base64.StdEncoding.EncodeToString(rbytes(n)) }

type genFunc func() sample

func whole(kind, name, v string) sample { return sample{Kind: kind, Name: name, Value: v, Secret: v} }

// generators lists, per kind, ways to make a fresh true positive.
var generators = map[string][]genFunc{
	KindAWSAccessKeyID: {
		func() sample { return whole(KindAWSAccessKeyID, "AWS_ACCESS_KEY_ID", "AKIA"+rstr(alBase32, 16)) },
		func() sample { return whole(KindAWSAccessKeyID, "access_key", "ASIA"+rstr(alBase32, 16)) },
	},
	KindAWSSecretKey: {
		func() sample {
			return whole(KindAWSSecretKey, "AWS_SECRET_ACCESS_KEY", base64.StdEncoding.EncodeToString(rbytes(30)))
		},
		func() sample {
			return whole(KindAWSSecretKey, "aws_secret_key", base64.StdEncoding.EncodeToString(rbytes(30)))
		},
	},
	KindGitHubToken: {
		func() sample { return whole(KindGitHubToken, "GITHUB_TOKEN", checksummed("ghp_")) },
		func() sample { return whole(KindGitHubToken, "oauth", checksummed("gho_")) },
		func() sample { return whole(KindGitHubToken, "GH_APP", checksummed(pick("ghu_", "ghs_"))) },
		func() sample { return whole(KindGitHubToken, "refresh", checksummed("ghr_")) },
		func() sample {
			return whole(KindGitHubToken, "GH_PAT", "github_pat_"+rsecret(alBase62, 22)+"_"+rsecret(alBase62, 59))
		},
	},
	KindGitLabToken: {
		func() sample { return whole(KindGitLabToken, "GITLAB_TOKEN", "glpat-"+rsecret(alB64URL, 20)) },
		func() sample {
			return whole(KindGitLabToken, "deploy", pick("gldt-", "glrt-", "glptt-")+rsecret(alB64URL, 20))
		},
	},
	KindSlackToken: {
		func() sample {
			return whole(KindSlackToken, "SLACK_BOT_TOKEN", "xoxb-"+rstr(alDigit, 12)+"-"+rstr(alDigit, 13)+"-"+rsecret(alBase62, 24))
		},
		func() sample {
			return whole(KindSlackToken, "slack", "xoxp-"+rstr(alDigit, 12)+"-"+rstr(alDigit, 12)+"-"+rstr(alDigit, 13)+"-"+rsecret(alHex, 32))
		},
		func() sample {
			return whole(KindSlackToken, "slack_refresh", pick("xoxe.xoxp-1-", "xoxe-1-")+rsecret(alBase62, 140))
		},
	},
	KindSlackWebhook: {
		func() sample {
			path := "T" + rstr(alUpDigit, 10) + "/B" + rstr(alUpDigit, 10) + "/" + rsecret(alBase62, 24)
			return sample{Kind: KindSlackWebhook, Name: "SLACK_WEBHOOK_URL", Value: "https://hooks.slack.com/services/" + path, Secret: path, Exact: true}
		},
	},
	KindStripeKey: {
		func() sample {
			return whole(KindStripeKey, "STRIPE_KEY", pick("sk_live_", "rk_live_", "sk_test_")+rsecret(alBase62, pick(24, 99)))
		},
		func() sample { return whole(KindStripeKey, "webhook", "whsec_"+rsecret(alBase62, 32)) },
	},
	KindOpenAIKey: {
		func() sample {
			return whole(KindOpenAIKey, "OPENAI_API_KEY", "sk-"+rstr(alBase62, 20)+"T3BlbkFJ"+rstr(alBase62, 20))
		},
		func() sample {
			return whole(KindOpenAIKey, "openai", pick("sk-proj-", "sk-svcacct-", "sk-admin-")+rsecret(alB64URL, pick(48, 156)))
		},
	},
	KindAnthropicKey: {
		func() sample {
			return whole(KindAnthropicKey, "ANTHROPIC_API_KEY", "sk-ant-"+pick("api03", "admin01")+"-"+rsecret(alB64URL, 93)+"AA")
		},
	},
	KindGoogleAPIKey: {
		func() sample { return whole(KindGoogleAPIKey, "GOOGLE_API_KEY", "AIza"+rsecret(alB64URL, 35)) },
	},
	KindGCPServiceAccount: {
		func() sample {
			key := pemBlock("PRIVATE KEY", 1190, 64) + "\n"
			id := rstr(alHex, 40)
			sa := map[string]string{
				"type": "service_account", "project_id": "demo-" + rstr(alLower, 6),
				"private_key_id": id, "private_key": key,
				"client_email": "svc@demo.iam.gserviceaccount.com", "client_id": rstr(alDigit, 21),
			}
			js, _ := json.MarshalIndent(sa, "", "  ")
			enc, _ := json.Marshal(key)
			return sample{Kind: KindGCPServiceAccount, Name: "GOOGLE_CREDENTIALS", Value: string(js),
				Secret: string(enc[1 : len(enc)-1]), Multiline: true}
		},
	},
	KindAzureStorageKey: {
		func() sample {
			k := base64.StdEncoding.EncodeToString(rbytes(64))
			v := "DefaultEndpointsProtocol=https;AccountName=acct" + rstr(alLower, 5) + ";AccountKey=" + k + ";EndpointSuffix=core.windows.net"
			return sample{Kind: KindAzureStorageKey, Name: "AZURE_STORAGE_CONNECTION_STRING", Value: v, Secret: k, Exact: true}
		},
	},
	KindNPMToken: {
		func() sample { return whole(KindNPMToken, "NPM_TOKEN", checksummed("npm_")) },
	},
	KindPyPIToken: {
		func() sample {
			return whole(KindPyPIToken, "PYPI_TOKEN", "pypi-AgEIcHlwaS5vcmc"+base64.RawURLEncoding.EncodeToString(rbytes(110)))
		},
	},
	KindSendGridKey: {
		func() sample {
			return whole(KindSendGridKey, "SENDGRID_API_KEY", "SG."+rsecret(alB64URL, 22)+"."+rsecret(alB64URL, 43))
		},
	},
	KindTwilio: {
		func() sample { return whole(KindTwilio, "TWILIO_ACCOUNT_SID", "AC"+rsecret(alHex, 32)) },
		func() sample { return whole(KindTwilio, "TWILIO_AUTH_TOKEN", rsecret(alHex, 32)) },
		func() sample { return whole(KindTwilio, "TWILIO_API_KEY", "SK"+rsecret(alHex, 32)) },
	},
	KindJWT: {
		func() sample { return whole(KindJWT, "id_token", jwtToken()) },
	},
	KindPrivateKey: {
		func() sample {
			s := pemBlock(pick("RSA PRIVATE KEY", "PRIVATE KEY", "EC PRIVATE KEY", "ENCRYPTED PRIVATE KEY"), pick(121, 1190, 2350), 64)
			return sample{Kind: KindPrivateKey, Name: "TLS_KEY", Value: s, Secret: s, Multiline: true}
		},
		func() sample {
			s := pemBlock("OPENSSH PRIVATE KEY", pick(400, 1800), 70)
			return sample{Kind: KindPrivateKey, Name: "SSH_KEY", Value: s, Secret: s, Multiline: true}
		},
	},
	KindDBURLPassword: {
		func() sample {
			pw := rsecret(alBase62+"-_.~", pick(12, 24))
			scheme := pick("postgres", "postgresql", "mysql", "mongodb", "mongodb+srv", "amqps", "rediss")
			v := scheme + "://app_user:" + pw + "@db-" + rstr(alLower, 4) + ".prod.internal:5432/app?sslmode=require"
			return sample{Kind: KindDBURLPassword, Name: "DATABASE_URL", Value: v, Secret: pw, Exact: true}
		},
		func() sample {
			pw := rsecret(alBase62, 20)
			return sample{Kind: KindDBURLPassword, Name: "REDIS_URL", Value: "redis://:" + pw + "@cache:6379/0", Secret: pw, Exact: true}
		},
	},
	KindGenericSecret: {
		func() sample {
			name := pick("password", "DB_PASSWORD", "client_secret", "api_key", "apiKey", "access_token", "auth_token", "secretKey", "SECRET", "passwd", "x-api-key")
			var v string
			// A random value that happens to read as a code name (one or two
			// single digits among letters: kwmgi_4eHuylhHTS) is, unquoted,
			// taken for code by design (codeName); it is drawn again.
			for v == "" || codeName([]byte(v)) {
				switch rnd(4) {
				case 0:
					v = rsecret(alHex, pick(32, 40, 64))
				case 1:
					v = base64.StdEncoding.EncodeToString(rbytes(pick(18, 24, 33)))
				case 2:
					v = rsecret(alBase62, 16+rnd(25))
				default:
					v = rsecret(alBase62+"!@#%^_-+=.~", 16+rnd(9))
				}
			}
			return whole(KindGenericSecret, name, v)
		},
		func() sample { // UUID API keys (Heroku, many SaaS)
			return whole(KindGenericSecret, pick("LICENSE_API_KEY", "apiKey", "X_API_TOKEN"), uuid())
		},
		func() sample { // signing secrets: 32 random bytes, base64url
			return whole(KindGenericSecret, pick("JWT_SECRET", "session_secret", "SECRET_KEY_BASE", "cookieSecret"),
				base64.RawURLEncoding.EncodeToString(rbytes(32)))
		},
		func() sample { // passphrases with punctuation
			return whole(KindGenericSecret, pick("passphrase", "KEYSTORE_PASSWORD", "db.password", "smtp_passwd"),
				rsecret(alBase62, 6)+pick("!", "#", "%", "^", "@")+rsecret(alBase62, 6)+pick("?", ".", "~", "+")+rstr(alDigit, 3))
		},
	},
}

// context renders name=value as one kind of document and says how a value
// is escaped there.
type context struct {
	name      string
	multiline bool
	render    func(name, value string) string
	escape    func(string) string
}

func ident(s string) string { return s }

func jsonEscape(s string) string {
	b, _ := json.Marshal(s)
	return string(b[1 : len(b)-1])
}

var contexts = []context{
	{"env", false, func(n, v string) string { return "# settings\nAPP_ENV=production\n" + n + "=" + v + "\nPORT=8080\n" }, ident},
	{"json", true, func(n, v string) string {
		return fmt.Sprintf("{\n  \"service\": \"billing\",\n  %q: \"%s\",\n  \"retries\": 3\n}\n", strings.ToLower(n), jsonEscape(v))
	}, jsonEscape},
	{"yaml", false, func(n, v string) string {
		return "service:\n  name: billing\n  " + strings.ToLower(n) + ": " + v + "\n  replicas: 2\n"
	}, ident},
	{"shell", true, func(n, v string) string {
		return "#!/bin/sh\nset -eu\nexport " + n + "=\"" + v + "\"\n./run.sh --verbose\n"
	}, ident},
	{"log", false, func(n, v string) string {
		return "2025-03-14T09:26:53.589Z INFO  [http] POST /v1/charge status=200 dur=12ms\n2025-03-14T09:26:53.590Z DEBUG [cfg] loaded " +
			strings.ToLower(n) + "=" + v + " region=eu-west-1\n"
	}, ident},
	{"url", false, func(n, v string) string {
		return "GET https://api.acme.io/v2/items?" + strings.ToLower(n) + "=" + v + "&limit=50 HTTP/1.1\n"
	}, ident},
}

// multilineContexts hold PEM blocks and whole JSON files.
var multilineContexts = []context{
	{"file", true, func(n, v string) string { return v + "\n" }, ident},
	{"json", true, func(n, v string) string {
		return fmt.Sprintf("{\"name\": \"%s\", \"value\": \"%s\"}\n", n, jsonEscape(v))
	}, jsonEscape},
	{"dotenv-quoted", true, func(n, v string) string { return "A=1\n" + n + "=\"" + v + "\"\nB=2\n" }, ident},
	{"log-escaped", true, func(n, v string) string {
		return "time=2025-03-14T09:26:53Z level=debug msg=\"loaded credentials\" body=\"" + jsonEscape(v) + "\"\n"
	}, jsonEscape},
	{"yaml-block", true, func(n, v string) string {
		return "data:\n  " + strings.ToLower(n) + ": |\n    " + strings.ReplaceAll(v, "\n", "\n    ") + "\n  other: 1\n"
	}, func(s string) string { return strings.ReplaceAll(s, "\n", "\n    ") }},
}
