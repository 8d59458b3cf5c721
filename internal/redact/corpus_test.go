package redact

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
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

// allGenerators is every generator by kind: the original ones, those of
// the gitleaks rule table and those of issue 9's credential shapes.
func allGenerators() map[string][]genFunc {
	all := map[string][]genFunc{}
	for k, gs := range generators {
		all[k] = append(all[k], gs...)
	}
	for k, gs := range credentialGenerators {
		all[k] = append(all[k], gs...)
	}
	for _, rule := range gitleaksRules {
		if rule.gen == nil {
			continue
		}
		all[rule.kind] = append(all[rule.kind], rule.sample)
	}
	return all
}

// sample makes one sample of the rule, named by the rule's kind.
func (g gitleaksRule) sample() sample {
	s := g.gen()
	s.Kind = g.kind
	return s
}

// trySample renders s in every context that fits it and reports, per
// rendering, whether it was found with its kind and redacted; why says
// what failed. A generator bug (the secret not in the document) is fatal.
func trySample(t *testing.T, r *Redactor, s sample, fn func(ctx, doc, red string, ok bool, why string)) {
	t.Helper()
	if s.Doc {
		for _, c := range docContexts {
			doc := c.render(s.Name, s.Value)
			red := r.Redact(doc)
			ok, why := true, ""
			for _, n := range s.Needles {
				if !strings.Contains(doc, n) {
					t.Fatalf("%s/%s: generator bug: %.40q not in document", s.Kind, c.name, n)
				}
				if strings.Contains(red, n) {
					ok, why = false, fmt.Sprintf("%.40q still in Redact output", n)
				}
			}
			if ok && !strings.Contains(red, "[REDACTED:"+s.Kind+":") {
				ok, why = false, "no "+s.Kind+" placeholder"
			}
			fn(c.name, doc, red, ok, why)
		}
		return
	}
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
			t.Fatalf("%s/%s: generator bug: secret not in document", s.Kind, c.name)
		}
		ok, why := covers(r.Find([]byte(doc)), s.Kind, pos, len(sec), s.Exact, vpos, len(val))
		red := r.Redact(doc)
		if ok && strings.Contains(red, sec) {
			ok, why = false, "still in Redact output"
		}
		fn(c.name, doc, red, ok, why)
	}
}

// TestRecallCorpus generates fresh true positives of every kind in every
// context and requires each to be found, with its kind, and redacted. With
// -v it prints recall per kind (the table in docs/benchmarks.md).
func TestRecallCorpus(t *testing.T) {
	r := New(Config{Key: testKey})
	gens := allGenerators()
	kinds := make([]string, 0, len(gens))
	for k := range gens {
		kinds = append(kinds, k)
	}
	slices.Sort(kinds)
	total, found := 0, 0
	for _, kind := range kinds {
		kTotal, kFound, shown := 0, 0, 0
		for gi, gen := range gens[kind] {
			for range samplesPerGenerator {
				s := gen()
				s.Kind = kind
				trySample(t, r, s, func(ctx, doc, red string, ok bool, why string) {
					kTotal++
					if ok {
						kFound++
						return
					}
					if shown++; shown <= 3 {
						t.Errorf("%s (generator %d) in %s: %s\n--- document:\n%s\n--- redacted:\n%s", kind, gi, ctx, why, doc, red)
					}
				})
			}
		}
		t.Logf("recall %-26s %5d/%5d = %6.2f%%", kind, kFound, kTotal, 100*float64(kFound)/float64(kTotal))
		total += kTotal
		found += kFound
	}
	t.Logf("recall overall %d/%d = %.2f%% over %d kinds", found, total, 100*float64(found)/float64(total), len(kinds))
	if found != total {
		t.Errorf("recall %d/%d, want 100%%", found, total)
	}
}

// TestGitleaksRules: every rule of gitleaks' default configuration has a
// detector here; fresh samples of each rule's shape are redacted, named by
// the kind the table maps the rule to.
func TestGitleaksRules(t *testing.T) {
	r := New(Config{Key: testKey})
	seen := map[string]bool{}
	covered := 0
	for _, rule := range gitleaksRules {
		if seen[rule.id] {
			t.Errorf("rule %s listed twice", rule.id)
		}
		seen[rule.id] = true
		if rule.gen == nil {
			if rule.none == "" {
				t.Errorf("rule %s: no generator and no reason", rule.id)
			}
			t.Logf("%-45s not content: %s", rule.id, rule.none)
			continue
		}
		covered++
		n, ok := 0, 0
		for range 10 {
			trySample(t, r, rule.sample(), func(ctx, doc, red string, good bool, why string) {
				n++
				if good {
					ok++
				} else if n-ok <= 2 {
					t.Errorf("rule %s (kind %s) in %s: %s\n--- document:\n%s\n--- redacted:\n%s", rule.id, rule.kind, ctx, why, doc, red)
				}
			})
		}
		t.Logf("%-45s -> %-24s %3d/%3d", rule.id, rule.kind, ok, n)
	}
	t.Logf("%d gitleaks rules, %d with content, all mapped", len(gitleaksRules), covered)
	if len(gitleaksRules) != gitleaksRuleCount {
		t.Errorf("%d rules in the table, gitleaks v8.30.1 has %d", len(gitleaksRules), gitleaksRuleCount)
	}
}

// gitleaksRuleCount is the number of rules of gitleaks v8.30.1's default
// configuration.
const gitleaksRuleCount = 222

// TestGitleaksRuleIDs compares the table's rule ids with those of an
// installed gitleaks configuration: $GITLEAKS_CONFIG, or gitleaks v8.30.1's
// config/gitleaks.toml in the module cache (scripts/bench-gitleaks.sh puts
// it there). Skipped when neither is there.
func TestGitleaksRuleIDs(t *testing.T) {
	path := os.Getenv("GITLEAKS_CONFIG")
	if path == "" {
		out, err := exec.Command("go", "env", "GOMODCACHE").Output()
		if err != nil {
			t.Skipf("go env GOMODCACHE: %v", err)
		}
		path = filepath.Join(strings.TrimSpace(string(out)), "github.com", "zricethezav", "gitleaks", "v8@v8.30.1", "config", "gitleaks.toml")
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Skipf("no gitleaks configuration to compare with (run scripts/bench-gitleaks.sh): %v", err)
	}
	ids := map[string]bool{}
	for _, line := range strings.Split(string(b), "\n") {
		if id, ok := strings.CutPrefix(line, "id = \""); ok {
			ids[strings.TrimSuffix(id, "\"")] = true
		}
	}
	table := map[string]bool{}
	for _, r := range gitleaksRules {
		table[r.id] = true
		if !ids[r.id] {
			t.Errorf("rule %s is not in %s", r.id, path)
		}
	}
	for id := range ids {
		if !table[id] {
			t.Errorf("gitleaks rule %s has no entry in gitleaksRules", id)
		}
	}
	t.Logf("%s: %d rule ids, table %d", path, len(ids), len(table))
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
