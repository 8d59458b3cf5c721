package redact

import (
	"strings"
	"testing"
)

// TestRecallRegressions: values TestRecallCorpus drew at random and missed,
// once in some hundred runs each, before their detectors were fixed; each
// must be redacted with its kind.
func TestRecallRegressions(t *testing.T) {
	r := New(Config{Key: testKey})
	for _, c := range []struct{ name, doc, secret, kind string }{
		{"sentry key of hex of low entropy", "const dsn = \"https://8b1cc851c19d5b1b8c9cc8c588adeb8a@o439275.ingest.sentry.io/4222553\"\n",
			"8b1cc851c19d5b1b8c9cc8c588adeb8a", KindSentryDSN},
		{"vault token of low entropy", "vault login s.nVdSBdBdwB1XnFbfFVrddEdj\n", "s.nVdSBdBdwB1XnFbfFVrddEdj", KindVaultToken},
		{"value between plus signs", "auth_token=+X+qg-C815fnxln+\n", "+X+qg-C815fnxln+", KindGenericSecret},
		{"value between plus signs, yaml", "  auth_token: +yEx3MfBYoFylj5+\n", "+yEx3MfBYoFylj5+", KindGenericSecret},
		{"four x of mixed case in base64", "  azure_storage_key: IKUxXxxNy398H39n6OU9vaI/D+G8hgU4glsJ+tJ2um4=\n",
			"IKUxXxxNy398H39n6OU9vaI/D+G8hgU4glsJ+tJ2um4=", KindGenericSecret},
		{"placeholder word in random case", "api_key=IoUHQ9%9DumMY?459\n", "IoUHQ9%9DumMY?459", KindGenericSecret},
		{"24 letters of low entropy", "access_token=arjTrhsqUUhcFVjmneGPDUsm\n", "arjTrhsqUUhcFVjmneGPDUsm", KindGenericSecret},
		{"short password of low entropy", "  administrator_login_password = \"99zf1d199fzm\"\n", "99zf1d199fzm", KindGenericSecret},
		{"password with an alphabet run", "  administrator_login_password = \"9m4avwxyz2\"\n", "9m4avwxyz2", KindGenericSecret},
		{"percent then letters", "  password: \"%iSEMXpmbOEWTBXKVUtz\"\n", "%iSEMXpmbOEWTBXKVUtz", KindGenericSecret},
		{"percent around letters", "  password: \"%aDntllHwfELrchkIEK%\"\n", "%aDntllHwfELrchkIEK%", KindGenericSecret},
		{"bang then letters", "  password: \"!YMyxtUdozUmsUCixpEU\"\n", "!YMyxtUdozUmsUCixpEU", KindGenericSecret},
		{"bang then camel-case letters", "  password: \"!eAjofdkepwQXMzruuxr\"\n", "!eAjofdkepwQXMzruuxr", KindGenericSecret},
		{"random dotted value", "api_key=ICrw.gZ.y1_hQrqa\n", "ICrw.gZ.y1_hQrqa", KindGenericSecret},
		{"random dotted value 2", "api_key=MOPeltu.qwvp__OXJ4\n", "MOPeltu.qwvp__OXJ4", KindGenericSecret},
		{"base64 after a slash", "access_token=/Bg26sVeDUhizEZrRxsfGAjgRrTbNQhhgQwI0jL3/ucm\n",
			"/Bg26sVeDUhizEZrRxsfGAjgRrTbNQhhgQwI0jL3/ucm", KindGenericSecret},
	} {
		red := r.Redact(c.doc)
		if strings.Contains(red, c.secret) || !strings.Contains(red, "[REDACTED:"+c.kind+":") {
			t.Errorf("%s: %q redacted to %q, want %s", c.name, c.doc, red, c.kind)
		}
	}
}

// TestRecallRegressionLookalikes: what those fixes must still leave alone.
func TestRecallRegressionLookalikes(t *testing.T) {
	r := New(Config{Key: testKey})
	for _, d := range []string{
		"\"<token>\"+generatedToken+\"</token>\",\n",
		"body := \"<token>\"+cfg.Token+\"</token>\"\n",
		"api_key=xxxxxxxxxxxxxxxxxxxx\n",
		"API_KEY=sk-live-XXXX\n",
		"AWS_SECRET_ACCESS_KEY=AKIAXXXXXXXXXXXXXXXX\n",
		"api_key: \"abcd-xxxx-xxxx-xxxx\"\n",
		"api_key=your-DUMMY-key-value\n",
		"password: \"DummyPasswordValue1\"\n",
		"password=%DB_PASSWORD%\n",
		"password=%Pass%\n",
		"password=%PYTHON3%\n",
		"  password: \"@SuppressWarnings\"\n",
		"  password: \"%PropertyName\"\n",
		"  password: &db_password_anchor\n",
		"ssl_key: /etc/ssl/private/server.key\n",
		"token = cfg.Token\n",
		"pw = C.struct_passwd\n",
		"token = r.URL.Query\n",
		"tokenizer = http.NewServeMuxWithOptions\n",
		"key = \"0123456789abcdef\"\n",
		"password = \"abcd1234\"\n",
		"SUMO_ACCESS_KEY: AbCeFG123\n", // a false positive of gitleaks' own sumologic rule
	} {
		for _, f := range r.Find([]byte(d)) {
			if !f.Example {
				t.Errorf("false positive %s %q in %q", f.Kind, d[f.Start:f.End], d)
			}
		}
	}
}
