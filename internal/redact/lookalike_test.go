package redact

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"strings"
	"testing"
)

func uuid() string {
	h := hex.EncodeToString(rbytes(16))
	return h[:8] + "-" + h[8:12] + "-4" + h[13:16] + "-a" + h[17:20] + "-" + h[20:]
}

// lookalikes returns documents full of things that look like secrets and
// are not: identifiers, hashes, encodings, code, placeholders, prose.
func lookalikes() map[string]string {
	sha1 := func() string { return hex.EncodeToString(rbytes(20)) }
	sum := sha256.Sum256(rbytes(64))
	sha := hex.EncodeToString(sum[:])
	img := base64.StdEncoding.EncodeToString(append([]byte("\x89PNG\r\n\x1a\n"), rbytes(1500)...))
	integrity := base64.StdEncoding.EncodeToString(rbytes(64))
	return map[string]string{
		"uuid":         `{"id": "` + uuid() + `", "request_id": "` + uuid() + `"}` + "\nrequest_id=" + uuid() + " trace=" + uuid() + "\n",
		"git-sha":      "commit " + sha1() + "\nMerge: " + sha1()[:7] + " " + sha1()[:7] + "\n" + `{"sha": "` + sha1() + `", "parents": ["` + sha1() + `"]}` + "\n",
		"git-log":      sha1()[:12] + " (HEAD -> main, origin/main) fix: rotate token cache\n" + sha1()[:12] + " refactor secret loading\n",
		"sha256":       "sha256:" + sha + "\n" + `"checksum": "` + sha + `"` + "\nDigest: sha256:" + sha + "\n" + sha + "  release.tar.gz\n",
		"image-data":   `<img src="data:image/png;base64,` + img + `">` + "\n" + `{"avatar": "` + img + `"}`,
		"integrity":    `"node_modules/left-pad": {"version": "1.3.0", "resolved": "https://registry.npmjs.org/left-pad/-/left-pad-1.3.0.tgz", "integrity": "sha512-` + integrity + `"}`,
		"go-sum":       "golang.org/x/crypto v0.31.0 h1:" + base64.StdEncoding.EncodeToString(rbytes(32)) + "\n",
		"aws-example":  "AWS_ACCESS_KEY_ID=AKIAIOSFODNN7EXAMPLE\nAWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY\naws_secret_access_key = \"wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY\"\n",
		"go-code-1":    "token := p.next()\npassword := r.FormValue(\"password\")\ntok = tok.Next()\nsecret := os.Getenv(\"APP_SECRET\")\napiKey := cfg.APIKey\n",
		"go-code-2":    "if token == \"\" {\n\treturn nil, ErrNoToken\n}\ntoken, err := parseToken(s)\nfunc (t *Token) String() string { return t.Literal }\nconst tokenLen = 32\nvar ErrInvalidToken = errors.New(\"invalid token\")\n",
		"go-code-3":    "\tsecret = append(secret, b...)\n\tpassword = strings.TrimSpace(password)\n\ttokens = 2*maxConcurrency + minTokens*cfg.BuildP\n\tPassword: opts.Password,\n\ttoken.ADD: allNumericOrString,\n",
		"js-code":      "const token = await getToken();\nthis.secret = secret;\nconst { apiKey } = config;\npassword: PropTypes.string.isRequired,\nlet accessToken = localStorage.getItem('accessToken');\n",
		"ts-types":     "interface Auth {\n  token: string;\n  secret?: string;\n  password: string | undefined;\n  apiKey: Array<string>;\n}\n",
		"py-code":      "password = os.environ[\"DB_PASSWORD\"]\napi_key = settings.API_KEY\ntoken = request.headers.get(\"Authorization\")\nsecret_key = get_secret_key()\n",
		"k8s-yaml":     "env:\n  - name: DB_PASSWORD\n    valueFrom:\n      secretKeyRef:\n        name: db-secret\n        key: password\nsecretName: tls-cert\n",
		"placeholders": "password: ${DB_PASSWORD}\nAPI_KEY=<your-api-key>\ntoken: \"xxxxxxxxxxxxxxxx\"\npassword = \"changeme\"\npassword: \"********\"\nsecret: \"{{ .Values.secret }}\"\nAPI_TOKEN=your_token_here\nclient_secret=%s\n",
		"words":        "\"token_type\": \"Bearer\"\n\"tokenizer\": \"cl100k_base\"\nmax_tokens: 4096\npassword_hash_algorithm: argon2id\nsecretsManager: AwsSecretsManagerProvider\nauth_token_ttl: 3600s\n",
		"urls":         "postgres://localhost:5432/app\nhttps://github.com/acme/repo\nredis://cache:6379/0\npostgres://app@db:5432/app\nmysql://user:${DB_PASS}@db/app\nmongodb://admin:password@localhost\n",
		"prose":        "The password must be at least 8 characters long.\nUse a bearer token to authenticate requests.\nRotate the secret key every 90 days. Token-based auth is preferred.\n",
		"sk-words":     "task-runner-implementation-details and disk-usage-report, risk-assessment-framework-overview\n",
		"near-tokens":  "GHP_TOKEN=\nghp_\nnpm_config_cache=/tmp/npm\nnpm_package_name=left-pad\nSG.Header\nmsg.SenderGroupIdentifier\n",
		"eyJ-partial":  "eyJhbGciOiJIUzI1NiJ9 is a base64 header\n" + base64.StdEncoding.EncodeToString(rbytes(300)) + "\n",
		"pem-const":    "const pemType = \"-----BEGIN RSA PRIVATE KEY-----\"\nif !strings.HasPrefix(s, \"-----BEGIN PRIVATE KEY-----\") {\n-----BEGIN CERTIFICATE-----\n" + base64.StdEncoding.EncodeToString(rbytes(600)) + "\n-----END CERTIFICATE-----\n",
		"versions":     "github.com/acme/lib v0.0.0-20240101120000-" + sha1()[:12] + "\nimage: nginx@sha256:" + sha + "\nversion: 1.2.3-rc.4+build.5\n",
		"emails-off":   "From: Jane Doe <jane.doe@acme.io>\nCall +1 (415) 555-2671, card 4242 4242 4242 4242\n",
		"css-hex":      "color: #a3f2c1; background: #ffffff; --token-color-primary: #0a84ff;\n",
		"paths":        "password_file: /run/secrets/db_password\nsecret_path: /var/lib/app/secret.key\ntoken: /var/run/secrets/kubernetes.io/serviceaccount/token\n",
		"flags":        "--password-stdin --token-file ~/.config/gh/token --secret-id-file ./secret\n",
		"placeholder":  "token=[REDACTED:github-token:1a2b3c4d] password=\"[REDACTED:generic-secret:deadbeef]\"\n",
	}
}

// TestLookalikesNotRedacted requires zero false positives on look-alikes.
func TestLookalikesNotRedacted(t *testing.T) {
	r := New(Config{Key: testKey})
	fp, examples := 0, 0
	for name, doc := range lookalikes() {
		for _, f := range r.Find([]byte(doc)) {
			if f.Example {
				examples++
				continue
			}
			fp++
			t.Errorf("%s: false positive %s %q", name, f.Kind, doc[f.Start:f.End])
		}
		if got := r.Redact(doc); got != doc {
			t.Errorf("%s: Redact changed the document", name)
		}
	}
	t.Logf("look-alike documents: %d, false positives: %d, documented examples reported: %d", len(lookalikes()), fp, examples)
	if examples == 0 {
		t.Error("AWS documented examples not reported as examples")
	}
}

// TestExamplesReported checks that documented example keys are reported as
// examples and left in place.
func TestExamplesReported(t *testing.T) {
	r := New(Config{Key: testKey})
	doc := "AKIAIOSFODNN7EXAMPLE wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY aws"
	fs := r.Find([]byte(doc))
	kinds := map[string]bool{}
	for _, f := range fs {
		if !f.Example {
			t.Errorf("not an example: %+v", f)
		}
		kinds[f.Kind] = true
	}
	if !kinds[KindAWSAccessKeyID] || !kinds[KindAWSSecretKey] {
		t.Errorf("want both AWS examples reported, got %+v", fs)
	}
	if r.Redact(doc) != doc {
		t.Error("example redacted")
	}
	if r.Stats().Examples == 0 {
		t.Error("examples not counted")
	}
}

func TestNoAllocWhenClean(t *testing.T) {
	r := New(Config{Key: testKey})
	doc := strings.Repeat("func (t *Token) String() string { return t.lit } // token password secret\n", 50)
	if n := testing.AllocsPerRun(50, func() { _ = r.Redact(doc) }); n != 0 {
		t.Errorf("Redact allocates %.0f times on clean input", n)
	}
	b := []byte(doc)
	if n := testing.AllocsPerRun(50, func() { _ = r.RedactBytes(b) }); n != 0 {
		t.Errorf("RedactBytes allocates %.0f times on clean input", n)
	}
	if got := r.RedactBytes(b); &got[0] != &b[0] {
		t.Error("RedactBytes copied clean input")
	}
}

// adversarialDocs are inputs built to make detectors rescan (many BEGIN
// lines, repeated keywords), at n times a base size.
func adversarialDocs(n int) map[string]string {
	return map[string]string{
		"begin-no-end":   strings.Repeat("-----BEGIN RSA PRIVATE KEY-----\n", 4000*n),
		"begin-then-end": strings.Repeat("-----BEGIN RSA PRIVATE KEY-----\nAAAA\n", 3000*n) + "-----END RSA PRIVATE KEY-----\n",
		"twilio":         strings.Repeat("twilio ", 20000*n),
		"keywords":       strings.Repeat("token=password=secret=api_key=", 4000*n),
		"aws-secret":     strings.Repeat("aws secret ", 10000*n),
		"jwt-ish":        strings.Repeat("eyJhbGciOiJub25lIn0.", 6000*n),
		"digits":         strings.Repeat("4111 1111 1111 1111 +1 (415) 555-2671 ", 3000*n),
		"at-signs":       strings.Repeat("a@b.c", 20000*n),
	}
}

// TestAdversarialInputsScaleLinearly: doubling such an input may at most
// about double the work, counted in allocations (deterministic, no clock);
// the speed is BenchmarkAdversarialInputs.
func TestAdversarialInputsScaleLinearly(t *testing.T) {
	r := New(Config{Key: testKey, PII: true})
	small, big := adversarialDocs(1), adversarialDocs(2)
	for name := range small {
		a, b := []byte(small[name]), []byte(big[name])
		n1 := testing.AllocsPerRun(2, func() { r.RedactBytes(a) })
		n2 := testing.AllocsPerRun(2, func() { r.RedactBytes(b) })
		if n1 > 0 && n2/n1 > 3 {
			t.Errorf("%s: %.0f allocations at size n, %.0f at 2n: grows faster than linearly", name, n1, n2)
		}
	}
}

func BenchmarkAdversarialInputs(b *testing.B) {
	r := New(Config{Key: testKey, PII: true})
	for name, doc := range adversarialDocs(10) {
		in := []byte(doc)
		b.Run(name, func(b *testing.B) {
			b.SetBytes(int64(len(in)))
			for i := 0; i < b.N; i++ {
				r.RedactBytes(in)
			}
		})
	}
}
