package redact

import (
	"bytes"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/url"
	"regexp"
	"strings"
	"testing"
)

// ansiRe matches the escape sequences a terminal would act on.
var ansiRe = regexp.MustCompile(`\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[@-Z\\-_]`)

// seenText is what a person reads of s: escape sequences cut, JSON
// escapes decoded.
func seenText(s string) string {
	s = ansiRe.ReplaceAllString(s, "")
	r := strings.NewReplacer(`\/`, "/", `\"`, `"`, `\\`, `\`)
	s = r.Replace(s)
	for _, c := range []string{"/", ":", "=", "-", "_"} {
		s = strings.ReplaceAll(s, fmt.Sprintf(`\u%04x`, c[0]), c)
		s = strings.ReplaceAll(s, fmt.Sprintf(`\u%04X`, c[0]), c)
	}
	if u, err := url.PathUnescape(s); err == nil {
		s = u
	}
	return s
}

// randAlnum is a random alphanumeric value with a digit: a value of
// letters only under 24 characters is taken for an identifier by design
// unless its key names a password (genericValueOK), so the tests of
// escaping do not draw one.
func randAlnum(n int) string {
	const al = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
	b := make([]byte, n)
	for {
		_, _ = rand.Read(b)
		for i := range b {
			b[i] = al[int(b[i])%len(al)]
		}
		if bytes.ContainsAny(b, "0123456789") && !codeName(b) {
			return string(b)
		}
	}
}

func randUpDigit(n int) string {
	const al = "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
	b := make([]byte, n)
	_, _ = rand.Read(b)
	for i := range b {
		b[i] = al[int(b[i])%len(al)]
	}
	return string(b)
}

// grepColour renders "file:line" as grep --color=always does, with match
// highlighted (the whole line for the pattern ".").
func grepColour(file, line, match string) string {
	pre := "\x1b[35m\x1b[K" + file + "\x1b[m\x1b[K\x1b[36m\x1b[K:\x1b[m\x1b[K"
	if match == "" {
		return pre + line + "\n"
	}
	return pre + strings.ReplaceAll(line, match, "\x1b[01;31m\x1b[K"+match+"\x1b[m\x1b[K") + "\n"
}

// jqColour renders a flat JSON object as jq -C does.
func jqColour(kv ...string) string {
	var sb strings.Builder
	sb.WriteString("\x1b[1;39m{\n")
	for i := 0; i < len(kv); i += 2 {
		fmt.Fprintf(&sb, "  \x1b[0m\x1b[34;1m%q\x1b[0m\x1b[1;39m:\x1b[0m \x1b[0;32m%q\x1b[0m", kv[i], kv[i+1])
		if i+2 < len(kv) {
			sb.WriteString("\x1b[1;39m,")
		}
		sb.WriteString("\n")
	}
	sb.WriteString("\x1b[1;39m\x1b[1;39m}\x1b[0m\n")
	return sb.String()
}

// TestRedactSeen: the cases of issue 19, each a fresh random secret in
// the form a tool shows it; the secret must be gone from the output as a
// person reads it, and the text around it (colour codes included) kept.
func TestRedactSeen(t *testing.T) {
	type tc struct {
		name, text, secret string
	}
	var cases []tc
	add := func(name, text, secret string) { cases = append(cases, tc{name, text, secret}) }
	for i := 0; i < 5; i++ {
		pw := randAlnum(20)
		add("yaml password, grep --color=always .", grepColour("config/app.yml", "  password: "+pw, "  password: "+pw), pw)
		add("yaml password, grep --color=always password", grepColour("config/app.yml", "  password: "+pw, "password"), pw)
		cs := randAlnum(32)
		add("json client_secret, jq -C", jqColour("client_id", "web-app", "client_secret", cs, "scope", "read"), cs)
		add("spring.datasource.password, grep colour", grepColour("src/main/resources/application.properties", "spring.datasource.password="+pw, "password"), pw)
		add("xml <password>, grep colour", grepColour("conf/db.xml", "    <password>"+pw+"</password>", "password"), pw)
		skb := strings.ToLower(randAlnum(64)) + "0123456789abcdef"
		add("rails secret_key_base, grep colour", grepColour("config/secrets.yml", "  secret_key_base: "+skb, "secret_key_base"), skb)
		add("terraform state password, jq -C", jqColour("type", "aws_db_instance", "password", pw), pw)
		add("terraform state password, grep colour", grepColour("terraform.tfstate", `            "password": "`+pw+`",`, "password"), pw)
		add("php define DB_PASSWORD", "<?php\ndefine('DB_PASSWORD', '"+pw+"');\n", pw)
		add("php define double quotes", "<?php\ndefine( \"AUTH_SECRET\", \""+pw+"\" );\n", pw)
		add("php define 8 chars", "<?php\ndefine('DB_PASSWORD', 'k9"+pw[:6]+"');\n", "k9"+pw[:6])
		add("pgpass", "db.internal:5432:app:app_user:"+pw+"\n*:*:*:replicator:"+pw[:10]+"x\n", pw)
		add("pgpass any host", "localhost:5432:*:postgres:"+pw[:9]+"\n", pw[:9])
		add("pgpass via read_file", "     1\tdb.prod.example.com:6432:orders:svc:"+pw+"\n", pw)
		add("pgpass via grep", "home/.pgpass:10.0.0.5:5432:app:app:"+pw+"\n", pw)
		wh := "T" + randUpDigit(10) + "/B" + randUpDigit(10) + "/" + randAlnum(24)
		add("slack webhook, JSON-escaped slashes", `{"channel": "#ops", "url": "https:\/\/hooks.slack.com\/services\/`+strings.ReplaceAll(wh, "/", `\/`)+`"}`, wh[strings.LastIndex(wh, "/")+1:])
		add("slack webhook, \\u002f", `{"url": "https:\u002f\u002fhooks.slack.com\u002fservices\u002f`+strings.ReplaceAll(wh, "/", `\u002f`)+`"}`, wh[strings.LastIndex(wh, "/")+1:])
		add("slack webhook, percent-encoded", "callback=https%3A%2F%2Fhooks.slack.com%2Fservices%2F"+strings.ReplaceAll(wh, "/", "%2F")+"&x=1", wh[strings.LastIndex(wh, "/")+1:])
		did := "1" + strings.Repeat("0", 3) + randUpDigit(14)
		did = strings.Map(func(r rune) rune {
			if r >= 'A' && r <= 'Z' {
				return '0' + (r-'A')%10
			}
			return r
		}, did)
		dtok := randAlnum(40) + "_-" + randAlnum(26)
		for _, form := range []string{
			"https://discord.com/api/webhooks/" + did + "/" + dtok,
			"https://discordapp.com/api/webhooks/" + did + "/" + dtok,
			`https:\/\/canary.discord.com\/api\/webhooks\/` + did + `\/` + dtok,
			`https:\u002F\u002Fdiscord.com\u002Fapi\u002Fwebhooks\u002F` + did + `\u002F` + dtok,
			"https%3A%2F%2Fdiscord.com%2Fapi%2Fwebhooks%2F" + did + "%2F" + dtok,
			"\x1b[32mhttps://discord.com/api/webhooks/" + did + "/" + dtok + "\x1b[0m",
		} {
			add("discord webhook "+form[:12], `{"webhook": "`+form+`"}`+"\n", dtok)
		}
		short := randAlnum(5)
		add(".env short password", "DB_HOST=db\nDB_PASSWORD="+short+"\nDB_USER=app\n", short)
		add(".env short quoted secret", "export JWT_SECRET='"+short+"'\n", short)
		add(".env short via grep", ".env:3:REDIS_PASSWORD="+short+"\n", short)
		add(".env short via read_file", "     3\tSMTP_PASS="+short+"\n", short)
		add("json-escaped password in a JSON string", `{"output": "{\"password\": \"`+pw+`\"}"}`, pw)
		add("coloured key=value", "\x1b[1mAPI_TOKEN\x1b[0m=\x1b[33m"+cs+"\x1b[0m\n", cs)
	}
	r := New(Config{Key: make([]byte, KeySize)})
	for _, c := range cases {
		out := r.Redact(c.text)
		if strings.Contains(seenText(out), c.secret) || strings.Contains(out, c.secret) {
			t.Errorf("%s: secret %q not redacted:\n in: %q\nout: %q", c.name, c.secret, c.text, out)
		}
		if !strings.Contains(out, "[REDACTED:") {
			t.Errorf("%s: no placeholder: %q", c.name, out)
		}
		if strings.Count(out, "\x1b") > strings.Count(c.text, "\x1b") {
			t.Errorf("%s: escape sequences added: %q", c.name, out)
		}
	}
}

// TestRedactSeenNegatives: text with colour codes, JSON escapes and short
// values that holds no secret is left alone.
func TestRedactSeenNegatives(t *testing.T) {
	r := New(Config{Key: make([]byte, KeySize)})
	for _, s := range []string{
		grepColour("main.go", "func checkPassword(pw string) bool {", "Password"),
		jqColour("name", "web-app", "password_policy", "strict", "token_url", "https://auth.example.com/token"),
		`{"url": "https:\/\/example.com\/api\/v1\/users", "path": "\/usr\/local\/bin"}`,
		"DB_PASSWORD=\nDB_PASSWORD=changeme\nDB_PASSWORD=${DB_PASS}\nAPI_TOKEN=true\nPASSWORD_MIN_LENGTH=8\n",
		"MAX_TOKENS=4096\nTOKEN_TTL=3600\nSECRET_NAME=db\n",
		"PWD=/tmp/tmp.Xk3pQ9zLm2\nOLDPWD=/home/dev/a1b2c3d4e5f6g7\n",
		"root:*:19000:0:99999:7:::\ndaemon:*:19000:0:99999:7:::\n",
		"listen 0.0.0.0:5432: ok\n",
		"https://discord.com/api/webhooks/123/short\n",
		"see https%3A%2F%2Fexample.com%2Fpath%2Fto%2Fpage for details\n",
		"\x1b]0;title\x07\x1b[2J\x1b[Hplain text\n",
		"define('DB_HOST', 'localhost');\ndefine('WP_DEBUG', false);\n",
	} {
		if got := r.Redact(s); got != s {
			t.Errorf("redacted:\n in: %q\nout: %q", s, got)
		}
	}
}

// TestNormaliseFingerprint: a coloured or escaped secret gets the
// placeholder of the plain secret.
func TestNormaliseFingerprint(t *testing.T) {
	r := New(Config{Key: make([]byte, KeySize)})
	pw := randAlnum(20)
	plain := r.Redact("password: " + pw + "\n")
	col := r.Redact("password: \x1b[31m" + pw[:10] + "\x1b[0m" + pw[10:] + "\n")
	ph := plain[len("password: ") : len(plain)-1]
	if !strings.Contains(col, ph) {
		t.Errorf("coloured secret's placeholder differs: %q vs %q", col, plain)
	}
}

// FuzzNormalise: normalise never panics, its map stays within the input
// and in order, and redacting the original leaves no secret a person
// would read.
func FuzzNormalise(f *testing.F) {
	pw := "Xk3pQ9zLm2Vb7RtY4wNa"
	for _, s := range []string{
		"\x1b[01;31m\x1b[Kpassword\x1b[m\x1b[K: " + pw,
		`{"url": "https:\/\/hooks.slack.com\/services\/T0ABCDEFGH\/B0ABCDEFGH\/` + pw + `xyzw"}`,
		`\u0070assword\u003d` + pw, "\x1b]52;c;aGVsbG8=\x07", "\x1b[", "\\", "\\u00", "%2", "%2F%3a",
		"\x1b]0;unterminated", "\x1bP" + strings.Repeat("x", 10), "a\\u007fb\\u0080",
	} {
		f.Add([]byte(s))
	}
	r := New(Config{Key: make([]byte, KeySize)})
	f.Fuzz(func(t *testing.T, b []byte) {
		n := normalise(b)
		if len(n.start) != len(n.text) || len(n.end) != len(n.text) {
			t.Fatalf("map lengths %d %d for %d bytes", len(n.start), len(n.end), len(n.text))
		}
		prev := int32(0)
		for j := range n.text {
			s, e := n.start[j], n.end[j]
			if s < prev || s >= e || int(e) > len(b) {
				t.Fatalf("byte %d maps to [%d,%d) of %d (previous end %d)", j, s, e, len(b), prev)
			}
			prev = e
		}
		for j := 0; j <= len(n.text); j++ {
			for k := j; k <= len(n.text) && k < j+3; k++ {
				s, e := n.mapSpan(j, k)
				if s < 0 || e > len(b) || s > e {
					t.Fatalf("mapSpan(%d,%d) = [%d,%d) of %d", j, k, s, e, len(b))
				}
			}
		}
		for _, fd := range r.Find(b) {
			if fd.Start < 0 || fd.End > len(b) || fd.Start >= fd.End {
				t.Fatalf("finding [%d,%d) of %d", fd.Start, fd.End, len(b))
			}
		}
		out := r.RedactBytes(b)
		if !bytes.Equal(out, b) && !bytes.Contains(out, []byte("[REDACTED:")) {
			t.Fatalf("changed without a placeholder: %q -> %q", b, out)
		}
		// A coloured secret after the fuzzed text is redacted in place:
		// whatever came before, the output holds it no more often than
		// the fuzzed text itself did.
		col := []byte("\napi_key=\x1b[31m" + pw + "\x1b[0m\n")
		got := r.RedactBytes(append(append([]byte{}, b...), col...))
		if bytes.Count(got, []byte(pw)) > bytes.Count(b, []byte(pw)) {
			t.Fatalf("coloured secret after fuzzed text not redacted: %q", got)
		}
	})
}

func TestNormaliseJSONRoundTrip(t *testing.T) {
	// Every ASCII byte JSON-escaped as \u00XX decodes to itself.
	var sb strings.Builder
	for c := 0x20; c < 0x7f; c++ {
		fmt.Fprintf(&sb, `\u%04x`, c)
	}
	n := normalise([]byte(sb.String()))
	for i, c := range n.text {
		if int(c) != 0x20+i {
			t.Fatalf("byte %d decodes to %q", i, c)
		}
	}
	raw, _ := json.Marshal(map[string]string{"url": "https://hooks.slack.com/services/x"})
	if !needsNormalise(bytes.ReplaceAll(raw, []byte("/"), []byte(`\/`))) {
		t.Fatal("escaped slashes not seen")
	}
}

// TestWriterSeen: coloured and escaped secrets written through the
// streaming writers in small pieces are redacted as in one piece.
func TestWriterSeen(t *testing.T) {
	r := New(Config{Key: make([]byte, KeySize)})
	pw := randAlnum(20)
	wh := "T" + randUpDigit(10) + "/B" + randUpDigit(10) + "/" + randAlnum(24)
	text := strings.Repeat("some log line before\n", 20) +
		grepColour("config/app.yml", "  password: "+pw, "password") +
		jqColour("client_secret", pw+"x") +
		`{"url": "https:\/\/hooks.slack.com\/services\/` + strings.ReplaceAll(wh, "/", `\/`) + `"}` + "\n" +
		strings.Repeat("some log line after\n", 20)
	secrets := []string{pw, wh[strings.LastIndex(wh, "/")+1:]}
	for _, live := range []bool{false, true} {
		for _, chunk := range []int{1, 7, 64} {
			var out bytes.Buffer
			w := r.NewWriter(&out)
			if live {
				w = r.NewLiveWriter(&out)
			}
			for i := 0; i < len(text); i += chunk {
				if _, err := w.Write([]byte(text[i:min(i+chunk, len(text))])); err != nil {
					t.Fatal(err)
				}
			}
			if err := w.Close(); err != nil {
				t.Fatal(err)
			}
			for _, s := range secrets {
				if strings.Contains(seenText(out.String()), s) {
					t.Errorf("live=%v chunk=%d: %q not redacted:\n%q", live, chunk, s, out.String())
				}
			}
		}
	}
}

// TestGitleaksVectorForms: forms from gitleaks' rule vectors that the
// engine now gets right, checked without the vectors file.
func TestGitleaksVectorForms(t *testing.T) {
	r := New(Config{Key: make([]byte, KeySize)})
	tok := randAlnum(32)
	for _, s := range []string{
		`$apiToken .= "` + tok + `"`,
		`API_TOKEN ::= "` + tok + `"`,
		`API_TOKEN ?= "` + tok + `"`,
		`var apiToken string = "` + tok + `"`,
		`System.setProperty("API_TOKEN", "` + tok + `")`,
		`utils.GetEnvOrDefault("api_token", "` + tok + `")`,
		"<apiToken>\n    " + tok + "\n</apiToken>",
		`{"config.ini": "API_TOKEN=` + tok + `\nBACKUP_ENABLED=true"}`,
		"AGE-SECRET-KEY-1" + strings.Repeat("Q", 58),
	} {
		if got := r.Redact(s); strings.Contains(got, tok) || strings.Contains(got, strings.Repeat("Q", 58)) {
			t.Errorf("not redacted: %q -> %q", s, got)
		}
	}
	jwt := "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4ifQ." + randAlnum(43)
	b64 := base64.StdEncoding.EncodeToString([]byte(jwt))
	if got := r.Redact("token: " + b64[:len(b64)/2] + b64[len(b64)/2:] + "\n"); strings.Contains(got, b64[:40]) {
		t.Errorf("base64 of a JWT not redacted: %q", got)
	}
	for _, s := range []string{
		"rookTable = 0023452Lllk2KqjLBvaxANWEgTd7bqjsxjo8aZj0wd",
		`SetSysctl = "qlikwcnaxo57cid5fvkh4r9b"`,
		"ReactNativeCameraKit: f15a5a04b0f6dc6073e6db0296e6ef2d8b8d2522",
		"sumObj = suGyI5imvADdvU",
		"apiVersion: v1\nkind: secret\ndata:\n\textra: YmFyCg==\n",
		"curl -i -u 'test:test'", `curl -sL --user "$1:$2" "$3"`, "curl -u <user:password> https://test.com/", "curl -u username:token",
		`public_key = "9Cnzj4p4WGeKLs1Pt8QuKUpRKfFLfRYC9AIKjbJTWit"`, "primaryKey=XL9-JqoFGLD-M-WTIY1isR2V6tLN3O",
		"csrf-token=Mj2qykJO5rELyHgezQ69nzUX0i3OH67V7+V4eUrLfpuyOuxmiW9rhROG/Whikle15syazJOkrjJa3U2AbhIvUw==",
		"xoxb-12345-abcd234", `"token4": "xoxp-572370529330-573807301142-572331691188-####################"`,
		"xoxe.xoxp-1-SlackAppConfigurationAccessTokenHere", `"secret_key" => "sk_abcdefghijklmnopqrstuvwxyz123"`,
		`<add key="ClearTextPassword" value="abc" />`, "http://assets.example.com/video_box.ico-7a388b69018576d24b59331fd60aab0c.png",
		`telegram_api_token = "clm67062:AgencyIdentificationCodeContentType"`, "AIzaSyabcdefghijklmnopqrstuvwxyz1234567",
	} {
		if got := r.Redact(s); got != s {
			t.Errorf("redacted: %q -> %q", s, got)
		}
	}
}
