package redact

import (
	"slices"
	"strings"
	"testing"
)

// samplesPerGenerator is how many fresh values each generator makes per
// context.
const samplesPerGenerator = 20

var testKey = []byte("0123456789abcdef0123456789abcdef")

// covers reports whether a finding of the kind covers doc[pos:pos+n] and,
// for Exact samples, nothing more.
func covers(fs []Finding, kind string, pos, n int, exact bool, valPos, valLen int) (bool, string) {
	for _, f := range fs {
		if f.Example || f.Start > pos || f.End < pos+n {
			continue
		}
		if f.Kind != kind {
			return false, "kind " + f.Kind
		}
		if exact && (f.Start != pos || f.End != pos+n) {
			return false, "span not exact"
		}
		if f.Start < valPos || f.End > valPos+valLen {
			return false, "span leaves the value"
		}
		return true, ""
	}
	return false, "not found"
}

// TestRecallCorpus generates fresh true positives of every kind in every
// context and requires each to be found, with its kind, and redacted.
func TestRecallCorpus(t *testing.T) {
	r := New(Config{Key: testKey})
	kinds := make([]string, 0, len(generators))
	for k := range generators {
		kinds = append(kinds, k)
	}
	slices.Sort(kinds)
	total, found := 0, 0
	for _, kind := range kinds {
		kTotal, kFound := 0, 0
		for gi, gen := range generators[kind] {
			for range samplesPerGenerator {
				s := gen()
				ctxs := contexts
				if s.Multiline {
					ctxs = multilineContexts
				}
				for _, c := range ctxs {
					doc := c.render(s.Name, s.Value)
					sec := c.escape(s.Secret)
					val := c.escape(s.Value)
					pos := strings.Index(doc, sec)
					vpos := strings.Index(doc, val)
					if pos < 0 || vpos < 0 {
						t.Fatalf("%s/%s: generator bug: secret not in document", kind, c.name)
					}
					kTotal++
					ok, why := covers(r.Find([]byte(doc)), kind, pos, len(sec), s.Exact, vpos, len(val))
					red := r.Redact(doc)
					if ok && strings.Contains(red, sec) {
						ok, why = false, "still in Redact output"
					}
					if ok {
						kFound++
						continue
					}
					t.Errorf("%s (generator %d) in %s: %s\n--- document:\n%s\n--- redacted:\n%s", kind, gi, c.name, why, doc, red)
				}
			}
		}
		t.Logf("recall %-22s %3d/%3d", kind, kFound, kTotal)
		total += kTotal
		found += kFound
	}
	t.Logf("recall overall %d/%d = %.2f%%", found, total, 100*float64(found)/float64(total))
	if found != total {
		t.Errorf("recall %d/%d, want 100%%", found, total)
	}
}

// TestRecallRuntimeKinds covers the kinds that depend on configuration or
// on values registered at run time.
func TestRecallRuntimeKinds(t *testing.T) {
	t.Run("known-secret", func(t *testing.T) {
		r := New(Config{Key: testKey})
		v := rsecret(alBase62, 12)
		r.AddKnown("", v)
		doc := "build step 3 printed " + v + " and exited 0"
		assertRedacted(t, r, doc, v, KindKnownSecret)
		r.AddKnown("Vault Token", rsecret(alBase62, 10)) // custom kinds are normalised
		w := rsecret(alBase62, 10)
		r.AddKnown("Vault Token", w)
		assertRedacted(t, r, "x="+w, w, "vault-token")
	})
	t.Run("known-secret ignores short and low-entropy", func(t *testing.T) {
		r := New(Config{Key: testKey})
		for _, v := range []string{"true", "8080", "admin", "aaaaaaaaaaaa", "121212121212", "localhost"} {
			r.AddKnown("", v)
		}
		doc := "true 8080 admin aaaaaaaaaaaa 121212121212 localhost"
		if got := r.Redact(doc); got != doc {
			t.Errorf("redacted %q", got)
		}
	})
	t.Run("env", func(t *testing.T) {
		r := New(Config{Key: testKey})
		tok := rsecret(alBase62, 24)
		pw := rsecret(alBase62, 14)
		dsnpw := rsecret(alBase62, 11)
		r.AddEnv([]string{
			"PATH=/usr/local/bin:/usr/bin", "HOME=/home/dev", "GIT_AUTHOR_NAME=Jane Developer",
			"SSH_AUTH_SOCK=/tmp/ssh-XXXX/agent.42", "PWD=/home/dev/project",
			"MY_SERVICE_TOKEN=" + tok, "PGPASSWORD=" + pw,
			"ORDERS_DSN=orders:" + dsnpw + "@tcp(db:3306)/orders",
			"API_URL=https://api.acme.io/v1",
		})
		out := "PATH=/usr/local/bin:/usr/bin\nHOME=/home/dev\nGIT_AUTHOR_NAME=Jane Developer\n" +
			"SSH_AUTH_SOCK=/tmp/ssh-XXXX/agent.42\nAPI_URL=https://api.acme.io/v1\n"
		if got := r.Redact(out); got != out {
			t.Errorf("non-secret env values redacted:\n%s", got)
		}
		for _, v := range []string{tok, pw, dsnpw} {
			assertRedacted(t, r, "$ cat config\nvalue: "+v+"\n", v, KindKnownSecret)
		}
	})
	t.Run("dotenv", func(t *testing.T) {
		r := New(Config{Key: testKey})
		v1, v2 := rsecret(alBase62, 16), rsecret(alBase62, 9)
		env := "# local\nexport STRIPE_WEBHOOK=" + v1 + "\nFEATURE_FLAG_SEED='" + v2 + "' # seed\nDEBUG=true\nEMPTY=\n"
		r.AddDotenv([]byte(env))
		assertRedacted(t, r, "echo "+v1, v1, KindDotenvValue)
		assertRedacted(t, r, "seed is "+v2+".", v2, KindDotenvValue)
		got := string(r.RedactDotenv([]byte(env)))
		for _, v := range []string{v1, v2, "DEBUG=true"} {
			if strings.Contains(got, v) {
				t.Errorf("RedactDotenv left %q:\n%s", v, got)
			}
		}
		for _, keep := range []string{"# local", "export STRIPE_WEBHOOK=[REDACTED:dotenv-value:", "FEATURE_FLAG_SEED='[REDACTED:dotenv-value:", "' # seed", "EMPTY=\n"} {
			if !strings.Contains(got, keep) {
				t.Errorf("RedactDotenv lost %q:\n%s", keep, got)
			}
		}
	})
	t.Run("internal-domain", func(t *testing.T) {
		r := New(Config{Key: testKey, InternalDomains: []string{"corp.acme.internal", ".Build.Acme.IO"}})
		assertRedacted(t, r, "ssh deploy@db-07.corp.acme.internal -p 22", "db-07.corp.acme.internal", KindInternalDomain)
		assertRedacted(t, r, "curl https://ci.build.acme.io/api", "ci.build.acme.io", KindInternalDomain)
		assertRedacted(t, r, "host corp.acme.internal.", "corp.acme.internal", KindInternalDomain)
		for _, doc := range []string{"notcorp.acme.internal", "corp.acme.internal.evil.com", "build.acme.iox"} {
			if got := r.Redact(doc); got != doc {
				t.Errorf("%q redacted to %q", doc, got)
			}
		}
	})
	t.Run("pii", func(t *testing.T) {
		r := New(Config{Key: testKey, PII: true})
		email := rstr(alLower, 6) + "." + rstr(alLower, 5) + "@" + rstr(alLower, 7) + ".com"
		assertRedacted(t, r, `{"user": "`+email+`"}`, email, KindEmail)
		assertRedacted(t, r, "call +44 20 7946 0958 now", "+44 20 7946 0958", KindPhone)
		assertRedacted(t, r, "phone: (415) 555-2671.", "(415) 555-2671", KindPhone)
		card := luhnCard("4" + rstr(alDigit, 14))
		assertRedacted(t, r, "card="+card+" exp=12/29", card, KindCreditCard)
		spaced := card[:4] + " " + card[4:8] + " " + card[8:12] + " " + card[12:]
		assertRedacted(t, r, "card: "+spaced+"\n", spaced, KindCreditCard)
		for _, doc := range []string{
			"mail admin@example.com", "test card 4111 1111 1111 1111", "version 1.2.3", "ts=1700000000123",
			"id 1234567812345678", "2025-03-14 09:26:53", "go get golang.org/x/net@v0.1.0",
		} {
			if got := r.Redact(doc); got != doc {
				t.Errorf("%q redacted to %q", doc, got)
			}
		}
		if off := New(Config{Key: testKey}); off.Redact("mail "+email) != "mail "+email {
			t.Error("PII redacted without Config.PII")
		}
	})
}

func luhnCard(prefix15 string) string {
	for d := byte('0'); d <= '9'; d++ {
		c := prefix15 + string(d)
		digits := make([]byte, len(c))
		for i := range c {
			digits[i] = c[i] - '0'
		}
		if luhn(digits) {
			return c
		}
	}
	panic("unreachable")
}

func assertRedacted(t *testing.T, r *Redactor, doc, secret, kind string) {
	t.Helper()
	got := r.Redact(doc)
	if strings.Contains(got, secret) {
		t.Errorf("%s not redacted in %q: %q", kind, doc, got)
		return
	}
	if !strings.Contains(got, "[REDACTED:"+kind+":") {
		t.Errorf("want kind %s in %q", kind, got)
	}
}
