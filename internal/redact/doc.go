// Package redact owns secret detection and redaction: the keyword prefilter,
// the per-kind detectors and their checks (entropy, checksums, documented
// example values), the registry of secrets known at run time (AddKnown,
// AddEnv, AddDotenv), the classifier of credential environment variables
// (ClassifyEnvName, SecretEnv: the names kept from commands are the names
// whose values are known secrets), the placeholder format
// [REDACTED:KIND:FINGERPRINT] with its per-install HMAC key (itself a known
// secret), and a streaming writer that redacts output as it passes through
// (batch; live, for text a person watches; or by lines, for a command's
// output).
//
// It must not touch anything outside its own files: no journal, no policy, no
// tools, no network and no global state. Callers decide where redaction is
// applied; this package only finds and replaces. It depends on the standard
// library only (and internal/atomicfile, which writes its key file).
//
// Pipeline: one case-insensitive Aho-Corasick pass over the input finds
// keyword hits ("akia", "ghp_", "-----begin", "password", "://", ...); each
// hit runs its detector on a small window around it (anchored RE2 patterns
// or hand-written scanners, never a regex over the whole buffer); candidates
// are then checked (entropy, checksum, example lists), overlaps merged, and
// replaced. Text holding terminal escapes or JSON/URL escapes is scanned a
// second time as a person would read it (normalize.go: colour codes cut,
// "\/" and "\u00XX" decoded) and those findings are mapped back to the
// original bytes. Input without any finding is returned unchanged, without
// allocating. Nothing is compiled when the package is initialised: each
// rule's pattern on its first hit, the keyword list when the first engine
// is built (lazy.go), so that a command that never redacts pays nothing.
//
// Most vendor kinds are data: rules.go holds the tokens known by their
// prefix (hf_, shpat_, dop_v1_, AGE-SECRET-KEY-1, ...), rules_ctx.go those
// known by the vendor named in their key (DATADOG_API_KEY=<40 chars>) and
// by a window around a service word. The hand-written detectors cover
// formats: URL userinfo, .netrc, Docker auth files, Kubernetes Secrets,
// NuGet.Config, curl -u, key=value assignments (generic.go, keys.go,
// values.go). gitleaks_test.go maps every rule of gitleaks' default
// configuration to the kind that covers it; glvectors_test.go measures Redact
// on gitleaks' own rule-test vectors (scripts/gitleaks-vectors.sh).
package redact
