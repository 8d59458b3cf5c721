package redact

import (
	"crypto/rand"
	"io"
	"slices"
	"sync"
	"sync/atomic"
	"unsafe"
)

// Kind names. They appear in placeholders, so they are part of the contract.
const (
	KindAWSAccessKeyID    = "aws-access-key-id"
	KindAWSSecretKey      = "aws-secret-key"
	KindGitHubToken       = "github-token"
	KindGitLabToken       = "gitlab-token"
	KindSlackToken        = "slack-token"
	KindSlackWebhook      = "slack-webhook"
	KindStripeKey         = "stripe-key"
	KindOpenAIKey         = "openai-key"
	KindAnthropicKey      = "anthropic-key"
	KindGoogleAPIKey      = "google-api-key"
	KindGCPServiceAccount = "gcp-service-account"
	KindAzureStorageKey   = "azure-storage-key"
	KindNPMToken          = "npm-token"
	KindPyPIToken         = "pypi-token"
	KindSendGridKey       = "sendgrid-key"
	KindTwilio            = "twilio"
	KindJWT               = "jwt"
	KindPrivateKey        = "private-key"
	KindDBURLPassword     = "db-url-password"
	KindGenericSecret     = "generic-secret"
	KindDotenvValue       = "dotenv-value"
	KindKnownSecret       = "known-secret"
	KindEmail             = "email"
	KindPhone             = "phone"
	KindCreditCard        = "credit-card"
	KindInternalDomain    = "internal-domain"
	KindRedactKey         = "redact-key" // the fingerprint key itself, hex or base64
)

// priority decides the kind of a merged span when findings overlap: the most
// specific detector names it.
func priority(kind string) int8 {
	switch kind {
	case KindGCPServiceAccount:
		return 95
	case KindPrivateKey:
		return 90
	case KindGenericSecret:
		return 10
	case KindEmail, KindPhone, KindCreditCard, KindInternalDomain:
		return 5
	case KindKnownSecret, KindDotenvValue:
		return 50
	case KindJWT:
		return 70
	default:
		return 80
	}
}

// Config configures a Redactor.
type Config struct {
	// Key is the per-install HMAC key used for placeholder fingerprints
	// (see LoadOrCreateKey). If empty, a random key is generated: placeholders
	// are then stable only for the life of the Redactor.
	Key []byte
	// PII enables the opt-in personal-data kinds: email, phone, credit-card.
	PII bool
	// InternalDomains lists domains whose hostnames (the domain itself and
	// any subdomain) are redacted as internal-domain.
	InternalDomains []string
}

// Finding is one detected secret: b[Start:End] of the scanned input.
type Finding struct {
	Kind        string
	Start, End  int
	Fingerprint string // first 8 hex chars of HMAC-SHA256(key, secret)
	// Example marks a documented example value (such as AWS's
	// AKIAIOSFODNN7EXAMPLE): reported by Find, never redacted.
	Example bool
}

// Stats are cumulative counters of a Redactor.
type Stats struct {
	BytesScanned int64
	Redactions   map[string]int64 // by kind
	Examples     int64            // documented example values seen and left alone
}

// Redactor finds and replaces secrets. It is safe for concurrent use.
type Redactor struct {
	key []byte
	cfg Config

	mu     sync.Mutex // serialises registry changes
	known  []knownValue
	seen   map[string]bool
	engine atomic.Pointer[engine]

	scanned  atomic.Int64
	examples atomic.Int64
	statsMu  sync.Mutex
	perKind  map[string]int64
}

// New returns a Redactor for cfg.
func New(cfg Config) *Redactor {
	key := cfg.Key
	if len(key) == 0 {
		key = make([]byte, 32)
		_, _ = io.ReadFull(rand.Reader, key) // crypto/rand never fails on supported platforms
	}
	cfg.InternalDomains = slices.Clone(cfg.InternalDomains)
	r := &Redactor{key: slices.Clone(key), cfg: cfg, seen: map[string]bool{}, perKind: map[string]int64{}}
	// The key itself is a known secret wherever it shows (a command that
	// printed redact.key): with it, a placeholder's fingerprint would
	// confirm a guess of a weak secret.
	for _, v := range keyForms(r.key) {
		if knownValueOK(v) && !r.seen[v] {
			r.seen[v] = true
			r.known = append(r.known, knownValue{value: v, kind: KindRedactKey})
		}
	}
	r.engine.Store(newEngine(cfg, r.known))
	return r
}

// Redact returns s with every secret replaced by its placeholder. If nothing
// is found, s itself is returned.
func (r *Redactor) Redact(s string) string {
	if len(s) == 0 {
		return s
	}
	b := unsafe.Slice(unsafe.StringData(s), len(s)) // read only
	out, changed := r.redact(b)
	if !changed {
		return s
	}
	return string(out)
}

// RedactBytes returns b with every secret replaced by its placeholder. If
// nothing is found, b itself is returned; otherwise a new slice.
func (r *Redactor) RedactBytes(b []byte) []byte {
	out, _ := r.redact(b)
	return out
}

// Find returns the findings in b, sorted by Start, without overlaps.
// Documented example values are included with Example set.
func (r *Redactor) Find(b []byte) []Finding {
	cs := scanAll(r.engine.Load(), b)
	r.scanned.Add(int64(len(b)))
	if len(cs) == 0 {
		return nil
	}
	cands := resolve(cs)
	out := make([]Finding, len(cands))
	for i, c := range cands {
		out[i] = Finding{Kind: c.kind, Start: c.start, End: c.end, Fingerprint: r.fingerprint(c.secretIn(b)), Example: c.example}
	}
	return out
}

// Stats returns a snapshot of the counters.
func (r *Redactor) Stats() Stats {
	r.statsMu.Lock()
	defer r.statsMu.Unlock()
	m := make(map[string]int64, len(r.perKind))
	for k, v := range r.perKind {
		m[k] = v
	}
	return Stats{BytesScanned: r.scanned.Load(), Redactions: m, Examples: r.examples.Load()}
}

func (r *Redactor) redact(b []byte) ([]byte, bool) {
	cs := scanAll(r.engine.Load(), b)
	r.scanned.Add(int64(len(b)))
	if len(cs) == 0 {
		return b, false
	}
	cands := resolve(cs)
	out, n := r.apply(b, cands)
	if n == 0 {
		return b, false
	}
	return out, true
}

// apply writes b with the non-example candidates replaced and returns the
// result and the number of replacements.
func (r *Redactor) apply(b []byte, cands []cand) ([]byte, int) {
	n := 0
	for _, c := range cands {
		if c.example {
			r.examples.Add(1)
		} else {
			n++
		}
	}
	if n == 0 {
		return b, 0
	}
	out := make([]byte, 0, len(b)+n*32)
	last := 0
	r.statsMu.Lock()
	for _, c := range cands {
		if c.example {
			continue
		}
		r.perKind[c.kind]++
	}
	r.statsMu.Unlock()
	for _, c := range cands {
		if c.example {
			continue
		}
		out = append(out, b[last:c.start]...)
		out = r.appendPlaceholder(out, c.kind, c.secretIn(b))
		last = c.end
	}
	out = append(out, b[last:]...)
	return out, n
}

// cand is a candidate finding before overlap resolution.
type cand struct {
	start, end int
	kind       string
	example    bool
	// secret, when set, is the secret as a person reads it (escape
	// sequences removed, JSON escapes decoded; see normalise): its
	// placeholder's fingerprint is that of the plain secret.
	secret []byte
}

// secretIn returns the secret c stands for in b.
func (c *cand) secretIn(b []byte) []byte {
	if c.secret != nil {
		return c.secret
	}
	return b[c.start:c.end]
}

// resolve sorts candidates, merges overlapping redactions into one span named
// by the most specific kind, and drops examples that overlap a redaction.
func resolve(cs []cand) []cand {
	slices.SortFunc(cs, func(x, y cand) int {
		if x.start != y.start {
			return x.start - y.start
		}
		return y.end - x.end
	})
	out := cs[:0:0]
	var examples []cand
	for _, c := range cs {
		if c.example {
			examples = append(examples, c)
			continue
		}
		if n := len(out); n > 0 && c.start < out[n-1].end {
			last := &out[n-1]
			if c.start != last.start || c.end != last.end || last.secret == nil {
				last.secret = nil // a merged span: its bytes as they are
			}
			if c.end > last.end {
				last.end = c.end
			}
			if priority(c.kind) > priority(last.kind) {
				last.kind = c.kind
			}
			continue
		}
		out = append(out, c)
	}
	if len(examples) == 0 {
		return out
	}
	// Both lists are sorted by start and out has no overlaps: one sweep.
	red := len(out)
	j := 0
	for _, ex := range examples {
		for j < red && out[j].end <= ex.start {
			j++
		}
		if j < red && out[j].start < ex.end {
			continue // overlaps a redaction
		}
		if n := len(out); n > red && out[n-1].start == ex.start && out[n-1].end == ex.end && out[n-1].kind == ex.kind {
			continue
		}
		out = append(out, ex)
	}
	slices.SortStableFunc(out, func(x, y cand) int { return x.start - y.start })
	return out
}
